#!/usr/bin/python3
"""Times the four free-form workloads (examples/freetensor/) against their
PyTorch versions (torch_layers.py) on the same inputs, in turns: PyTorch,
teml as written (--no-schedule --no-auto), teml's automatic schedule
(--no-schedule: docs/auto-schedule.md), teml with its hand schedule, the same
without index checks (--unchecked-indices), and again. The turns run under
glibc's default malloc and under huge pages
(GLIBC_TUNABLES=glibc.malloc.hugetlb=1), both sides alike. The machine's
FMA peak and memory bandwidth are measured first (bench/machine/limits.py)
and each workload's limit is its work against them (work.py).

    /usr/bin/python3 bench/freetensor/run.py [--data DIR] [--turns N] [--out FILE.md] [--only NAME]

Writes a markdown table (default bench/freetensor.md), the raw times next
to it (.json) and a plot of the speed-ups (.png); the inputs are made by
examples/freetensor/make_inputs.py when DIR has none."""
import datetime
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT / "bench" / "machine")]
import limits  # noqa: E402
import plot  # noqa: E402
import work  # noqa: E402

TEML = os.environ.get("TEML_BINARY", str(ROOT / "build" / "teml"))
WORKLOADS = ["subdivnet", "longformer", "softras", "gat"]
HUGE = "glibc.malloc.hugetlb=1"


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def teml_time(name, data, env, *flags, runs=None):
    cmd = [TEML, "bench", str(ROOT / "examples" / "freetensor" / f"{name}.py"), "--json", "--threads", "2", *flags]
    for f in sorted((data / name).glob("*.npy")):
        cmd += ["--input", f"{f.stem}={f}"]
    if runs:
        cmd += ["--runs", str(runs)]
    r = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout.strip().splitlines()[-1])
    return r["median_s"], r["peak_memory_mb"]


def choose_time(name, data):
    """Milliseconds the automatic schedule takes to choose (-v's `(auto-schedule)`
    stage), with an empty kernel cache and again with the one the first run filled."""
    with tempfile.TemporaryDirectory() as cache:
        cmd = [TEML, "check", str(ROOT / "examples" / "freetensor" / f"{name}.py"), "--no-schedule", "-v",
               "--cache-dir", cache]
        for f in sorted((data / name).glob("*.npy")):
            cmd += ["--input", f"{f.stem}={f}"]
        times = []
        for _ in range(2):
            err = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
            times.append(float(re.search(r"\(auto-schedule\)\s+([0-9.]+) ms", err).group(1)))
        return times


def torch_time(name, data, env):
    cmd = ["/usr/bin/python3", str(HERE / "torch_layers.py"), name, str(data / name), "--runs", "5"]
    r = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout.strip().splitlines()[-1])
    return r["median_s"], r["peak_memory_mb"]


VARIANTS = {  # in the order of a turn
    "torch": lambda name, data, env: torch_time(name, data, env),
    "as written": lambda name, data, env: teml_time(name, data, env, "--no-schedule", "--no-auto", runs=1),
    "auto": lambda name, data, env: teml_time(name, data, env, "--no-schedule"),
    "scheduled": lambda name, data, env: teml_time(name, data, env),
    "unchecked": lambda name, data, env: teml_time(name, data, env, "--unchecked-indices"),
}


def main():
    data = pathlib.Path(option("--data", "/tmp/teml-freetensor-data"))
    turns = int(option("--turns", "3"))
    out = pathlib.Path(option("--out", str(ROOT / "bench" / "freetensor.md")))
    names = [option("--only", "")] if "--only" in sys.argv else WORKLOADS
    if not (data / "gat" / "weight.npy").exists():
        subprocess.run(["/usr/bin/python3", str(ROOT / "examples" / "freetensor" / "make_inputs.py"), str(data)], check=True)
    machine = limits.measure(2)
    for name in names:  # the rate of the rows a workload gathers, at its table's size (GAT)
        w = work.WORK[name](data / name)
        if work.gather_key(w):
            rate = limits.measure(2, w["gather_table"])["gather_rows_per_s"]
            machine.setdefault("gather_rows_per_s", {})[work.gather_key(w)] = rate
    machine["date"] = datetime.date.today().isoformat()
    print(machine, flush=True)
    rows = {}
    for name in names:
        results = {}  # malloc setting -> variant -> [(seconds, MB) per turn]
        for label, tunables in (("installed", None), ("huge pages", HUGE)):
            env = dict(os.environ)
            env.pop("GLIBC_TUNABLES", None)
            if tunables:
                env["GLIBC_TUNABLES"] = tunables
            results[label] = {v: [] for v in VARIANTS}
            for _ in range(turns):  # in turns: PyTorch, as written, auto, scheduled, unchecked, PyTorch, ...
                for variant, run in VARIANTS.items():
                    results[label][variant].append(run(name, data, env))
            print(name, label, {v: round(statistics.median(t for t, _ in r), 5) for v, r in results[label].items()}, flush=True)
        rows[name] = {"results": results, "work": work.WORK[name](data / name), "choose_ms": choose_time(name, data)}
    record = {"machine": machine, "turns": turns, "workloads": rows}
    out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    out.write_text(table(record))
    plot.speedups(record, out.with_suffix(".png"))
    print(out.read_text())


