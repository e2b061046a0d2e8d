#!/usr/bin/python3
"""Everyday operations: teml with no schedule (its automatic schedule,
programs.py) against the fastest of NumPy / SciPy / PyTorch on the same
inputs (baselines.py), timed in turns, at 1 and 2 threads.

    PYTHONPATH=build/python /usr/bin/python3 bench/ops/run.py [--threads 1 2] [--only NAME] [--quick]
        [--out DIR] [--reps N] [--budget SECONDS]
    /usr/bin/python3 bench/ops/run.py --table bench/ops/results.json   # results.md and .png again

For each thread count the machine's limits are measured first
(bench/machine/limits.py: FMA peak, STREAM triad), then one worker process
runs every operation with OMP_NUM_THREADS (and OpenBLAS's) set to that count
at its start, torch.set_num_threads, teml's `threads`, and a fresh, empty
kernel cache (XDG_CACHE_HOME in a temporary directory), so teml's first call
is its whole compile (and tuning) time. Each operation: seeded random inputs;
teml's first call, timed; teml's result checked against the baseline's; then
turns of (teml, every baseline candidate) until the budget or --reps runs;
median and min of each side. ratio = fastest baseline's median / teml's
median (> 1: teml faster). The limit is the op's minimal work (WORK below) at
the measured peak or bandwidth, whichever takes longer; % of limit = limit /
median time. A worker that dies (a crash in a kernel) is restarted on the
remaining operations and the one it died in is recorded with its stderr.

Writes DIR/results.json, DIR/results.md and DIR/results.png (plot.py);
DIR defaults to bench/ops/ (--quick: /tmp/teml-ops-quick)."""
import datetime
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT / "bench" / "machine")]

# ---------------------------------------------------------------- the ops
# name -> (description, full sizes, quick sizes); inputs(rng, sizes) and
# work(inputs) -> (flops, minimal bytes) below.
OPS = {
    "softmax": ("row softmax", dict(N=2048, M=1000), dict(N=64, M=50)),
    "layer_norm": ("layer norm (with gamma, beta)", dict(N=2048, M=1024), dict(N=64, M=64)),
    "gemv": ("y = A x", dict(M=4000, N=4000), dict(M=100, N=120)),
    "gemv_t": ("y = A^T x", dict(M=2000, N=3000), dict(M=80, N=90)),
    "matmul_f32": ("C = A B, float32", dict(M=1024, K=1024, N=1024), dict(M=64, K=48, N=40)),
    "matmul_f64": ("C = A B, float64", dict(M=512, K=512, N=512), dict(M=48, K=40, N=32)),
    "conv1d": ("conv1d, valid", dict(CI=16, L=4096, CO=32, K=7), dict(CI=4, L=128, CO=8, K=7)),
    "conv2d": ("conv2d, valid", dict(CI=16, H=64, W=64, CO=32, KH=3, KW=3), dict(CI=4, H=16, W=16, CO=8, KH=3, KW=3)),
    "spmv": ("CSR SpMV, float64", dict(R=20000, C=20000, NNZ=400000), dict(R=500, C=400, NNZ=5000)),
    "spmm": ("CSR SpMM, float32", dict(R=20000, C=20000, NNZ=200000, F=64), dict(R=400, C=300, NNZ=2000, F=16)),
    "sddmm": ("SDDMM on a CSR pattern", dict(R=20000, C=20000, NNZ=200000, F=64), dict(R=400, C=300, NNZ=2000, F=16)),
    "scatter_add": ("scatter-add of rows", dict(E=400000, D=16, R=20000), dict(E=2000, D=8, R=100)),
    "embedding_bag": ("embedding bag (sum)", dict(V=50000, D=64, B=4096, L=32), dict(V=500, D=16, B=64, L=8)),
    "attention": ("attention, one head", dict(S=512, D=64), dict(S=32, D=16)),
    "stencil2d": ("5-point stencil", dict(N=2048, M=2048), dict(N=64, M=70)),
    "sum_rows": ("sum along axis 1", dict(N=4096, M=4096), dict(N=100, M=120)),
    "sum_cols": ("sum along axis 0", dict(N=4096, M=4096), dict(N=100, M=120)),
}


