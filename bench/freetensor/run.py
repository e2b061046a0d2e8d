#!/usr/bin/python3
"""Times the four free-form workloads (examples/freetensor/) against their
PyTorch versions (torch_layers.py) on the same inputs, in turns: PyTorch,
teml as written (--no-schedule), teml with its hand schedule, the same
without index checks (--unchecked-indices), and again. The turns run under
glibc's default malloc and under huge pages
(GLIBC_TUNABLES=glibc.malloc.hugetlb=1), both sides alike.

    /usr/bin/python3 bench/freetensor/run.py [--data DIR] [--turns N] [--out FILE.md] [--only NAME]

Writes a markdown table (default bench/freetensor.md); the inputs are made
by examples/freetensor/make_inputs.py when DIR has none."""
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEML = os.environ.get("TEML_BINARY", str(ROOT / "build" / "teml"))
OUTPUTS = {"subdivnet": "y", "longformer": "y", "softras": "image", "gat": "y"}
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


def torch_time(name, data, env):
    cmd = ["/usr/bin/python3", str(ROOT / "bench" / "freetensor" / "torch_layers.py"), name, str(data / name), "--runs", "5"]
    r = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout.strip().splitlines()[-1])
    return r["median_s"], r["peak_memory_mb"]


VARIANTS = {  # in the order of a turn
    "torch": lambda name, data, env: torch_time(name, data, env),
    "as written": lambda name, data, env: teml_time(name, data, env, "--no-schedule", runs=1),
    "scheduled": lambda name, data, env: teml_time(name, data, env),
    "unchecked": lambda name, data, env: teml_time(name, data, env, "--unchecked-indices"),
}


def main():
    data = pathlib.Path(option("--data", "/tmp/teml-freetensor-data"))
    turns = int(option("--turns", "3"))
    out = pathlib.Path(option("--out", str(ROOT / "bench" / "freetensor.md")))
    names = [option("--only", "")] if "--only" in sys.argv else list(OUTPUTS)
    if not (data / "gat" / "ptr.npy").exists():
        subprocess.run(["/usr/bin/python3", str(ROOT / "examples" / "freetensor" / "make_inputs.py"), str(data)], check=True)
    rows = []
    for name in names:
        results = {}  # malloc setting -> variant -> [(seconds, MB) per turn]
        for label, tunables in (("installed", None), ("huge pages", HUGE)):
            env = dict(os.environ)
            env.pop("GLIBC_TUNABLES", None)
            if tunables:
                env["GLIBC_TUNABLES"] = tunables
            results[label] = {v: [] for v in VARIANTS}
            for _ in range(turns):  # in turns: PyTorch, as written, scheduled, unchecked, PyTorch, ...
                for variant, run in VARIANTS.items():
                    results[label][variant].append(run(name, data, env))
            print(name, label, {v: round(statistics.median(t for t, _ in r), 5) for v, r in results[label].items()}, flush=True)
        rows.append((name, results))
    write_table(rows, turns, out)


def write_table(rows, turns, out):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
    med = lambda xs: statistics.median(xs)
    ms = lambda s: f"{s * 1e3:.1f} ms" if s < 10 else f"{s:.1f} s"
    lines = ["# Free-form workloads against PyTorch", "",
             f"Machine: {cpu}, 2 threads on both sides (`torch.set_num_threads(2)`, `teml bench --threads 2`). "
             f"{turns} turns of (PyTorch, teml as written, teml with its hand schedule, the same without index "
             "checks), each a median over its own runs; the table gives the medians over turns, under glibc's "
             "default malloc and with huge pages (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, both sides). "
             "Speed-ups are PyTorch / teml with index checks, turn by turn, against the faster PyTorch "
             "setting. Memory: how far each process's resident set grew while the layer ran (its "
             "intermediates and output), the larger of the two settings.", "",
             "| workload | PyTorch | PyTorch, huge pages | teml as written (no schedule) | teml scheduled | "
             "teml scheduled, unchecked | cost of the checks | speed-up over PyTorch | memory PyTorch | memory teml |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, results in rows:
        best = min(results, key=lambda k: med(t for t, _ in results[k]["torch"]))
        torch = [t for t, _ in results[best]["torch"]]
        sched = [t for t, _ in results[best]["scheduled"]]
        unchecked = [t for t, _ in results[best]["unchecked"]]
        speedup = med(a / b for a, b in zip(torch, sched))
        cost = med(a / b for a, b in zip(sched, unchecked)) - 1
        mem = lambda v: max(m for r in results.values() for _, m in r[v])
        t = lambda label, v: ms(med(s for s, _ in results[label][v]))
        lines.append(f"| {name} | {t('installed', 'torch')} | {t('huge pages', 'torch')} | {t(best, 'as written')} | "
                     f"{t(best, 'scheduled')} | {t(best, 'unchecked')} | {cost * 100:+.1f}% | **{speedup:.1f}x** | "
                     f"{mem('torch'):.0f} MB | {mem('scheduled'):.0f} MB |")
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main()
