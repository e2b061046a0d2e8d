#!/usr/bin/python3
"""Times the forward and backward passes of the four free-form workloads
(`teml bench --wrt ... --of ...`: the program and its gradient program,
docs/autodiff.md) against PyTorch autograd through the PyTorch layers
(torch_layers.py --grad), same inputs, 2 threads, in turns: PyTorch, teml
with --tapes auto, all and none, and again; under glibc's default
malloc and with huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), both
sides alike. Peak memory is each process's own growth while the layers ran.

    /usr/bin/python3 bench/freetensor/grad.py [--data DIR] [--turns N] [--out FILE.md] [--only NAME]
                                              [--programs as_written]

--programs as_written times the programs as FreeTensor's users write them
(examples/freetensor/as_written) instead of those written for speed.

Writes a markdown table (default bench/freetensor_grad.md), the raw times
next to it (.json) and a plot of the speed-ups (.png)."""
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


PROGRAMS = ROOT / "examples" / "freetensor" / (sys.argv[sys.argv.index("--programs") + 1] if "--programs" in sys.argv else "")


def teml_time(name, data, env, tapes):
    result, wrt = WORKLOADS[name]
    cmd = [TEML, "bench", str(PROGRAMS / f"{name}.py"), "--json", "--threads", "2",
           "--wrt", ",".join(wrt), "--of", result, "--tapes", tapes, "--runs", "3"]
    for f in sorted((data / name).glob("*.npy")):
        cmd += ["--input", f"{f.stem}={f}"]
    r = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout.strip().splitlines()[-1])
    return r["median_s"], r["peak_rss_mb"]


def torch_time(name, data, env):
    _, wrt = WORKLOADS[name]
    runs = "1" if name == "longformer" else "3"  # about a minute per pass there
    cmd = ["/usr/bin/python3", str(HERE / "torch_layers.py"), name, str(data / name), "--runs", runs,
           "--grad", ",".join(wrt)]
    r = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout.strip().splitlines()[-1])
    return r["median_s"], r["peak_rss_mb"]


def gradient_differences(name, data, scratch):
    """The largest difference of each --tapes setting's gradients from PyTorch autograd's, relative to the
    largest PyTorch gradient of that input, at full size: the gradients are checked where they are timed."""
    import numpy as np
    result, wrt = WORKLOADS[name]
    scratch.mkdir(parents=True, exist_ok=True)
    subprocess.run(["/usr/bin/python3", str(HERE / "torch_layers.py"), name, str(data / name), "--runs", "1",
                    "--grad", ",".join(wrt), "--grad-out", str(scratch)], capture_output=True, check=True)
    want = {x: np.load(scratch / f"{x}.grad.npy") for x in wrt}
    out = {}
    for tapes in ("auto", "all", "none"):
        cmd = [TEML, "grad", str(PROGRAMS / f"{name}.py"), "--threads", "2", "--wrt", ",".join(wrt), "--of", result,
               "--tapes", tapes]
        for f in sorted((data / name).glob("*.npy")):
            cmd += ["--input", f"{f.stem}={f}"]
        for x in wrt:
            cmd += ["--output", f"{x}.grad={scratch / f'{x}.teml.npy'}"]
        subprocess.run(cmd, capture_output=True, check=True)
        out[tapes] = max(float(np.abs(np.load(scratch / f"{x}.teml.npy") - want[x]).max() / max(np.abs(want[x]).max(), 1e-30))
                         for x in wrt)
    return out


VARIANTS = {
    "torch autograd": torch_time,
    "teml, tapes auto": lambda name, data, env: teml_time(name, data, env, "auto"),
    "teml, tapes all": lambda name, data, env: teml_time(name, data, env, "all"),
    "teml, tapes none": lambda name, data, env: teml_time(name, data, env, "none"),
}


def main():
    data = pathlib.Path(option("--data", "/tmp/teml-freetensor-data"))
    turns = int(option("--turns", "2"))
    out = pathlib.Path(option("--out", str(ROOT / "bench" / "freetensor_grad.md")))
    names = [option("--only", "")] if "--only" in sys.argv else list(WORKLOADS)
    if not (data / "gat" / "weight.npy").exists():
        subprocess.run(["/usr/bin/python3", str(ROOT / "examples" / "freetensor" / "make_inputs.py"), str(data)], check=True)
    record = {"date": datetime.date.today().isoformat(), "cpu": cpu_name(), "turns": turns,
              "programs": str(PROGRAMS.relative_to(ROOT)), "workloads": {}}
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
        record.setdefault("gradient_differences", {})[name] = gradient_differences(name, data, pathlib.Path("/tmp/teml-grad-check") / name)
        print(name, "gradients against PyTorch autograd:", record["gradient_differences"][name], flush=True)
    out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    out.write_text(table(record))
    plot(record, out.with_suffix(".png"))
    print(out.read_text())


