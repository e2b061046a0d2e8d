#!/usr/bin/python3
"""Layers as a PyTorch user writes them with teml.libop, on one thread:
forward and backward through `teml.torch_function` against PyTorch eager,
and libop called on NumPy arrays against NumPy. Each side runs in turns
(A B A B), the median of each turn's calls, the median over turns; the
whole run twice, with malloc as installed and with huge pages
(GLIBC_TUNABLES=glibc.malloc.hugetlb=1, both sides), each side keeping its
faster setting. Writes bench/python_layers.md.

    /usr/bin/python3 bench/python_layers.py [--turns N] [--out FILE]"""
from __future__ import annotations

import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import teml

ROOT = pathlib.Path(__file__).resolve().parents[1]
TURNS = int(sys.argv[sys.argv.index("--turns") + 1]) if "--turns" in sys.argv else 5
CALLS = 10


N, K, M = 512, 256, 384
S, D = 256, 64


@teml.transform
def mlp(x: teml.Var[(N, K), "float32"], w: teml.Var[(K, M), "float32"], b: teml.Var[(M,), "float32"]):
    return teml.libop.relu(teml.libop.matmul(x, w) + b)


@teml.transform
def attention(q: teml.Var[(S, D), "float32"], k: teml.Var[(S, D), "float32"], v: teml.Var[(S, D), "float32"]):
    p = teml.libop.softmax(teml.libop.matmul(q, teml.libop.transpose(k)), axis=-1)
    return teml.libop.matmul(p, v)


def worker():
    """One setting's times, as JSON on stdout: {case: {side: [turn medians]}}."""
    import torch

    torch.set_num_threads(1)
    mlp_t, attention_t = teml.torch_function(mlp), teml.torch_function(attention)
    x = torch.randn(N, K, requires_grad=True)
    w, b = torch.randn(K, M, requires_grad=True), torch.randn(M, requires_grad=True)
    q, k, v = (torch.randn(S, D, requires_grad=True) for _ in range(3))
    rng = np.random.default_rng(0)
    a512, b512 = rng.standard_normal((512, 512), dtype=np.float32), rng.standard_normal((512, 512), dtype=np.float32)
    rows = rng.standard_normal((2048, 1000), dtype=np.float32)

    def softmax_np():
        e = np.exp(rows - rows.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    cases = {
        "MLP layer relu(x w + b), 512 x 256 x 384, forward and backward": {
            "teml": lambda: mlp_t(x, w, b).sum().backward(),
            "PyTorch": lambda: torch.relu(x @ w + b).sum().backward()},
        "attention softmax(q k^T) v, 256 x 64, forward and backward": {
            "teml": lambda: attention_t(q, k, v).sum().backward(),
            "PyTorch": lambda: (torch.softmax(q @ k.T, -1) @ v).sum().backward()},
        "teml.libop.matmul on NumPy arrays, 512^3": {
            "teml": lambda: teml.libop.matmul(a512, b512), "NumPy": lambda: a512 @ b512},
        "teml.libop.softmax on NumPy arrays, 2048 x 1000": {
            "teml": lambda: teml.libop.softmax(rows), "NumPy": softmax_np},
    }
    times = {}
    for case, sides in cases.items():
        for f in sides.values():
            f()  # compiles, warms
        times[case] = {side: [] for side in sides}
        for _ in range(TURNS):
            for side, f in sides.items():
                calls = []
                for _ in range(CALLS):
                    t = time.perf_counter()
                    f()
                    calls.append(time.perf_counter() - t)
                times[case][side].append(statistics.median(calls))
    print(json.dumps(times))


def run(hugepages):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if hugepages:
        env["GLIBC_TUNABLES"] = "glibc.malloc.hugetlb=1"
    out = subprocess.run([sys.executable, __file__, "--worker", "--turns", str(TURNS)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    path = pathlib.Path(sys.argv[sys.argv.index("--out") + 1]) if "--out" in sys.argv else ROOT / "bench" / "python_layers.md"
    settings = {"as installed": run(False), "huge pages": run(True)}
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    flags = next((line for line in open("/proc/cpuinfo") if line.startswith("flags")), "")
    lines = ["# Layers as users write them (teml.libop), one thread", "",
             f"Machine: {cpu}, {os.cpu_count()} cores, {'AVX-512' if 'avx512f' in flags else 'AVX2'}, "
             f"{platform.python_version()}; {time.strftime('%Y-%m-%d')}; load {os.getloadavg()[0]:.1f} at the end. "
             f"Printed by bench/python_layers.py: {TURNS} turns A B A B of {CALLS} calls each, the median of each "
             "turn, the median over turns; each side's faster setting of malloc as installed and huge pages "
             "(marked †). Ratio: the other side's time / teml's (> 1: teml faster). PyTorch differentiates what "
             "requires grad (every input here); the libop rows call teml.libop on NumPy arrays.", "",
             "| case | teml | other | other's time | ratio |", "|---|---|---|---|---|"]
    for case in settings["as installed"]:
        best = {}
        for setting, times in settings.items():
            for side, turns in times[case].items():
                t = statistics.median(turns)
                if side not in best or t < best[side][0]:
                    best[side] = (t, setting == "huge pages")
        other = next(s for s in best if s != "teml")
        fmt = lambda side: f"{best[side][0] * 1e3:.2f} ms" + (" †" if best[side][1] else "")
        lines.append(f"| {case} | {fmt('teml')} | {other} | {fmt(other)} | {best[other][0] / best['teml'][0]:.2f} |")
    path.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    worker() if "--worker" in sys.argv else main()
