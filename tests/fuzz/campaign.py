"""Runs generated programs by seed, records each result, summarizes, and
reduces failures (what scripts/fuzz.sh calls).

    /usr/bin/python3 tests/fuzz/campaign.py N [SEED] [--out fuzz-out] [--jobs 1]
        [--paths run,auto,...] [--no-reduce] [--tune-budget 0]
    /usr/bin/python3 tests/fuzz/campaign.py --summary [--out fuzz-out]

Seeds SEED .. SEED+N-1. A seed already in OUT/results.jsonl is skipped, so a
run can be stopped and started again, and ranges can run side by side
(appends are locked). A failing program is kept as OUT/programs/seed-S.py
with its log, and reduced to OUT/programs/seed-S.reduced.py.
"""
import argparse
import collections
import fcntl
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generator  # noqa: E402
import reducer  # noqa: E402
import runner  # noqa: E402

FAILURES = ("crash", "hang", "internal", "mismatch")


def records_in(results):
    """The records of a results file, in order; a torn last line is skipped."""
    if not os.path.exists(results):
        return
    with open(results) as f:
        for line in f:
            try:
                yield json.loads(line)
            except ValueError:
                continue


def done_seeds(results):
    # The oracle's own trouble (teml relinked meanwhile) is run again.
    return {r["seed"] for r in records_in(results) if r.get("outcome") != "oracle-error"}


def append(results, record):
    with open(results, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.write(json.dumps(record, sort_keys=True) + "\n")
        f.flush()
        fcntl.flock(f, fcntl.LOCK_UN)


def run_seed(seed, out, paths, tune_budget, reduce, timeout):
    progs = os.path.join(out, "programs")
    os.makedirs(progs, exist_ok=True)
    text = generator.generate(seed)
    path = os.path.join(progs, f"seed-{seed}.py")
    log_path = os.path.join(progs, f"seed-{seed}.log")
    with open(path, "w") as f:
        f.write(text)
    with open(log_path, "w") as log:
        r = runner.Runner(path, paths, seed, None, timeout, tune_budget, log=log).run()
    record = {"seed": seed, "outcome": r["outcome"], "failing_path": r["failing_path"], "kind": r["kind"],
              "seconds": r["seconds"], "uses": r["uses"],
              "paths": {p: {"outcome": x["outcome"], **({"kind": x["kind"]} if x.get("kind") else {}),
                            **({"refusals": x["refusals"]} if x.get("refusals") else {}),
                            **({"schedule": x["schedule"]} if x.get("schedule") else {})}
                        for p, x in r["paths"].items()}}
    if r["outcome"] in FAILURES:
        record["detail"] = r["paths"][r["failing_path"]]["detail"][:600]
        with open(os.path.join(progs, f"seed-{seed}.json"), "w") as f:
            json.dump(r, f, indent=1)
        fp = r["failing_path"]
        if fp in ("sched", "teml"):  # the reducer's unparse drops labels; TeML has none: kept whole
            with open(os.path.join(progs, f"seed-{seed}.{fp}.{'teml' if fp == 'teml' else 'py'}"), "w") as f:
                f.write(r["paths"][fp].get("program") or
                        runner.schedules.render(text, "f", r["paths"][fp].get("schedule", [])))
        elif reduce:
            pred = reducer.runner_predicate(fp, r["outcome"], [fp], timeout, seed)
            pred.set_category(r["paths"][fp]["detail"])
            red = reducer.Reducer(text, pred, max_seconds=int(os.environ.get("FUZZ_REDUCE_SECONDS", "300")))
            small = red.reduce()
            rpath = os.path.join(progs, f"seed-{seed}.reduced.py")
            with open(rpath, "w") as f:
                f.write(small)
            record["reduced"] = rpath
            record["reduced_lines"] = len(small.splitlines())
    else:
        os.remove(path)
        os.remove(log_path)
    return record


def summarize(out):
    results = os.path.join(out, "results.jsonl")
    records = {}
    for r in records_in(results):
        if r["seed"] not in records or records[r["seed"]]["outcome"] == "oracle-error":
            records[r["seed"]] = r
    outcomes = collections.Counter(r["outcome"] for r in records.values())
    per_path = collections.defaultdict(collections.Counter)
    refusals = collections.Counter()
    for r in records.values():
        for p, x in r["paths"].items():
            per_path[p][x["outcome"]] += 1
        if r["outcome"] == "refused":
            refusals[r["kind"]] += 1
        for p, x in r["paths"].items():
            if x["outcome"] == "refused" and p.split(":")[0] in runner.GRADIENT:
                refusals[f"{p.split(':')[0]} (gradient): {x.get('kind')}"] += 1
            elif x["outcome"] == "refused" and p == "teml" and x.get("kind", "").startswith("program:"):
                refusals[f"teml (program): {x['kind']}"] += 1
            for k in x.get("refusals", []):  # schedule steps refused, then dropped (sched, teml)
                refusals[f"{p} (step): {k}"] += 1
    seeds = sorted(records)
    lines = [f"programs: {len(records)} (seeds {ranges(seeds)})",
             "outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())), "",
             "| path | " + " | ".join(["ok", "refused", "mismatch", "internal", "crash", "hang", "skipped"]) + " |",
             "|---" * 8 + "|"]
    for p in sorted(per_path):
        c = per_path[p]
        lines.append(f"| {p} | " + " | ".join(str(c[k]) for k in ["ok", "refused", "mismatch", "internal", "crash",
                                                                     "hang", "skipped"]) + " |")
    steps = collections.Counter()  # the primitives of the random schedules that ran and matched
    for r in records.values():
        x = r["paths"].get("sched", {})
        if x.get("outcome") == "ok":
            for st in x.get("schedule", []):
                steps[st.split("s.", 1)[1].split("(")[0]] += 1
    if steps:
        lines += ["", "sched: steps of the schedules that ran and matched: "
                  + ", ".join(f"{k} {v}" for k, v in steps.most_common())]
    lines += ["", "refusals by kind:"] + [f"  {v:5}  {k}" for k, v in refusals.most_common()]
    fails = [r for r in records.values() if r["outcome"] in FAILURES]
    if fails:
        lines += ["", "failures:"]
        for r in sorted(fails, key=lambda r: r["seed"]):
            lines.append(f"  seed {r['seed']}: {r['outcome']} on {r['failing_path']}: {r.get('detail', '')[:160]}"
                         + (f" (reduced: {r['reduced_lines']} lines)" if "reduced" in r else ""))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)
    return text