def speedups(r):
    """PyTorch's faster malloc setting over teml's huge-page times, for each tapes setting."""
    med = statistics.median
    t = {label: {v: med(x for x, _ in runs) for v, runs in r[label].items()} for label in r}
    torch_best = min(t["installed"]["torch autograd"], t["huge pages"]["torch autograd"])
    return {v: torch_best / t["huge pages"][v] for v in VARIANTS if v != "torch autograd"}


def plot(record, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(record["workloads"])
    values = {name: speedups(record["workloads"][name]) for name in names}
    fig, ax = plt.subplots(figsize=(7, 3.5))
    width = 0.38
    width = 0.26
    for k, variant in enumerate(["teml, tapes auto", "teml, tapes all", "teml, tapes none"]):
        ax.bar([i + (k - 1) * width for i in range(len(names))], [values[n][variant] for n in names], width,
               label=variant)
    ax.axhline(5, color="grey", linestyle="--", linewidth=1, label="5x")
    ax.set_xticks(range(len(names)), names)
    ax.set_yscale("log")
    ax.set_ylabel("speed-up over PyTorch autograd")
    ax.set_title(f"forward + backward, 2 threads, {record['programs']} ({record['cpu']})", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def table(record):
    med = statistics.median
    s = lambda x: f"{x:.3f} s"
    lines = ["# Gradients of the free-form workloads against PyTorch autograd", "",
             f"Programs: `{record['programs']}`. "
             f"Machine: {record['cpu']}, {record['date']}; 2 threads on both sides. Each time is one forward and "
             "one backward pass (teml: `teml bench PROGRAM --wrt ... --of ...`, the program and its gradient "
             "program, auto-scheduled; PyTorch: the layer written for autograd and `.sum().backward()`), a median "
             f"over 3 runs after a warm-up (PyTorch's Longformer: 1 run), then the median over {record['turns']} turn(s). Speed-up: PyTorch's faster malloc "
             "setting against teml with huge pages. Memory: the process's own high-water mark of resident memory "
             "(getrusage RUSAGE_SELF, not a parent's: inputs, outputs, gradients, tapes and intermediates, and for "
             "PyTorch its library), the larger of the two settings.", "",
             "| workload | PyTorch autograd | PyTorch, huge pages | teml tapes auto | teml tapes all | teml tapes none | "
             "speed-up (auto) | all / auto | none / auto | memory PyTorch | memory teml auto | memory teml all | memory teml none |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in record["workloads"].items():
        t = {label: {v: med(x for x, _ in runs) for v, runs in r[label].items()} for label in r}
        mem = {v: max(max(m for _, m in r[label][v]) for label in r) for v in VARIANTS}
        torch_best = min(t["installed"]["torch autograd"], t["huge pages"]["torch autograd"])
        auto, full, none = (t["huge pages"][f"teml, tapes {x}"] for x in ("auto", "all", "none"))
        lines.append(f"| {name} | {s(t['installed']['torch autograd'])} | {s(t['huge pages']['torch autograd'])} | "
                     f"{s(auto)} | {s(full)} | {s(none)} | **{torch_best / auto:.2f}x** | {full / auto:.2f}x | "
                     f"{none / auto:.2f}x | {mem['torch autograd']:.0f} MB | {mem['teml, tapes auto']:.0f} MB | "
                     f"{mem['teml, tapes all']:.0f} MB | {mem['teml, tapes none']:.0f} MB |")
    lines += ["", "Gradients at these sizes against PyTorch autograd's (the largest difference over the inputs, "
              "relative to the largest PyTorch gradient of that input; float32 on both sides):", "",
              "| workload | tapes auto | tapes all | tapes none |", "|---|---|---|---|"]
    for name, d in record.get("gradient_differences", {}).items():
        lines.append(f"| {name} | {d['auto']:.1e} | {d['all']:.1e} | {d['none']:.1e} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
