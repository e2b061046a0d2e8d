#!/usr/bin/python3
"""What calling teml from Python costs: the time of a call of a tiny kernel
(warm cache, one thread), and the four workloads timed from Python (outputs
reused with out=, and fresh ones per call, which pay the first touch of
their pages) against `teml bench` on the same inputs, in turns.

    /usr/bin/python3 bench/python_calls.py [--data DIR]   (DIR as bench/freetensor/run.py's)"""
from __future__ import annotations

import importlib.util
import json
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

import teml

ROOT = pathlib.Path(__file__).resolve().parents[1]


@teml.transform
def axpy(a: teml.Var[(4,), "float64", "inout"], b: teml.Var[(4,), "float64"]):
    for i in range(4):
        a[i] += 2 * b[i]


def call_overhead():
    a, b = np.zeros(4), np.ones(4)
    axpy.threads = 1
    axpy(a, b)
    per_call = []
    for _ in range(5):
        n = 20000
        t = time.perf_counter()
        for _ in range(n):
            axpy(a, b)
        per_call.append((time.perf_counter() - t) / n)
    return statistics.median(per_call)


def workload(name, entry, data):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "freetensor" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    f = getattr(module, entry)
    f.threads = 2
    # teml.array: huge pages, as the teml command keeps its tensors
    inputs = {p.stem: teml.array(np.load(p)) for p in sorted((data / name).glob("*.npy"))}
    result = f(**inputs)  # compile, warm up
    python, fresh, cli = [], [], []
    for _ in range(3):  # in turns
        for reuse, into in ((True, python), (False, fresh)):
            times = []
            for _ in range(5):
                t = time.perf_counter()
                f(**inputs, out=result) if reuse else f(**inputs)
                times.append(time.perf_counter() - t)
            into.append(statistics.median(times))
        cmd = [str(ROOT / "build" / "teml"), "bench", str(ROOT / "examples" / "freetensor" / f"{name}.py"), "--json",
               "--threads", "2", "--runs", "5"]
        for p in sorted((data / name).glob("*.npy")):
            cmd += ["--input", f"{p.stem}={p}"]
        cli.append(json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["median_s"])
    return statistics.median(python), statistics.median(fresh), statistics.median(cli)


def main():
    data = pathlib.Path(sys.argv[sys.argv.index("--data") + 1] if "--data" in sys.argv else "/tmp/teml-freetensor-data")
    print(f"call of a tiny kernel from Python (warm): {call_overhead() * 1e6:.1f} us")
    print("| workload | from Python (out=) | from Python (fresh outputs) | teml bench | ratio (out=) |\n|---|---|---|---|---|")
    for name, entry in (("subdivnet", "subdivnet_conv"), ("longformer", "longformer"), ("softras", "soft_rasterize"),
                        ("gat", "gat_layer")):
        python, fresh, cli = workload(name, entry, data)
        print(f"| {name} | {python * 1e3:.2f} ms | {fresh * 1e3:.2f} ms | {cli * 1e3:.2f} ms | {python / cli:.2f} |")


if __name__ == "__main__":
    main()