def ranges(seeds):
    out, start, prev = [], None, None
    for s in seeds:
        if start is None:
            start = prev = s
        elif s == prev + 1:
            prev = s
        else:
            out.append(f"{start}-{prev}" if start != prev else str(start))
            start = prev = s
    if start is not None:
        out.append(f"{start}-{prev}" if start != prev else str(start))
    return ", ".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="?", default=0)
    ap.add_argument("seed", type=int, nargs="?", default=0)
    ap.add_argument("--out", default=os.environ.get("FUZZ_OUT", "fuzz-out"))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("FUZZ_JOBS", "1")))
    ap.add_argument("--paths", default=os.environ.get("FUZZ_PATHS", "all"),
                    help="comma list (default all: runner.EVERY_PATH)")
    ap.add_argument("--tune-budget", type=float, default=float(os.environ.get("FUZZ_TUNE_BUDGET", "0")))
    ap.add_argument("--timeout", type=int, default=int(os.environ.get("FUZZ_TIMEOUT", "120")))
    ap.add_argument("--no-reduce", action="store_true", default=os.environ.get("FUZZ_REDUCE", "1") == "0")
    ap.add_argument("--summary", action="store_true", help="only print the summary of OUT/results.jsonl")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    results = os.path.join(a.out, "results.jsonl")
    if a.summary:
        print(summarize(a.out), end="")
        return
    have = done_seeds(results)
    todo = [s for s in range(a.seed, a.seed + a.n) if s not in have]
    print(f"{len(todo)} programs to run ({a.n - len(todo)} already recorded in {results})", flush=True)
    paths = a.paths.split(",")
    t0 = time.time()

    def one(seed):
        try:
            rec = run_seed(seed, a.out, paths, a.tune_budget, not a.no_reduce, a.timeout)
        except Exception as e:  # the oracle's own failure: record it, go on
            rec = {"seed": seed, "outcome": "oracle-error", "failing_path": None, "kind": None,
                   "detail": f"{type(e).__name__}: {e}", "paths": {}, "uses": [], "seconds": 0}
        append(results, rec)
        print(f"seed {seed}: {rec['outcome']}" + (f" on {rec['failing_path']}" if rec.get("failing_path") else "")
              + f" ({rec['seconds']} s)", flush=True)
        return rec

    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        list(ex.map(one, todo))
    print(f"{len(todo)} programs in {time.time() - t0:.0f} s", flush=True)
    print(summarize(a.out), end="")


if __name__ == "__main__":
    main()