def csr(rng, R, C, NNZ):
    # NNZ distinct positions, uniformly at random; rows in order, columns sorted in each row
    cells = np.sort(rng.choice(R * C, NNZ, replace=False))
    rows, cols = cells // C, cells % C
    ptr = np.searchsorted(rows, np.arange(R + 1)).astype(np.int32)
    return ptr, cols.astype(np.int32)


def inputs(name, rng, s):
    f32 = lambda *shape: rng.standard_normal(shape, dtype=np.float32)
    if name == "softmax":
        return [f32(s["N"], s["M"])]
    if name == "layer_norm":
        return [f32(s["N"], s["M"]), f32(s["M"]), f32(s["M"])]
    if name == "gemv":
        return [f32(s["M"], s["N"]), f32(s["N"])]
    if name == "gemv_t":
        return [f32(s["M"], s["N"]), f32(s["M"])]
    if name == "matmul_f32":
        return [f32(s["M"], s["K"]), f32(s["K"], s["N"])]
    if name == "matmul_f64":
        return [rng.standard_normal((s["M"], s["K"])), rng.standard_normal((s["K"], s["N"]))]
    if name == "conv1d":
        return [f32(s["CI"], s["L"]), f32(s["CO"], s["CI"], s["K"])]
    if name == "conv2d":
        return [f32(s["CI"], s["H"], s["W"]), f32(s["CO"], s["CI"], s["KH"], s["KW"])]
    if name == "spmv":
        ptr, col = csr(rng, s["R"], s["C"], s["NNZ"])
        return [ptr, col, rng.standard_normal(s["NNZ"]), rng.standard_normal(s["C"])]
    if name == "spmm":
        ptr, col = csr(rng, s["R"], s["C"], s["NNZ"])
        return [ptr, col, f32(s["NNZ"]), f32(s["C"], s["F"])]
    if name == "sddmm":
        ptr, col = csr(rng, s["R"], s["C"], s["NNZ"])
        return [ptr, col, f32(s["R"], s["F"]), f32(s["C"], s["F"])]
    if name == "scatter_add":
        return [f32(s["E"], s["D"]), rng.integers(0, s["R"], s["E"]), np.zeros((s["R"], s["D"]), np.float32)]
    if name == "embedding_bag":
        return [f32(s["V"], s["D"]), rng.integers(0, s["V"], (s["B"], s["L"]))]
    if name == "attention":
        return [f32(s["S"], s["D"]), f32(s["S"], s["D"]), f32(s["S"], s["D"])]
    if name in ("stencil2d", "sum_rows", "sum_cols"):
        return [f32(s["N"], s["M"])]
    raise KeyError(name)


