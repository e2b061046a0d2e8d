#!/usr/bin/python3
"""This machine's limits, measured: the float32 FMA peak and the STREAM
triad bandwidth on N threads (limits.c, compiled with the flags teml uses).

    /usr/bin/python3 bench/machine/limits.py [--threads 2]

prints {"threads": 2, "fma_gflops": ..., "triad_gbs": ..., "cpu": ...,
"cores": ...}; bench/freetensor/run.py calls measure() at the start of a run,
with the size of GAT's gathered table and rows (gather_rows_per_s), and
bench/ops/run.py with those of SpMM, SDDMM and the embedding bag."""
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.machine()


def measure(threads=2, gathers=None):
    """gathers: (table bytes, row bytes) also measures the rate of rows gathered at random
    indices from a table that size (gather_rows_per_s)."""
    with tempfile.TemporaryDirectory() as tmp:
        exe = pathlib.Path(tmp) / "limits"
        subprocess.run(["cc", "-O3", "-march=native", "-fopenmp", str(HERE / "limits.c"), "-o", str(exe)], check=True)
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="true")
        args = [str(exe)] + ([str(int(g)) for g in gathers] if gathers else [])
        result = json.loads(subprocess.run(args, capture_output=True, text=True, env=env, check=True).stdout)
    result.update(cpu=cpu_model(), cores=os.cpu_count())
    return result


if __name__ == "__main__":
    threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 2
    print(json.dumps(measure(threads)))
