#!/usr/bin/python3
"""Times the four free-form workloads (examples/freetensor/, hand schedules)
against their PyTorch versions (torch_layers.py) on the same inputs, in
turns: teml with index checks, teml without (--unchecked-indices), PyTorch,
and again. Each turn runs under glibc's default malloc and under huge pages
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


def teml_seconds(name, data, env, unchecked):
    cmd = [TEML, "bench", str(ROOT / "examples" / "freetensor" / f"{name}.py"), "--json", "--threads", "2"]
    for f in sorted((data / name).glob("*.npy")):
        cmd += ["--input", f"{f.stem}={f}"]
    if unchecked:
        cmd.append("--unchecked-indices")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_s"]


def torch_seconds(name, data, env):
    cmd = ["/usr/bin/python3", str(ROOT / "bench" / "freetensor" / "torch_layers.py"), name, str(data / name), "--runs", "5"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_s"]


def main():
    data = pathlib.Path(option("--data", "/tmp/teml-freetensor-data"))
    turns = int(option("--turns", "3"))
    out = pathlib.Path(option("--out", str(ROOT / "bench" / "freetensor.md")))
    names = [option("--only", "")] if "--only" in sys.argv else list(OUTPUTS)
    if not (data / "gat" / "ptr.npy").exists():
        subprocess.run(["/usr/bin/python3", str(ROOT / "examples" / "freetensor" / "make_inputs.py"), str(data)], check=True)
    rows = []
    for name in names:
        times = {}
        for label, tunables in (("installed", None), ("huge pages", HUGE)):
            env = dict(os.environ)
            env.pop("GLIBC_TUNABLES", None)
            if tunables:
                env["GLIBC_TUNABLES"] = tunables
            checked, unchecked, torch = [], [], []
            for _ in range(turns):  # in turns: A B C A B C ...
                checked.append(teml_seconds(name, data, env, False))
                unchecked.append(teml_seconds(name, data, env, True))
                torch.append(torch_seconds(name, data, env))
            times[label] = (checked, unchecked, torch)
            print(name, label, [round(statistics.median(t), 5) for t in (checked, unchecked, torch)], flush=True)
        rows.append((name, times))
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
    lines = [f"# Free-form workloads against PyTorch", "",
             f"Machine: {cpu}, 2 threads on both sides; {turns} turns of (teml checked, teml unchecked, PyTorch), "
             "medians of each program's own median. Ratios are PyTorch / teml in the same turns; the PyTorch "
             "column compared is the faster of its two malloc settings.", "",
             "| workload | teml (index checks) | teml (--unchecked-indices) | cost of the checks | PyTorch as installed | PyTorch, huge pages | teml speed-up |",
             "|---|---|---|---|---|---|---|"]
    for name, times in rows:
        best = min(("installed", "huge pages"), key=lambda k: statistics.median(times[k][2]))
        checked, unchecked, torch = times[best]
        speedup = statistics.median(t / c for t, c in zip(torch, checked))
        cost = statistics.median(c / u for c, u in zip(checked, unchecked)) - 1
        ms = lambda xs: f"{statistics.median(xs) * 1e3:.2f} ms"
        lines.append(f"| {name} | {ms(checked)} | {ms(unchecked)} | {cost * 100:+.1f}% | {ms(times['installed'][2])} | "
                     f"{ms(times['huge pages'][2])} | {speedup:.1f}x |")
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main()