def work(name, s, args):
    """(flops, minimal bytes moved: each input read once, each output written
    once; an inout read and written). exp, sqrt and division count as one flop."""
    nb = lambda *arrays: sum(a.nbytes for a in arrays)
    if name == "softmax":
        return 5 * args[0].size, 2 * args[0].nbytes  # max, subtract, exp, add, divide
    if name == "layer_norm":
        return 8 * args[0].size, 2 * args[0].nbytes + nb(*args[1:])
    if name in ("gemv", "gemv_t"):
        A, x = args
        return 2 * A.size, nb(A, x) + 4 * (A.size // x.size)
    if name.startswith("matmul"):
        A, B = args
        return 2 * s["M"] * s["N"] * s["K"], nb(A, B) + A.itemsize * s["M"] * s["N"]
    if name == "conv1d":
        lo = s["L"] - s["K"] + 1
        return 2 * s["CO"] * s["CI"] * s["K"] * lo, nb(*args) + 4 * s["CO"] * lo
    if name == "conv2d":
        ho, wo = s["H"] - s["KH"] + 1, s["W"] - s["KW"] + 1
        return 2 * s["CO"] * s["CI"] * s["KH"] * s["KW"] * ho * wo, nb(*args) + 4 * s["CO"] * ho * wo
    if name == "spmv":
        return 2 * s["NNZ"], nb(*args) + 8 * s["R"]
    if name == "spmm":
        return 2 * s["NNZ"] * s["F"], nb(*args) + 4 * s["R"] * s["F"]
    if name == "sddmm":
        return 2 * s["NNZ"] * s["F"], nb(*args) + 4 * s["NNZ"]
    if name == "scatter_add":
        x, index, y = args
        return x.size, nb(x, index) + 2 * y.nbytes
    if name == "embedding_bag":
        table, index = args
        rows = len(np.unique(index))  # each named row read once
        return index.size * s["D"], rows * s["D"] * 4 + index.nbytes + 4 * s["B"] * s["D"]
    if name == "attention":
        S, D = s["S"], s["D"]
        return 4 * S * S * D + 5 * S * S, 4 * 4 * S * D
    if name == "stencil2d":
        return 5 * (s["N"] - 2) * (s["M"] - 2), args[0].nbytes + 4 * (s["N"] - 2) * (s["M"] - 2)
    if name == "sum_rows":
        return args[0].size, args[0].nbytes + 4 * s["N"]
    if name == "sum_cols":
        return args[0].size, args[0].nbytes + 4 * s["M"]
    raise KeyError(name)


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def options(name, default):
    if name not in sys.argv:
        return default
    values = []
    for a in sys.argv[sys.argv.index(name) + 1:]:
        if a.startswith("--"):
            break
        values.append(a)
    return values


# ---------------------------------------------------------------- the worker
def close(got, want):
    """float32 tolerance, relative to the result's largest magnitude."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        return False, f"shape {got.shape}, expected {want.shape}"
    scale = max(float(np.abs(want).max()), 1e-30) if want.size else 1.0
    err = float(np.abs(got - want).max()) / scale if want.size else 0.0
    return bool(np.allclose(got, want, rtol=1e-3, atol=1e-4 * scale)), err


def run_op(name, threads, quick, reps, budget):
    import programs
    import baselines
    desc, full, small = OPS[name]
    sizes = small if quick else full
    rng = np.random.default_rng(44)
    args = inputs(name, rng, sizes)
    flops, nbytes = work(name, sizes, args)
    record = dict(name=name, description=desc, sizes=sizes, flops=flops, bytes=nbytes,
                  dtype=str(next(a.dtype for a in args if a.dtype.kind == "f")))
    cands = baselines.make(name, args)
    reference, base_ok, first = None, {}, {}
    for label, fn in cands.items():  # first calls (warm-up); the first candidate is the reference
        try:
            t = time.perf_counter()
            res = np.array(np.asarray(fn()))
            first[label] = time.perf_counter() - t
        except Exception as e:
            record.setdefault("baseline_errors", {})[label] = f"{type(e).__name__}: {e}"
            base_ok[label] = False
            continue
        if reference is None:
            reference = res
            base_ok[label] = True
        else:
            ok, err = close(res, reference)
            base_ok[label] = ok
            if not ok:
                record.setdefault("baseline_disagrees", {})[label] = err
    cands = {k: v for k, v in cands.items() if base_ok[k]}
    fastest = min((first[k] for k in cands), default=0)
    for k in list(cands):  # a candidate far slower than the others (seconds a call) is left out of the turns
        if first[k] > 1.0 and first[k] > 20 * fastest:
            record.setdefault("baseline_too_slow_s", {})[k] = first[k]
            del cands[k]
    again = {}
    for k, f in cands.items():  # a second call of each: first calls carry one-time set-up
        t = time.perf_counter()
        f()
        again[k] = time.perf_counter() - t
    for k in list(cands):  # one that cannot be the fastest only disturbs the others' turns
        if again[k] > 10 * min(again.values()):
            record.setdefault("baseline_not_contending_s", {})[k] = again[k]
            del cands[k]
    if not cands:
        record["error"] = f"no baseline ran: {record.get('baseline_errors')}"
        return record

    fn = getattr(programs, name)
    fn.threads = threads
    if name == "scatter_add":
        x, index, y = args

        def teml_call():
            y.fill(0)
            fn(x, index, y)
            return y
    else:
        holder = {}

        def teml_call():
            if "out" not in holder:
                holder["out"] = fn(*args)
                return holder["out"]
            return fn(*args, out=holder["out"])
    t0 = time.perf_counter()
    try:
        result = np.array(teml_call())
    except Exception as e:  # refused or failed: a finding, kept in the table
        record["error"] = f"{type(e).__name__}: {e}"
        record["first_call_s"] = time.perf_counter() - t0
        return record
    record["first_call_s"] = time.perf_counter() - t0
    ok, err = close(result, reference)
    record["check"] = dict(ok=ok, max_error_relative_to_max=err)
    sides = {"teml": teml_call, **cands}
    for f in sides.values():  # one more warm run each
        f()
    times = {k: [] for k in sides}
    start = time.perf_counter()
    order = list(sides.items())
    for turn in range(reps):  # in turns: teml, baseline 1, baseline 2, then baseline 1, ..., teml, ...
        # Each timed call follows an untimed one of its own side, so each finds
        # the caches as its own last call left them, not as another side did
        # (NumPy's embedding bag allocates 34 MB a call and evicts the table).
        # That is not all a call leaves behind (the lines it dirtied are written
        # back while the next side runs), so the order turns with each turn and
        # every side follows every other equally often.
        for label, f in order[turn % len(order):] + order[:turn % len(order)]:
            f()
            t = time.perf_counter()
            f()
            times[label].append(time.perf_counter() - t)
        if turn >= 2 and time.perf_counter() - start > budget:
            break
    record["runs"] = len(times["teml"])
    record["load_average"] = os.getloadavg()[0]  # other work on the machine while this op ran
    record["times"] = {k: dict(median_s=statistics.median(v), min_s=min(v)) for k, v in times.items()}
    best = min(cands, key=lambda k: record["times"][k]["median_s"])
    record["best_baseline"] = best
    record["ratio"] = record["times"][best]["median_s"] / record["times"]["teml"]["median_s"]
    record["ratio_min"] = record["times"][best]["min_s"] / record["times"]["teml"]["min_s"]
    new_shape(record, name, fn, sizes)
    return record


def new_shape(record, name, fn, sizes):
    """teml's first call at other sizes (each of 128 or more a quarter smaller; docs/python.md,
    "New shapes"), checked against the first baseline on the same inputs."""
    import baselines
    sizes = {k: v - v // 4 if v >= 128 else v for k, v in sizes.items()}
    args = inputs(name, np.random.default_rng(45), sizes)
    want = np.array(np.asarray(next(iter(baselines.make(name, args).values()))()))
    y = np.zeros_like(args[-1])
    t = time.perf_counter()
    got = np.array(fn(*args) if name != "scatter_add" else (fn(args[0], args[1], y), y)[1])
    record["new_shape"] = dict(sizes=sizes, call_s=time.perf_counter() - t, ok=close(got, want)[0])


def worker():
    threads = int(option("--worker", "1"))
    names = options("--ops", [])
    quick = "--quick" in sys.argv
    reps, budget = int(option("--reps", "30")), float(option("--budget", "2"))
    log = pathlib.Path(option("--log", "/dev/stdout"))
    # teml first, as docs/python.md asks: its short OpenMP spin then holds
    # for PyTorch's threads too (libgomp reads it once, when it loads).
    import teml  # noqa: F401
    import torch
    torch.set_num_threads(threads)
    for name in names:
        with open(log, "a") as f:
            f.write(json.dumps({"start": name}) + "\n")
        try:
            record = run_op(name, threads, quick, reps, budget)
        except Exception as e:  # the harness's own failure, kept in the table too
            import traceback
            record = dict(name=name, description=OPS[name][0], error=f"harness: {type(e).__name__}: {e}",
                          traceback=traceback.format_exc())
        with open(log, "a") as f:
            f.write(json.dumps({"done": record}) + "\n")
        status = record.get("error") or f"ratio {record['ratio']:.2f} vs {record['best_baseline']}"
        print(f"[{threads} thread(s)] {name}: {status}", flush=True)


# ---------------------------------------------------------------- the driver
def machine_description():
    import limits
    flags = set()
    for line in open("/proc/cpuinfo"):
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    simd = [f for f in ("avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_bf16") if f in flags]
    git = lambda *a: subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True).stdout.strip()
    dirty = [l[3:] for l in git("status", "--porcelain").splitlines() if l[3:].startswith(("src/", "python/", "include/"))]
    return dict(cpu=limits.cpu_model(), cores=os.cpu_count(), simd=simd, date=datetime.date.today().isoformat(),
                teml_commit=git("rev-parse", "--short", "HEAD"), teml_uncommitted=dirty)


HUGE_PAGES = "glibc.malloc.hugetlb=1"


def run_threads(threads, names, quick, out_dir):
    """Each op in a worker process per thread count, once with malloc as installed and once
    with huge pages (first touch of fresh memory is slow on these VMs, and PyTorch allocates
    its results per call); each side keeps the faster of the two (`merged`)."""
    import limits
    machine = limits.measure(threads)
    measure_gathers(threads, names, quick, machine)
    print(f"limits on {threads} thread(s): {machine['fma_gflops']:.0f} GFLOP/s, {machine['triad_gbs']:.1f} GB/s, "
          f"gathered rows {machine['gather_rows_per_s']}", flush=True)
    installed = run_workers(threads, names, quick, None)
    huge = run_workers(threads, names, quick, HUGE_PAGES)
    records = {n: merged(installed[n], huge.get(n)) for n in names if n in installed}
    for r in records.values():
        add_limit(r, machine)
    return dict(threads=threads, limits=machine, ops=[records[n] for n in names if n in records])


def merged(installed, huge):
    """The record as installed, each side's times replaced by those with huge pages where
    their median is lower (`huge_pages` lists those sides); best baseline and ratios again."""
    if not huge or "times" not in installed or "times" not in huge:
        return installed
    r = dict(installed, times=dict(installed["times"]), huge_pages=[])
    for side, t in huge["times"].items():
        if side in r["times"] and t["median_s"] < r["times"][side]["median_s"]:
            r["times"][side] = t
            r["huge_pages"].append(side)
    cands = [k for k in r["times"] if k != "teml"]
    best = min(cands, key=lambda k: r["times"][k]["median_s"])
    r["best_baseline"] = best
    r["ratio"] = r["times"][best]["median_s"] / r["times"]["teml"]["median_s"]
    r["ratio_min"] = r["times"][best]["min_s"] / r["times"]["teml"]["min_s"]
    r["load_average"] = max(installed.get("load_average", 0), huge.get("load_average", 0))
    return r


def run_workers(threads, names, quick, tunables):
    """{op: record} from worker processes (restarted after a crash) under GLIBC_TUNABLES=tunables."""
    records, remaining = {}, list(names)
    with tempfile.TemporaryDirectory(prefix="teml-ops-cache-") as cache:
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
                   MKL_NUM_THREADS=str(threads), XDG_CACHE_HOME=cache,
                   # OpenBLAS's idle threads spin for 2^28 cycles (~0.1 s) after each call by default,
                   # taking the second core from whichever side runs next in the turns; 2^4 cycles here
                   OPENBLAS_THREAD_TIMEOUT="4")
        env.pop("GLIBC_TUNABLES", None)
        if tunables:
            env["GLIBC_TUNABLES"] = tunables
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "build" / "python")] +
                                            ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        while remaining:
            log = pathlib.Path(cache) / "log.jsonl"
            log.unlink(missing_ok=True)
            cmd = [sys.executable, str(HERE / "run.py"), "--worker", str(threads), "--log", str(log),
                   "--reps", option("--reps", "30"), "--budget", option("--budget", "2"), "--ops", *remaining]
            if quick:
                cmd.append("--quick")
            proc = subprocess.run(cmd, env=env, stderr=subprocess.PIPE, text=True)
            started = None
            for line in log.read_text().splitlines() if log.exists() else []:
                entry = json.loads(line)
                if "start" in entry:
                    started = entry["start"]
                else:
                    records[entry["done"]["name"]] = entry["done"]
                    started = None
            remaining = [n for n in remaining if n not in records]
            if proc.returncode != 0:
                sys.stderr.write(proc.stderr[-3000:])
                name = started or (remaining[0] if remaining else None)
                if name is None:
                    break
                records[name] = dict(name=name, description=OPS[name][0], error=f"the process died (exit "
                                     f"{proc.returncode}): {proc.stderr.strip()[-600:]}")
                remaining.remove(name)
    return records


def gathered_rows(name, s):
    """(rows, table bytes, row bytes) of the rows an op reads at indices from data: once the
    table outgrows the caches those reads wait on the memory's latency, not its bandwidth
    (as GAT's in bench/freetensor/work.py)."""
    if name in ("spmm", "sddmm"):  # a row of B (of V) per nonzero
        return s["NNZ"], s["C"] * s["F"] * 4, s["F"] * 4
    if name == "embedding_bag":  # a row of the table per index
        return s["B"] * s["L"], s["V"] * s["D"] * 4, s["D"] * 4
    return None


def gather_key(table_bytes, row_bytes):
    """How a gather rate is kept in the machine's limits (and read back in the table)."""
    return f"{table_bytes}/{row_bytes}"


def measure_gathers(threads, names, quick, machine):
    """The rate of rows gathered at random from each op's table (limits.c), in this run."""
    import limits
    rates = machine.setdefault("gather_rows_per_s", {})
    for name in names:
        g = gathered_rows(name, OPS[name][2 if quick else 1])
        if g and gather_key(*g[1:]) not in rates:
            rates[gather_key(*g[1:])] = limits.measure(threads, g[1:])["gather_rows_per_s"]


def add_limit(r, machine):
    if "flops" not in r:
        return
    peak = machine["fma_gflops"] * 1e9 * (0.5 if r["dtype"] == "float64" and r["name"].startswith("matmul") else 1)
    t_flops, t_bytes = r["flops"] / peak, r["bytes"] / (machine["triad_gbs"] * 1e9)
    g = gathered_rows(r["name"], r["sizes"])
    rate = machine.get("gather_rows_per_s", {}).get(gather_key(*g[1:])) if g else None
    t_gathers = g[0] / rate if rate else 0.0
    r["limit_s"], r["bound"] = max((t_flops, "compute"), (t_bytes, "memory"), (t_gathers, "gathers"))
    if "times" in r:
        r["teml_pct_of_limit"] = 100 * r["limit_s"] / r["times"]["teml"]["median_s"]
        r["baseline_pct_of_limit"] = 100 * r["limit_s"] / r["times"][r["best_baseline"]]["median_s"]


def fmt_t(s):
    if s is None:
        return "-"
    return f"{s * 1e6:.0f} us" if s < 1e-3 else f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.2f} s"