def table(record):
    m = record["machine"]
    med = statistics.median
    ms = lambda s: f"{s * 1e3:.1f} ms" if s < 10 else f"{s:.1f} s"
    lines = ["# Free-form workloads against PyTorch", "",
             f"Machine: {m['cpu']}, {m['cores']} cores, {m['date']}; measured in this run on 2 threads: "
             f"FMA peak {m['fma_gflops']:.0f} GFLOP/s (float32), memory bandwidth {m['triad_gbs']:.1f} GB/s "
             "(STREAM triad; bench/machine/limits.py). 2 threads on both sides (`torch.set_num_threads(2)`, "
             f"`teml bench --threads 2`). {record['turns']} turns of (PyTorch, teml as written, teml's automatic "
             "schedule of the program as written (docs/auto-schedule.md), teml with its hand "
             "schedule, the same without index checks), each a median over its own runs; the table gives the "
             "medians over turns, under glibc's default malloc and with huge pages "
             "(`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, both sides). Speed-ups are PyTorch / teml scheduled "
             "with index checks, turn by turn: in the same malloc setting, and (in bold) PyTorch's faster "
             "setting of that turn against teml with huge pages. The limit is the work that must be "
             "done (bench/freetensor/work.py: flops, and the bytes of inputs and outputs) at the measured peak "
             "and bandwidth, and for GAT its edges' rows of h gathered at the rate this machine gathers rows of "
             "that size from a table that size at random (bench/machine/limits.c, 16 rows fetched ahead: "
             + ", ".join(f"{v / 1e6:.0f} M rows/s for {k.replace(' ', ' B tables of ')} B rows"
                         for k, v in m.get("gather_rows_per_s", {}).items())
             + "), whichever takes longest; a teml column's % is limit / its time. Memory: how far "
             "each process's resident set grew while the layer ran (its intermediates and output), the larger "
             "of the two settings. Plot: freetensor.png.", "",
             "| workload | PyTorch | PyTorch, huge pages | teml as written (no schedule) | teml auto | teml scheduled | "
             "teml scheduled, unchecked | cost of the checks | speed-up, huge pages | speed-up, glibc malloc | "
             "speed-up over PyTorch's faster setting | auto: speed-up over PyTorch's faster setting | "
             "work | limit | teml as written, % of limit | teml auto, % of limit | teml scheduled, % of limit | "
             "memory PyTorch | memory teml | auto: time to choose (cold, again) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, row in record["workloads"].items():
        results, w = row["results"], row["work"]
        times = lambda label, v: [t for t, _ in results[label][v]]
        speedup = lambda label: med(a / b for a, b in zip(times(label, "torch"), times(label, "scheduled")))
        huge = "huge pages"
        faster = lambda v: med(min(a, b) / c for a, b, c in zip(times("installed", "torch"), times(huge, "torch"),
                                                                times(huge, v)))
        cost = med(a / b for a, b in zip(times(huge, "scheduled"), times(huge, "unchecked"))) - 1
        mem = lambda v: max(mb for r in results.values() for _, mb in r[v])
        t = lambda label, v: ms(med(times(label, v)))
        choose = lambda r: ", ".join(f"{c:.1f} ms" for c in r["choose_ms"]) if "choose_ms" in r else "not measured"
        limit, bound = work.limit(w, m)
        pct = lambda v: f"{100 * limit / med(times(huge, v)):.1f}%"
        lines.append(f"| {name} | {t('installed', 'torch')} | {t(huge, 'torch')} | {t(huge, 'as written')} | "
                     f"{t(huge, 'auto')} | {t(huge, 'scheduled')} | {t(huge, 'unchecked')} | {cost * 100:+.1f}% | {speedup(huge):.1f}x | "
                     f"{speedup('installed'):.1f}x | **{faster('scheduled'):.1f}x** | {faster('auto'):.1f}x | {w['flops'] / 1e6:.0f} MFLOP, {w['bytes'] / 1e6:.0f} MB | "
                     f"{ms(limit)} ({bound}) | {pct('as written')} | {pct('auto')} | {pct('scheduled')} | "
                     f"{mem('torch'):.0f} MB | {mem('scheduled'):.0f} MB | {choose(row)} |")
    lines += ["", "teml columns: with huge pages (teml allocates little; the two settings differ by noise)."]
    notes = HERE / "notes.md"  # what the table cannot say, kept by hand
    return "\n".join(lines) + "\n" + (notes.read_text() if notes.exists() else "")


if __name__ == "__main__":
    main()
