#!/usr/bin/python3
"""Times the forward and backward passes of the four free-form workloads
(`teml bench --wrt ... --of ...`: the program and its gradient program,
docs/autodiff.md) against PyTorch autograd through the PyTorch layers
(torch_layers.py --grad), same inputs, 2 threads, in turns: PyTorch, teml
with --tapes auto, teml with --tapes all, and again; under glibc's default
malloc and with huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), both
sides alike. Peak memory is each process's own growth while the layers ran.

    /usr/bin/python3 bench/freetensor/grad.py [--data DIR] [--turns N] [--out FILE.md] [--only NAME]

Writes a markdown table (default bench/freetensor_grad.md) and the raw
times next to it (.json)."""
import datetime
import json
import os
import pathlib
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TEML = os.environ.get("TEML_BINARY", str(ROOT / "build" / "teml"))
HUGE = "glibc.malloc.hugetlb=1"
WORKLOADS = {  # name: (result, the inputs differentiated)
    "subdivnet": ("y", ["e", "w0", "w1", "w2", "w3"]),
    "longformer": ("y", ["q", "k", "v"]),
    "softras": ("prob", ["faces"]),
    "gat": ("y", ["feat", "weight", "attn_l", "attn_r"]),
}


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def teml_time(name, data, env, tapes):
    result, wrt = WORKLOADS[name]
    cmd = [TEML, "bench", str(ROOT / "examples" / "freetensor" / f"{name}.py"), "--json", "--threads", "2",
           "--wrt", ",".join(wrt), "--of", result, "--tapes", tapes, "--runs", "3"]
    for f in sorted((data / name).glob("*.npy")):
        cmd += ["--input", f"{f.stem}={f}"]
    r = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout.strip().splitlines()[-1])
    return r["median_s"], r["peak_memory_mb"]


def torch_time(name, data, env):
    _, wrt = WORKLOADS[name]
    cmd = ["/usr/bin/python3", str(HERE / "torch_layers.py"), name, str(data / name), "--runs", "3",
           "--grad", ",".join(wrt)]
    r = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout.strip().splitlines()[-1])
    return r["median_s"], r["peak_memory_mb"]


VARIANTS = {
    "torch autograd": torch_time,
    "teml, tapes auto": lambda name, data, env: teml_time(name, data, env, "auto"),
    "teml, tapes all": lambda name, data, env: teml_time(name, data, env, "all"),
}


def main():
    data = pathlib.Path(option("--data", "/tmp/teml-freetensor-data"))
    turns = int(option("--turns", "2"))
    out = pathlib.Path(option("--out", str(ROOT / "bench" / "freetensor_grad.md")))
    names = [option("--only", "")] if "--only" in sys.argv else list(WORKLOADS)
    if not (data / "gat" / "weight.npy").exists():
        subprocess.run(["/usr/bin/python3", str(ROOT / "examples" / "freetensor" / "make_inputs.py"), str(data)], check=True)
    record = {"date": datetime.date.today().isoformat(), "cpu": cpu_name(), "turns": turns, "workloads": {}}
    for name in names:
        results = {}
        for label, tunables in (("installed", None), ("huge pages", HUGE)):
            env = dict(os.environ)
            env.pop("GLIBC_TUNABLES", None)
            if tunables:
                env["GLIBC_TUNABLES"] = tunables
            results[label] = {v: [] for v in VARIANTS}
            for _ in range(turns):
                for variant, run in VARIANTS.items():
                    results[label][variant].append(run(name, data, env))
            print(name, label, {v: round(statistics.median(t for t, _ in r), 4) for v, r in results[label].items()},
                  flush=True)
        record["workloads"][name] = results
    out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    out.write_text(table(record))
    print(out.read_text())


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def table(record):
    med = statistics.median
    s = lambda x: f"{x:.3f} s"
    lines = ["# Gradients of the free-form workloads against PyTorch autograd", "",
             f"Machine: {record['cpu']}, {record['date']}; 2 threads on both sides. Each time is one forward and "
             "one backward pass (teml: `teml bench PROGRAM --wrt ... --of ...`, the program and its gradient "
             "program, auto-scheduled; PyTorch: the layer written for autograd and `.sum().backward()`), a median "
             f"over 3 runs, then the median over {record['turns']} turns. Speed-up: PyTorch's faster malloc "
             "setting against teml with huge pages. Memory: the process's own resident growth while the passes "
             "ran, the larger of the two settings.", "",
             "| workload | PyTorch autograd | PyTorch, huge pages | teml tapes auto | teml tapes all | "
             "speed-up (auto) | auto / all | memory PyTorch | memory teml auto | memory teml all |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in record["workloads"].items():
        t = {label: {v: med(x for x, _ in runs) for v, runs in r[label].items()} for label in r}
        mem = {v: max(max(m for _, m in r[label][v]) for label in r) for v in VARIANTS}
        torch_best = min(t["installed"]["torch autograd"], t["huge pages"]["torch autograd"])
        auto, full = t["huge pages"]["teml, tapes auto"], t["huge pages"]["teml, tapes all"]
        lines.append(f"| {name} | {s(t['installed']['torch autograd'])} | {s(t['huge pages']['torch autograd'])} | "
                     f"{s(auto)} | {s(full)} | **{torch_best / auto:.2f}x** | {full / auto:.2f}x | "
                     f"{mem['torch autograd']:.0f} MB | {mem['teml, tapes auto']:.0f} MB | "
                     f"{mem['teml, tapes all']:.0f} MB |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
