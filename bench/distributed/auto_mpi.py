"""`--auto` under mpirun against one process (issue 43, item 4; docs/distributed.md):
interp as written (examples/interp/naive.teml) with the automatic schedule,
2 ranks of 1 thread (the schedule distributes the element loop) against
1 process of 2 threads, timed in turns (A B A B) with `teml bench` (median
kernel time; a distributed run's time is the slowest rank's). The first run
of each tunes and stores its choices in the kernel cache; the turns take
them from there. Prints a Markdown table for bench/distributed.md.

Usage: /usr/bin/python3 bench/distributed/auto_mpi.py [--turns 5] [--runs 5] [--E 350000]
"""
import argparse
import json
import os
import pathlib
import subprocess

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEML = str(ROOT / "build" / "teml")
NAIVE = ROOT / "examples" / "interp" / "naive.teml"
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_hwloc_base_binding_policy="none")
WORK = pathlib.Path(os.environ.get("TEML_BENCH_DIR", "/tmp/teml_distributed_auto"))


def bench(e, ranks, threads, runs):
    args = [TEML, "bench", str(NAIVE), "--set", f"E={e}", "--set", "N=7", "--auto", "--random", "1",
            "--threads", str(threads), "--runs", str(runs), "--json", "--cache-dir", str(WORK / "cache")]
    if ranks > 1:
        args = ["mpirun", "-np", str(ranks)] + args
    r = subprocess.run(args, capture_output=True, text=True, env=ENV, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])["median_s"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--E", type=int, default=350000)
    a = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    bench(a.E, 1, 2, 1)  # tunes (rank 0 alone under mpirun) and stores the choices
    bench(a.E, 2, 1, 1)
    one, two = [], []
    for _ in range(a.turns):
        one.append(bench(a.E, 1, 2, a.runs))
        two.append(bench(a.E, 2, 1, a.runs))
    ratios = [b / x for x, b in zip(one, two)]
    print("| interp --auto, E = %d | 1 process x 2 threads (s) | 2 ranks x 1 thread (s) | ratio |" % a.E)
    print("|---|---|---|---|")
    for k, (x, b) in enumerate(zip(one, two)):
        print(f"| turn {k + 1} | {x:.4f} | {b:.4f} | {b / x:.2f} |")
    print(f"| median | {np.median(one):.4f} | {np.median(two):.4f} | {np.median(ratios):.2f} |")


if __name__ == "__main__":
    main()
