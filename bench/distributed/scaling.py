"""Distributed runs on this machine (docs/distributed.md), written to
bench/distributed.md and bench/distributed.json:

1. the cost of the transport: 2 ranks of 1 thread against 1 rank of 2
   threads (the same cores), interp, helm and blur at the paper's sizes,
   timed in turns (A B A B) with `teml bench` (median kernel time; a
   distributed run's time is the slowest rank's, exchanges included);
2. strong scaling (1 and 2 ranks of 1 thread, same problem) and weak
   scaling (the problem doubled with the ranks);
3. memory: peak resident memory of each of 4 ranks of interp against one
   process (inputs from files, outputs to files);
4. the communication model: bytes each rank sends, receives and keeps for
   1 to 1024 ranks, from `teml check --ranks N -v` (the plan's exchanges,
   from the access relations): a model of a cluster, not a measurement.

Usage: /usr/bin/python3 bench/distributed/scaling.py [--turns 2] [--quick]
"""
import argparse
import json
import os
import pathlib
import platform
import re
import subprocess

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEML = str(ROOT / "build" / "teml")
EX = ROOT / "examples" / "distributed"
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_hwloc_base_binding_policy="none")
WORK = pathlib.Path(os.environ.get("TEML_BENCH_DIR", "/tmp/teml_distributed"))

WORKLOADS = {
    "interp": (EX / "interp.teml", {"E": 350000, "N": 7}, "E"),
    "helm": (EX / "helm.teml", {"E": 25000, "N": 13}, "E"),
    "blur": (EX / "blur.teml", {"N": 4096}, "N"),
}


def sizes_args(sizes):
    out = []
    for k, v in sizes.items():
        out += ["--set", f"{k}={v}"]
    return out


def bench(program, sizes, ranks, threads, runs):
    args = [TEML, "bench", str(program), *sizes_args(sizes), "--random", "1", "--threads", str(threads),
            "--runs", str(runs), "--json", "--cache-dir", str(WORK / "cache")]
    if ranks > 1:
        args = ["mpirun", "-np", str(ranks)] + args
    r = subprocess.run(args, capture_output=True, text=True, env=ENV, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])["median_s"]


def turns(label_a, a, label_b, b, n):
    """A B A B: the medians of each, and the ratio of their medians."""
    ta, tb = [], []
    for _ in range(n):
        ta.append(a())
        tb.append(b())
    ma, mb = float(np.median(ta)), float(np.median(tb))
    return {label_a: ma, label_b: mb, "ratio": mb / ma, "turns": n}


def memory(turns_n):
    """Peak resident MiB of one process and of each of 4 ranks, interp with files."""
    program, sizes, _ = WORKLOADS["interp"]
    e, n = sizes["E"], sizes["N"]
    rng = np.random.default_rng(1)
    np.save(WORK / "A.npy", rng.random((n, n)))
    np.save(WORK / "u.npy", rng.random((e, n, n, n)))
    common = [str(program), *sizes_args(sizes), "--input", f"A={WORK / 'A.npy'}", "--input", f"u={WORK / 'u.npy'}",
              "--output", f"v={WORK / 'v.npy'}", "--threads", "1", "--cache-dir", str(WORK / "cache"), "-v"]
    one = subprocess.run(["/usr/bin/time", "-f", "peak %M KiB", TEML, "run", *common], capture_output=True,
                         text=True, env=ENV, check=True)
    single = int(re.findall(r"peak (\d+) KiB", one.stderr)[-1]) / 1024
    four = subprocess.run(["mpirun", "-np", "4", TEML, "run", *common], capture_output=True, text=True, env=ENV,
                          check=True)
    ranks = [float(x) for x in re.findall(r"rank \d+: .*peak resident ([0-9.]+) MiB", four.stderr)]
    v1 = np.load(WORK / "v.npy", mmap_mode="r")
    return {"one_process_mib": single, "ranks_mib": ranks, "largest_over_one": max(ranks) / single}


def model(quick):
    """Bytes per rank from the plan, for 1..1024 ranks."""
    cases = {
        "interp": (EX / "interp.teml", {"E": 350000, "N": 7}),
        "blur": (EX / "blur.teml", {"N": 4096}),
        "mm": (EX / "mm.teml", {"N": 4096}),
        "gat-like csr": (EX / "csr.py", {"N": 2708, "M": 13264, "C": 64}),
    }
    counts = [1, 2, 4, 16, 64] if quick else [1, 2, 4, 16, 64, 256, 1024]
    out = {}
    for name, (program, sizes) in cases.items():
        rows = []
        for r in counts:
            res = subprocess.run([TEML, "check", str(program), *sizes_args(sizes), "--ranks", str(r), "-v"],
                                 capture_output=True, text=True, env=ENV, check=True)
            m = re.search(r"per rank at most (\d+) B sent, (\d+) B received, (\d+) B kept \((\d+) B of inputs\)",
                          res.stderr)
            rows.append({"ranks": r, "sent": int(m[1]) if m else 0, "received": int(m[2]) if m else 0,
                         "kept": int(m[3]) if m else None, "inputs": int(m[4]) if m else None})
        out[name] = rows
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    try:
        machine = subprocess.run(["lscpu"], capture_output=True, text=True).stdout.split("Model name:")[1].splitlines()[0].strip() + f", {os.cpu_count()} cores"
    except Exception:
        pass
    result = {"machine": machine, "transport": {}, "strong": {}, "weak": {}}
    for name, (program, sizes, scaled) in WORKLOADS.items():
        runs = 3
        result["transport"][name] = turns(
            "1 rank x 2 threads", lambda: bench(program, sizes, 1, 2, runs),
            "2 ranks x 1 thread", lambda: bench(program, sizes, 2, 1, runs), args.turns)
        result["strong"][name] = turns(
            "1 rank x 1 thread", lambda: bench(program, sizes, 1, 1, runs),
            "2 ranks x 1 thread", lambda: bench(program, sizes, 2, 1, runs), args.turns)
        half = dict(sizes, **{scaled: sizes[scaled] // 2})
        result["weak"][name] = turns(
            f"1 rank, {scaled}={half[scaled]}", lambda: bench(program, half, 1, 1, runs),
            f"2 ranks, {scaled}={sizes[scaled]}", lambda: bench(program, sizes, 2, 1, runs), args.turns)
    result["memory"] = memory(args.turns)
    result["model"] = model(args.quick)
    (ROOT / "bench" / "distributed.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
