"""Three more cases extrapolated to 1,024 ranks (a model of a cluster, not a
measurement), printed as a section of bench/distributed.md ("Indexed
gathers" / "Grids" part; scaling.py, which writes the rest of that file,
does not write it: paste it back after a rerun):

1. the 2-D heat equation in blocks (examples/distributed/heat2d_blocks.py)
   on square-ish grids of ranks, 2 x 1 to 32 x 32;
2. the matrix product of two computed matrices on a grid, as the plan moves
   it (what SUMMA broadcasts; the program of
   tests/distributed/test_mpi_rank_grids.py), 2 x 2 to 32 x 32;
3. the GAT-like indexed gather (examples/distributed/csr.py) on a power-law
   graph, 2 to 1,024 ranks, the rows each rank asks for counted from the graph.

Bytes come from the plan (`teml check --ranks R --ranks-grid RxC -v`, and the
boxes of `teml emit --emit lowered`) where planning is quick, and from closed
forms beyond, checked against the plan where both exist (the GAT's against
the bytes the kernels moved under mpirun at 2 and 4 ranks). Each rank's work
is its share (1/ranks) of one process's 1-thread time measured here. The
network is time_loops.py's: 2 us a message, 12.5 GB/s a rank's link; an
exchange costs (messages the busiest rank sends) x 2 us + (the most bytes a
rank sends or receives) / 12.5 GB/s.

Usage: TEML_BINARY=build/teml /usr/bin/python3 bench/distributed/new_cases_model.py
           [--heat-plan-up-to 64] [--mm-plan-up-to 256]
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import time

import numpy as np

import scaling
from scaling import ENV, EX, sizes_args  # the examples, MPI settings and --set lines
from time_loops import BANDWIDTH_BPS, LATENCY_S  # the same stated network

TEML = os.environ.get("TEML_BINARY", scaling.TEML)
ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests" / "distributed"
sys.path.insert(0, str(TESTS))
from test_mpi_indexed_gathers import GATHER, power_law_graph  # noqa: E402 (the tests' graph and -v line)

WORK = pathlib.Path(os.environ.get("TEML_BENCH_DIR", "/tmp/teml_new_cases_model"))
CACHE = ["--cache-dir", str(WORK / "cache")]
STEPS = 100
HEAT = EX / "heat2d_blocks.py"
HEAT_SIZES = {"N": 2048, "M": 2048, "T": STEPS}
HEAT_GRIDS = [(2, 1), (2, 2), (4, 4), (8, 8), (16, 16), (32, 32)]
MM_N = 2048
MM_SIZES = {"N": MM_N, "K": MM_N, "M": MM_N}
MM_GRIDS = [(2, 2), (4, 4), (8, 8), (16, 16), (32, 32)]
GAT = EX / "csr.py"
GAT_N, GAT_M, GAT_C = 200_000, 2_000_000, 16
GAT_RANKS = [2, 4, 16, 64, 256, 1024]
GAT_VALIDATE = [2, 4]
LOAD = os.getloadavg()[0]
TIMES = {}  # step -> wall seconds, printed to stderr


def timed(step, f, *args):
    t = time.time()
    out = f(*args)
    TIMES[step] = time.time() - t
    print(f"{step}: {TIMES[step]:.1f} s", file=sys.stderr, flush=True)
    return out


def run(args):
    return subprocess.run(args, capture_output=True, text=True, env=ENV, check=True)


def bench(program, sizes, extra=()):
    """One process, 1 thread: the median of 3 runs (s)."""
    r = run([TEML, "bench", str(program), *sizes_args(sizes), *extra, "--threads", "1", "--runs", "3", "--json",
             *CACHE])
    return json.loads(r.stdout.strip().splitlines()[-1])["median_s"]


def checked(program, sizes, grid):
    """(most bytes a rank sends, most it receives, in all) over the whole run, from `teml check -v`."""
    r = run([TEML, "check", str(program), *sizes_args(sizes), "--ranks", str(grid[0] * grid[1]),
             "--ranks-grid", f"{grid[0]}x{grid[1]}", "-v"])
    m = re.search(r"per rank at most (\d+) B sent, (\d+) B received.*in all (\d+) B sent", r.stderr)
    return tuple(int(x) for x in m.groups())


BOX = re.compile(r"rank (\d+) -> (\d+) ((?:\[\d+, \d+\)(?: x )?)+)")


def boxes(program, sizes, grid, last_time_loop):
    """rank -> (bytes sent, messages sent) of the exchanges of `--emit lowered` (8-byte elements): those
    inside the last time loop (one iteration), or all of them."""
    r = run([TEML, "emit", str(program), *sizes_args(sizes), "--ranks", str(grid[0] * grid[1]),
             "--ranks-grid", f"{grid[0]}x{grid[1]}", "--emit", "lowered"])
    lines = r.stdout.splitlines()
    if last_time_loop:
        start = max(k for k, line in enumerate(lines) if re.match(r"\s*for t in \[", line))
        lines = lines[start + 1:]
    out = {}
    for line in lines:
        if not line.strip().startswith("exchange "):
            continue
        for sender, _, box in BOX.findall(line):
            elements = 1
            for lo, hi in re.findall(r"\[(\d+), (\d+)\)", box):
                elements *= int(hi) - int(lo)
            b, n = out.get(int(sender), (0, 0))
            out[int(sender)] = (b + 8 * elements, n + 1)
    return out


def block(n, parts, k, begin=0):
    return begin + n * k // parts, begin + n * (k + 1) // parts


def size(n, parts, k):
    lo, hi = block(n, parts, k)
    return hi - lo


def heat_closed_form(n, m, rows, cols):
    """(most bytes a rank sends per step, most messages): the half steps run rows [1, n-1) x columns
    [1, m-1); per half step a rank sends its block's edge row (its block's width) to each vertical
    neighbour and its edge column (its block's height) to each horizontal one, and a step has two
    half steps (u, then v): per step 2 x 8 B x (vertical x width + horizontal x height), in
    2 x (vertical + horizontal) messages."""
    most, messages = 0, 0
    for r in range(rows * cols):
        i, j = r // cols, r % cols
        vertical = (i > 0) + (i < rows - 1)
        horizontal = (j > 0) + (j < cols - 1)
        most = max(most, 2 * 8 * (vertical * size(m - 2, cols, j) + horizontal * size(n - 2, rows, i)))
        messages = max(messages, 2 * (vertical + horizontal))
    return most, messages


def mm_closed_form(n, k, m, rows, cols):
    """(most bytes a rank receives, most it sends, messages): rank (i, j) computes A2's block rows i x
    columns j and B2's block rows i x columns j (of k x m); the product's block (i, j) reads A2's rows i
    whole and B2's columns j whole: it receives A2[rows i, k outside its columns j] from the other
    cols - 1 ranks of its grid row and B2[k outside its rows i, columns j] from the other rows - 1 of
    its grid column (the closed form of tests/distributed/test_mpi_rank_grids.py, on any grid)."""
    received, sent = 0, 0
    for r in range(rows * cols):
        i, j = r // cols, r % cols
        received = max(received, 8 * (size(n, rows, i) * (k - size(k, cols, j)) +
                                      (k - size(k, rows, i)) * size(m, cols, j)))
        sent = max(sent, 8 * (size(n, rows, i) * size(k, cols, j) * (cols - 1) +
                              size(k, rows, i) * size(m, cols, j) * (rows - 1)))
    return received, sent, (cols - 1) + (rows - 1)


def gather_counts(ptr, col, n, c, ranks):
    """Per rank: rows of h it asks for (distinct columns its rows name outside its block), bytes it
    receives and sends (8 B x C a row), and its own rows."""
    bounds = np.array([n * r // ranks for r in range(ranks + 1)])
    asked = np.zeros(ranks, np.int64)
    asked_of = np.zeros(ranks, np.int64)
    for r in range(ranks):
        lo, hi = bounds[r], bounds[r + 1]
        named = np.unique(col[ptr[lo]:ptr[hi]])
        elsewhere = named[(named < lo) | (named >= hi)]
        asked[r] = elsewhere.size
        asked_of += np.bincount(np.searchsorted(bounds, elsewhere, side="right") - 1, minlength=ranks)
    return {"received": 8 * c * asked, "sent": 8 * c * asked_of, "own": bounds[1:] - bounds[:-1], "asked": asked}


def exchange_s(messages, nbytes):
    return messages * LATENCY_S + nbytes / BANDWIDTH_BPS


def bound(exchange, work):
    return "the exchange" if exchange > work else "the work"


def mib(b):
    return f"{b / 2**20:.3g}"


def cpu():
    text = pathlib.Path("/proc/cpuinfo").read_text()
    name = re.search(r"model name\s*:\s*(.*)", text)[1].strip()
    flags = set(re.search(r"flags\s*:\s*(.*)", text)[1].split())
    vector = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE"
    return f"{name}, {os.cpu_count()} cores, {vector}"


def heat(args):
    lines = ["**The 2-D heat equation in blocks** (examples/distributed/heat2d_blocks.py).", ""]
    one = timed("heat: 1 process, 1 thread", bench, HEAT, HEAT_SIZES, ["--random", "1"])
    checks, planned = {}, {}
    for grid in HEAT_GRIDS:
        if grid[0] * grid[1] > args.heat_plan_up_to:
            continue
        t = time.time()
        checks[grid] = timed(f"heat: check {grid[0]}x{grid[1]}", checked, HEAT, HEAT_SIZES, grid)
        checks[grid] += (time.time() - t,)
        per_rank = timed(f"heat: emit {grid[0]}x{grid[1]}", boxes, HEAT, HEAT_SIZES, grid, True)
        planned[grid] = (max(b for b, _ in per_rank.values()), max(n for _, n in per_rank.values()))
    lines += [f"2048 x 2048 float64, {STEPS} steps. The closed form (`heat_closed_form`): the half steps run "
              "rows [1, 2047) x columns [1, 2047), split in blocks over the grid's rows and columns; every half "
              "step a rank sends its block's edge row (its block's width, 8 B a point) to each vertical neighbour "
              "and its edge column (its block's height) to each horizontal one, and a step has two half steps "
              "(u, then v), each its own exchange: per step 2 x 8 B x (vertical neighbours x width + horizontal "
              "neighbours x height), in 2 x (vertical + horizontal) messages, the most of any rank (an interior "
              "rank of 4 x 4 and up: 16 B x (2 x width + 2 x height) in 8 messages). Against the plan, where it "
              f"was made (up to {args.heat_plan_up_to} ranks: beyond, planning takes over a minute and grows with the "
              "ranks): `teml check -v` (the most a rank sends and receives over the 100 steps) and the boxes of "
              "`teml emit --emit lowered` (one iteration of the last time loop: from 4 x 4 on the first step is "
              "planned apart, as the blocks of [0, 2048) before the loop and of [1, 2047) inside it differ, and "
              "the check's totals include it):", "",
              "| ranks | grid | check: most sent, 100 steps (B) | check: most received (B) | 100 x closed form (B) "
              "| emit: most sent per step (B) | closed form per step (B) | emit: most messages per step "
              "| closed form | check (s) |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for grid, (sent, received, _, seconds) in checks.items():
        most, messages = heat_closed_form(2048, 2048, *grid)
        lines.append(f"| {grid[0] * grid[1]} | {grid[0]} x {grid[1]} | {sent} | {received} | {STEPS * most} | "
                     f"{planned[grid][0]} | {most} | {planned[grid][1]} | {messages} | {seconds:.1f} |")
    lines += ["", f"One process, 1 thread: {one:.3f} s for {STEPS} steps (`teml bench --random 1 --threads 1 "
              "--runs 3` median).", "",
              "| ranks | grid | bytes per rank and step | messages per step | exchange per step (us) "
              "| work per step (us) | bound by |", "|---|---|---|---|---|---|---|"]
    rows = []
    for grid in HEAT_GRIDS:
        ranks = grid[0] * grid[1]
        most, messages = planned.get(grid) or heat_closed_form(2048, 2048, *grid)
        source = "plan" if grid in planned else "closed form"
        exchange, work = exchange_s(messages, most), one / STEPS / ranks
        rows.append((ranks, exchange, work, most, messages))
        lines.append(f"| {ranks} | {grid[0]} x {grid[1]} | {most} ({source}) | {messages} | {exchange * 1e6:.1f} | "
                     f"{work * 1e6:.1f} | {bound(exchange, work)} |")
    extra = []
    for g, (sent, received, *_rest) in checks.items():
        want = STEPS * heat_closed_form(2048, 2048, *g)[0]
        if (sent, received) != (want, want):
            extra.append(f"{g[0]} x {g[1]}: {sent - want} B sent, {received - want} B received")
    ranks, exchange, work, most, messages = rows[-1]
    c = crossing(rows)
    lines += ["", f"Bound by the work up to {max(r[0] for r in rows if r[1] <= r[2])} ranks"
              + (f", by the exchange from {c}" if c else "")
              + f". The bytes per rank and step shrink with a block's side (1/sqrt(ranks)) and stay small: at "
              f"{ranks} ranks {most} B take {most / BANDWIDTH_BPS * 1e6:.2f} us, against "
              f"{messages * LATENCY_S * 1e6:.0f} us for the {messages} messages an interior rank sends a step "
              "(4 neighbours, two half steps, each its own exchange); the work shrinks as 1/ranks and meets that "
              f"latency between {max(r[0] for r in rows if r[1] <= r[2])} and {c or ranks} ranks "
              f"({work * 1e6:.1f} us of work a step at {ranks}). Plan and closed form agree where both exist: the "
              "steady step's boxes exactly, and the most a rank sends and receives over the 100 steps "
              + ("exactly." if not extra else "up to the first step's few extra elements (over 100 x the "
                 f"closed form: {'; '.join(extra)}).")]
    return lines, rows


def mm(args):
    lines = ["**The matrix product on a grid** (SUMMA's volumes).", ""]
    program = ROOT / "examples" / "distributed" / "mm_grid.py"
    one = timed("mm: 1 process, 1 thread", bench, program, MM_SIZES)
    checks = {}
    for grid in MM_GRIDS:
        if grid[0] * grid[1] > args.mm_plan_up_to:
            continue
        t = time.time()
        checks[grid] = timed(f"mm: check {grid[0]}x{grid[1]}", checked, program, MM_SIZES, grid)
        checks[grid] += (time.time() - t,)
    messages = {}
    for grid in MM_GRIDS[:2]:
        per_rank = timed(f"mm: emit {grid[0]}x{grid[1]}", boxes, program, MM_SIZES, grid, False)
        messages[grid] = max(n for _, n in per_rank.values())
    lines += ["examples/distributed/mm_grid.py (A2 = 2 A + 1 and B2 = B - 3 computed on the grid, then C = A2 B2 "
              f"with i and j distributed; tests/distributed/test_mpi_rank_grids.py runs it), N = K = M = {MM_N}, float64. The "
              "closed form (`mm_closed_form`, the test's on any grid): rank (i, j) of R x C receives A2's rows of "
              "its grid row outside its own columns from the other C - 1 ranks of its row and B2's columns of its "
              "grid column outside its own rows from the other R - 1 of its column, 8 B x (N/R x (K - K/C) + "
              "(K - K/R) x M/C), in (C - 1) + (R - 1) messages; it sends as much. The plan moves all of it before "
              "the product (SUMMA sends the same panels, a step at a time), and each rank then holds whole panels "
              "of A2 and B2. Against the plan:", "",
              "| ranks | grid | check: most sent (B) | check: most received (B) | closed form received (B) "
              "| emit: most messages | closed form | check (s) |", "|---|---|---|---|---|---|---|---|"]
    for grid, (sent, received, _, seconds) in checks.items():
        want, _, n_messages = mm_closed_form(MM_N, MM_N, MM_N, *grid)
        lines.append(f"| {grid[0] * grid[1]} | {grid[0]} x {grid[1]} | {sent} | {received} | {want} | "
                     f"{messages.get(grid, '-')} | {n_messages} | {seconds:.1f} |")
    flops = 2 * MM_N**3
    lines += ["", f"One process, 1 thread: {one:.3f} s ({flops / one / 1e9:.2f} G float64 operations a second, a "
              "multiply and an add each, `teml bench --threads 1 --runs 3` median; the schedule is the test's: no "
              "tiling); a rank's work is 2 N^3 / ranks at that speed.", "",
              "| ranks | grid | bytes per rank | messages | exchange (us) | work (us) | bound by |",
              "|---|---|---|---|---|---|---|"]
    rows = []
    for grid in MM_GRIDS:
        ranks = grid[0] * grid[1]
        received, sent, n_messages = mm_closed_form(MM_N, MM_N, MM_N, *grid)
        most = max(received, sent)
        exchange, work = exchange_s(n_messages, most), flops / ranks / (flops / one)
        rows.append((ranks, exchange, work, most, n_messages))
        lines.append(f"| {ranks} | {grid[0]} x {grid[1]} | {most} | {n_messages} | {exchange * 1e6:.1f} | "
                     f"{work * 1e6:.1f} | {bound(exchange, work)} |")
    c = crossing(rows)
    first, last = rows[0], rows[-1]
    lines += ["", ("Bound by the work at every grid up to 32 x 32" if c is None else f"Bound by the exchange from {c} "
                   "ranks") + f": a rank's work (2 N^3 / ranks) shrinks faster than what it receives (about "
              f"2 N^2 / sqrt(ranks) elements), but starts {first[2] / first[1]:.0f} times above it at "
              f"{first[0]} ranks; at {last[0]} ranks a rank receives {last[3] / 1e6:.1f} MB in {last[4]} messages, "
              f"{last[1] / last[2] * 100:.0f}% of its work, "
              f"{last[4] * LATENCY_S / last[1] * 100:.0f}% of that exchange latency "
              f"({last[4] * LATENCY_S * 1e6:.0f} us). What shrinks slowest is memory: the plan receives all of a "
              "rank's panels of A2 and B2 before the product (SUMMA would stream them a step at a time), N^2 / "
              "sqrt(ranks) elements each, shrinking as 1/sqrt(ranks) where the work shrinks as 1/ranks. The "
              "plan's bytes equal the closed form at every grid planned."]
    return lines, rows


def gat(args):  # noqa: ARG001
    lines = ["**The GAT-like indexed gather** (examples/distributed/csr.py).", ""]
    n, m, c = GAT_N, GAT_M, GAT_C
    ptr, col = power_law_graph(n, m, 11)
    x = np.random.default_rng(12).integers(-50, 50, (n, c)).astype(np.int64)
    files = []
    for name, value in {"ptr": ptr, "col": col, "x": x, "total": np.zeros(c, np.int64)}.items():
        np.save(WORK / f"in_{name}.npy", value)
        files += ["--input", f"{name}={WORK / f'in_{name}.npy'}"]
    sizes = {"N": n, "M": m, "C": c}
    one = timed("gat: 1 process, 1 thread", bench, GAT, sizes, files)
    counts = {ranks: gather_counts(ptr, col, n, c, ranks) for ranks in GAT_RANKS}
    lines += [f"{n:,} nodes, {m:,} edges, columns Zipf(1.6) (`power_law_graph(n, m, 11)` of "
              f"tests/distributed/test_mpi_indexed_gathers.py), {c} int64 features, inputs from .npy files. Rank r "
              "holds rows [n r / R, n (r + 1) / R) of h; it receives 8 B x C for each distinct column its rows "
              "name outside its block, and sends the rows others ask of it (counted from the graph with NumPy). "
              "Against the bytes the kernels moved (`mpirun -np R teml run ... -v --threads 1`, its \"indexed "
              "gather of 'h'\" lines):", "",
              "| ranks | rank | moved: sent (B) | moved: received (B) | graph: sent (B) | graph: received (B) "
              "| plan's bound, received (B) |", "|---|---|---|---|---|---|---|"]
    reads = {}
    for ranks in GAT_VALIDATE:
        r = timed(f"gat: mpirun -np {ranks}", run,
                  ["mpirun", "-np", str(ranks), TEML, "run", str(GAT), *sizes_args(sizes), *files,
                   "--output", f"y={WORK / 'out_y.npy'}", "--output", f"total={WORK / 'out_total.npy'}",
                   "-v", "--threads", "1", *CACHE])
        moved = {int(k): tuple(map(int, rest)) for k, *rest in GATHER.findall(r.stderr)}
        for rank in range(ranks):
            _, bound_received, sent, received, _ = moved[rank]
            want_sent, want_received = counts[ranks]["sent"][rank], counts[ranks]["received"][rank]
            equal = "" if (sent, received) == (want_sent, want_received) else " (DIFFERS)"
            lines.append(f"| {ranks} | {rank} | {sent} | {received} | {want_sent} | {want_received}{equal} | "
                         f"{bound_received} |")
        for name, nbytes in re.findall(r"rank \d+: input '(ptr|col)': read (\d+) B", r.stderr):
            reads.setdefault(name, set()).add(int(nbytes))
    lines += ["", f"One process, 1 thread: {one * 1e3:.1f} ms a call (`teml bench --threads 1 --runs 3` median, "
              "inputs from the files). Per call after the first (the requests are kept while no rank's marks "
              "change) a rank sends and receives its rows in one `MPI_Alltoallv`: up to R - 1 messages; the "
              "rank holding the hubs (rank 0: Zipf's most named columns are the lowest) sends R - 1 of them. "
              "The exchange below takes R - 1 messages and the most bytes any rank sends or receives (rank 0's "
              "sends, from 4 ranks on); the first call's requests (an `MPI_Alltoall` and an `MPI_Alltoallv`) "
              "and the two `MPI_Allreduce`s of every call (the marks' flag, `total`) are left out. Memory: today "
              f"each rank keeps the whole of h ({mib(8 * c * n)} MiB; it cannot know before the run which rows "
              "arrive); its own rows plus the rows it receives would do.", "",
              "| ranks | busiest received (B) | busiest sent (B) | all received (B) | messages | exchange (us) "
              "| work (us) | bound by | h kept today (MiB) | own + received rows (MiB, most) |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    rows = []
    for ranks, k in counts.items():
        most = int(max(k["received"].max(), k["sent"].max()))
        exchange, work = exchange_s(ranks - 1, most), one / ranks
        rows.append((ranks, exchange, work, int(k["received"].max()), int(k["sent"].max())))
        kept = int((8 * c * (k["own"] + k["asked"])).max())
        lines.append(f"| {ranks} | {k['received'].max()} | {k['sent'].max()} | {k['received'].sum()} | {ranks - 1} | "
                     f"{exchange * 1e6:.1f} | {work * 1e6:.1f} | {bound(exchange, work)} | {mib(8 * c * n)} | "
                     f"{mib(kept)} |")
    c = crossing(rows)
    latency_meets = (one / LATENCY_S) ** 0.5  # (R - 1) x 2 us = one / R, about
    last = rows[-1]
    whole = {"ptr": 4 * (n + 1), "col": 4 * m}
    read_whole = all(reads.get(name) == {nbytes} for name, nbytes in whole.items())
    lines += ["", (f"Bound by the exchange from {c} ranks" if c else "Bound by the work up to 1,024 ranks")
              + f" (the work up to {max(r[0] for r in rows if r[1] <= r[2])}). The work per call is small "
              f"({one * 1e3:.0f} ms on one core) and shrinks as 1/ranks; the all-to-all's latency grows as "
              f"(R - 1) x 2 us and alone passes the work near R = {latency_meets:.0f}. Bandwidth binds too, on the "
              f"sending side: what the busiest rank receives shrinks ({last[3]} B at {last[0]} ranks), but rank 0 "
              "holds the hubs that nearly every rank's edges name and sends them to each: "
              f"{last[4] / 1e6:.1f} MB at {last[0]} ranks, {last[4] / BANDWIDTH_BPS * 1e6:.0f} us, itself "
              f"{last[4] / BANDWIDTH_BPS / last[2]:.0f} times the work. "
              + ("What a rank would keep of h shrinks with the ranks, but every rank reads the whole of ptr "
                 f"({whole['ptr']} B) and col ({whole['col']} B) from the files (the -v lines of the runs above: "
                 "the rows' bounds come from ptr, so each rank's part of col is known only from data), a part "
                 "that does not shrink." if read_whole else f"Input reads of ptr and col per rank: {reads}.")]
    return lines, rows


def crossing(rows):
    """The first rank count whose exchange exceeds its work, or None."""
    return next((ranks for ranks, exchange, work, *_ in rows if exchange > work), None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--heat-plan-up-to", type=int, default=64, help="plan heat grids of at most this many ranks")
    ap.add_argument("--mm-plan-up-to", type=int, default=256, help="plan product grids of at most this many ranks")
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    started = time.time()
    heat_lines, _ = heat(args)
    mm_lines, _ = mm(args)
    gat_lines, _ = gat(args)
    lines = ["**Grids and indexed gathers at 1,024 ranks: a model.** "
             f"Machine: {cpu()}, shared (load average {LOAD:.1f} at the start), {time.strftime('%Y-%m-%d')}. "
             "Printed by "
             "`bench/distributed/new_cases_model.py` (scaling.py does not write this part). A model of a "
             f"cluster, not a measurement, apart from the rows checked against the plan or against mpirun: a "
             f"message costs {LATENCY_S * 1e6:.0f} us and a rank's link carries {BANDWIDTH_BPS / 1e9:.1f} GB/s "
             "(time_loops.py's network); an exchange takes (messages the busiest rank sends) x 2 us + (the most "
             "bytes a rank sends or receives) / 12.5 GB/s, its messages' latencies not overlapped; each rank's "
             "work is its share (1/ranks) of one process's 1-thread time here, as if it scaled perfectly (no "
             "cache effects of smaller blocks, no imbalance).", ""]
    lines += heat_lines + [""] + mm_lines + [""] + gat_lines + [""]
    print("\n".join(lines))
    print(f"total: {time.time() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
