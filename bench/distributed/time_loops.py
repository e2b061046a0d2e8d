"""Time loops under mpirun (docs/distributed.md, "Time loops"): the heat
equation in 1-D and 2-D (examples/distributed/heat1d.py, heat2d.py), printed
as the "Time loops" section of bench/distributed.md (scaling.py writes the
rest of that file and leaves this section out: paste it back after a rerun).

1. The cost of the transport: 2 ranks of 1 thread against 1 process of 2
   threads, `teml bench` medians (a distributed run's time is the slowest
   rank's, its exchanges included), in turns A B A B.
2. Prediction against measurement: the bytes the plan predicts (`teml check
   --ranks N -v`) and the bytes the kernels moved (`teml run -v` under
   mpirun), 1-4 ranks.
3. A model of a cluster: the plan's bytes and messages per rank and step
   for 1 to 1024 ranks, on a stated network, against each rank's share of
   the work at the speed measured here on one rank.

Usage: /usr/bin/python3 bench/distributed/time_loops.py [--turns 3]
"""
import argparse
import json
import os
import pathlib
import re
import subprocess

from scaling import ENV, EX, TEML, sizes_args  # the same binary, examples, MPI settings and --set lines

WORK = pathlib.Path(os.environ.get("TEML_BENCH_DIR", "/tmp/teml_time_loops"))
STEPS = 100
CASES = {  # name: program, sizes
    "heat 1-D": (EX / "heat1d.py", {"N": 4_000_000, "T": STEPS}),
    "heat 1-D, two buffers": (EX / "heat1d_two_buffers.py", {"N": 4_000_000, "T": STEPS}),
    "heat 2-D": (EX / "heat2d.py", {"N": 2048, "M": 2048, "T": STEPS}),
}
# Halo exchanges per time step: heat2d.py runs two half steps, each with
# its own; the two-buffer 1-D loop runs in pairs of steps, one per step.
EXCHANGES_PER_STEP = {"heat 1-D": 1, "heat 1-D, two buffers": 1, "heat 2-D": 2}
# The network of the model: a current cluster interconnect (InfiniBand HDR
# class), one message's latency and one link's bandwidth per rank.
LATENCY_S = 2e-6
BANDWIDTH_BPS = 12.5e9


def bench(program, sizes, ranks, threads):
    args = [TEML, "bench", str(program), *sizes_args(sizes), "--random", "1", "--threads", str(threads), "--runs", "5",
            "--json", "--cache-dir", str(WORK / "cache")]
    if ranks > 1:
        args = ["mpirun", "-np", str(ranks)] + args
    r = subprocess.run(args, capture_output=True, text=True, env=ENV, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])["median_s"]


def planned(program, sizes, ranks):
    """(most bytes a rank sends, in all) over the whole run, from the plan."""
    r = subprocess.run([TEML, "check", str(program), *sizes_args(sizes), "--ranks", str(ranks), "-v"],
                       capture_output=True, text=True, env=ENV, check=True)
    m = re.search(r"per rank at most (\d+) B sent.*in all (\d+) B sent", r.stderr)
    return (int(m[1]), int(m[2])) if m else (0, 0)


def moved(program, sizes, ranks):
    """Bytes the kernels sent, in all, under mpirun."""
    args = ["mpirun", "-np", str(ranks), TEML, "run", str(program), *sizes_args(sizes), "--random", "1",
            "--threads", "1", "-v", "--cache-dir", str(WORK / "cache")]
    r = subprocess.run(args, capture_output=True, text=True, env=ENV, check=True)
    return sum(int(x) for x in re.findall(r"moved (\d+) B sent", r.stderr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=3)
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    lines = ["## Time loops: the heat equation, 100 steps", "",
             "Printed by `bench/distributed/time_loops.py` (examples/distributed/heat1d.py at N = 4,000,000, "
             "heat2d.py at 2048 x 2048, float64). Times: `teml bench --runs 5 --random 1` medians, "
             f"{args.turns} turns A B A B.", "",
             "| case | 1 process x 2 threads (s) | 2 ranks x 1 thread (s) | ratio (target <= 1.2) |", "|---|---|---|---|"]
    one_rank = {}
    for name, (program, sizes) in CASES.items():
        a, b = [], []
        for _ in range(args.turns):
            a.append(bench(program, sizes, 1, 2))
            b.append(bench(program, sizes, 2, 1))
        a.sort(), b.sort()
        ma, mb = a[len(a) // 2], b[len(b) // 2]
        lines.append(f"| {name} | {ma:.4f} | {mb:.4f} | {mb / ma:.2f} |")
        one_rank[name] = bench(program, sizes, 1, 1)
    lines += ["", "Bytes sent in all, as the plan predicts them and as the kernels moved them:", "",
              "| case | ranks | predicted (B) | moved (B) |", "|---|---|---|---|"]
    for name, (program, sizes) in CASES.items():
        for ranks in (2, 3, 4):
            lines.append(f"| {name} | {ranks} | {planned(program, sizes, ranks)[1]} | {moved(program, sizes, ranks)} |")
    lines += ["", f"A model of a cluster (not a measurement): a message costs {LATENCY_S * 1e6:.0f} us and a rank's "
              f"link carries {BANDWIDTH_BPS / 1e9:.1f} GB/s; each rank's work takes its share of one rank's time "
              "measured here (1 thread). Per exchange, each rank but the first and last sends to two "
              "neighbours: two messages (one at 2 ranks); heat 2-D has two exchanges a step (its half steps).", "",
              "| case | ranks | sent per rank and step (B) | exchange per step (us) | work per step (us) | bound by |",
              "|---|---|---|---|---|---|"]
    for name, (program, sizes) in CASES.items():
        for ranks in (2, 16, 64, 256, 1024):
            # Planning takes time with the square of the ranks (2 min for heat 2-D at 1024): past 256 the
            # halo per rank no longer changes (two neighbours), so 1024 takes 256's bytes.
            most, _ = planned(program, sizes, min(ranks, 256))
            per_step = most / STEPS
            messages = EXCHANGES_PER_STEP[name] * min(2, ranks - 1)
            exchange = messages * LATENCY_S + per_step / BANDWIDTH_BPS
            work = one_rank[name] / STEPS / ranks
            lines.append(f"| {name} | {ranks} | {per_step:.0f} | {exchange * 1e6:.1f} | {work * 1e6:.1f} | "
                         f"{'the exchange' if exchange > work else 'the work'} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