def sizes_text(sizes):
    return " ".join(f"{k}={v}" for k, v in sizes.items())


def table(record):
    m = record["machine"]
    lines = ["# Everyday operations: teml's automatic schedule against NumPy / SciPy / PyTorch", "",
             f"Machine: {m['cpu']}, {m['cores']} cores, SIMD flags {', '.join(m['simd'])}; {m['date']}"
             f"{' (--quick sizes)' if record['quick'] else ''}. NumPy {record['versions']['numpy']} "
             f"(OpenBLAS), SciPy {record['versions']['scipy']}, PyTorch {record['versions']['torch']}. teml at "
             f"{m.get('teml_commit', '?')}"
             + (f" with uncommitted changes to {', '.join(m['teml_uncommitted'])} (build/ as it was)"
                if m.get("teml_uncommitted") else "") + ".", "",
             "teml runs each operation as a new user writes it (bench/ops/programs.py, loops, no schedule: "
             "the automatic schedule). The baseline is the fastest of the library calls in "
             "bench/ops/baselines.py on the same inputs. Times are medians (min in parentheses) of runs "
             "taken in turns (teml, each baseline, teml, ...); ratio = baseline median / teml median "
             "(> 1: teml faster). Limit: the op's flops at the measured FMA peak (float32; half for "
             "float64 matmul) or its minimal bytes (inputs read once, outputs written once) at the "
             "measured STREAM triad bandwidth, or, for ops that read rows of a table at "
             "indices from data (SpMM, SDDMM, embedding bag), those rows at the rate limits.c gathers rows "
             "of that size from a table that size at random indices (measured in the same run, below each "
             "table's heading; its loop prefetches 16 rows ahead), whichever is longest; % = limit / median. "
             "First call: "
             "teml's compile (and tuning) and first run, with an empty kernel cache. New shape: teml's "
             "first call after that at other sizes (each of 128 or more a quarter smaller: its own stages "
             "again, the C compiler only where a size decides the code; docs/python.md). Check: teml's result "
             "against the baseline's, max |error| / max |result|. Load: the machine's 1-minute load average "
             "when the op's turns ended (2 cores, shared: above 1 at 1 thread or 2 at 2 threads, other "
             "processes took time from both sides; the higher of the two runs). Each op runs twice, with malloc as "
             "installed and with huge pages (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, first touch of fresh memory "
             "being slow on these VMs); each side keeps its faster median, † where that was with huge pages. "
             "The FMA peak is limits.c's on the machine's widest vectors (64 bytes with AVX-512): a core "
             "whose clock rises above the one it ran at alone can pass 100%.", ""]
    for run in record["runs"]:
        lim = run["limits"]
        lines += [f"## {run['threads']} thread(s): FMA peak {lim['fma_gflops']:.0f} GFLOP/s, "
                  f"triad {lim['triad_gbs']:.1f} GB/s"
                  + "".join(f", rows of {int(k.split('/')[1])} B gathered from {int(k.split('/')[0]) / 1e3:.0f} kB "
                            f"{v / 1e6:.0f} M/s" for k, v in lim.get("gather_rows_per_s", {}).items()), "",
                  "| op | sizes | teml | best baseline | baseline time | ratio | work (MFLOP, MB) | limit | "
                  "teml % of limit | baseline % of limit | teml first call | new shape | check | runs | load |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in run["ops"]:
            sizes = sizes_text(r.get("sizes", {}))
            if "times" not in r:
                msg = r.get("error", "no result").replace("|", "\\|").replace("\n", " ")
                first = fmt_t(r.get("first_call_s"))
                lines.append(f"| {r['name']} | {sizes} | **failed** | | | | | | | | {first} | | {msg} | | |")
                continue
            tt, bt = r["times"]["teml"], r["times"][r["best_baseline"]]
            hp = r.get("huge_pages", [])
            mark = lambda side: " †" if side in hp else ""
            check = r["check"]
            ns = r.get("new_shape")
            new = (f"{fmt_t(ns['call_s'])}{'' if ns['ok'] else ' **WRONG**'}" if ns else "")
            lines.append(
                f"| {r['name']} | {sizes} | {fmt_t(tt['median_s'])} ({fmt_t(tt['min_s'])}){mark('teml')} | "
                f"{r['best_baseline']} | {fmt_t(bt['median_s'])} ({fmt_t(bt['min_s'])}){mark(r['best_baseline'])} | "
                f"**{r['ratio']:.2f}x** | "
                f"{r['flops'] / 1e6:.1f}, {r['bytes'] / 1e6:.1f} | {fmt_t(r['limit_s'])} ({r['bound']}) | "
                f"{r['teml_pct_of_limit']:.1f}% | {r['baseline_pct_of_limit']:.1f}% | {fmt_t(r['first_call_s'])} | {new} | "
                f"{'ok' if check['ok'] else '**WRONG**'} ({check['max_error_relative_to_max']:.1e}) | {r['runs']} | "
                f"{r.get('load_average', float('nan')):.1f} |")
        lines.append("")
        extra = [r for r in run["ops"] if r.get("baseline_disagrees") or r.get("baseline_errors")
                 or r.get("baseline_too_slow_s") or r.get("baseline_not_contending_s")]
        for r in extra:
            if r.get("baseline_too_slow_s"):
                lines.append(f"- {r['name']}: left out of the turns, over 1 s a call and 20x the fastest candidate: "
                             + ", ".join(f"{k} {fmt_t(v)}" for k, v in r["baseline_too_slow_s"].items()))
            if r.get("baseline_not_contending_s"):
                lines.append(f"- {r['name']}: left out of the turns, a second call over 10x the fastest candidate's: "
                             + ", ".join(f"{k} {fmt_t(v)}" for k, v in r["baseline_not_contending_s"].items()))
            if r.get("baseline_disagrees"):
                lines.append(f"- {r['name']}: baseline candidates that disagree with the first one and were left "
                             f"out (max error / max result): {r['baseline_disagrees']}")
            if r.get("baseline_errors"):
                lines.append(f"- {r['name']}: baseline candidates that failed: {r['baseline_errors']}")
        if extra:
            lines.append("")
    failed = {r["name"]: r["error"] for run in record["runs"] for r in run["ops"] if "error" in r}
    if failed:
        lines += ["## Failed or refused", ""] + [f"- **{n}**: `{e}`" for n, e in failed.items()] + [""]
    lines += ["Plot: results.png (ratio per op, log scale). Rerun: `PYTHONPATH=build/python /usr/bin/python3 "
              "bench/ops/run.py` (README.md)."]
    return "\n".join(lines) + "\n"


def main():
    if "--worker" in sys.argv:
        return worker()
    if "--table" in sys.argv:  # rewrite results.md and results.png from a results.json
        src = pathlib.Path(option("--table", str(HERE / "results.json")))
        record = json.loads(src.read_text())
        src.with_suffix(".md").write_text(table(record))
        import plot
        plot.draw(record, src.with_suffix(".png"))
        return
    threads = [int(t) for t in options("--threads", ["1", "2"])]
    quick = "--quick" in sys.argv
    names = options("--only", list(OPS))
    for n in names:
        if n not in OPS:
            sys.exit(f"unknown op {n!r}; the ops: {', '.join(OPS)}")
    out = pathlib.Path(option("--out", "/tmp/teml-ops-quick" if quick else str(HERE)))
    out.mkdir(parents=True, exist_ok=True)
    import scipy
    import torch
    record = dict(machine=machine_description(), quick=quick,
                  versions=dict(numpy=np.__version__, scipy=scipy.__version__, torch=torch.__version__),
                  runs=[run_threads(t, names, quick, out) for t in threads])
    (out / "results.json").write_text(json.dumps(record, indent=1) + "\n")
    (out / "results.md").write_text(table(record))
    import plot
    plot.draw(record, out / "results.png")
    print(table(record))


if __name__ == "__main__":
    main()
