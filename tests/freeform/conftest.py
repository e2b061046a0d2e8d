"""Helpers for the free-form tests that compare teml with NumPy: write the
inputs as .npy, run `teml run PROGRAM --verify` (compiled code checked
against the reference interpreter), read the outputs back."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

TEML = os.environ.get("TEML_BINARY", str(pathlib.Path(__file__).resolve().parents[2] / "build" / "teml"))
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "freetensor"


def vector_floats():
    """float32 lanes of the vectors teml generates here (src/target/target.cpp): 16 with
    AVX-512, else 8. The automatic schedule's choices follow them."""
    with open("/proc/cpuinfo") as f:
        flags = next((line for line in f if line.startswith("flags")), "").split()
    return 16 if "avx512f" in flags else 8


class Teml:
    def __init__(self, tmp_path):
        self.dir = tmp_path

    def run(self, program, inputs, outputs, sizes=None, extra=(), command="run"):
        """Runs `program` (a path, or source text) and returns the outputs by name."""
        result = self.attempt(program, inputs, outputs, sizes, extra, command)
        assert result.returncode == 0, result.stderr
        assert "(ok)" in result.stdout, result.stdout
        return {name: np.load(self.dir / f"out_{name}.npy") for name in outputs}

    def attempt(self, program, inputs, outputs, sizes=None, extra=(), command="run"):
        """Runs `program` and returns the finished process (exit code, stderr)."""
        if not isinstance(program, pathlib.Path):
            path = self.dir / "program.py"
            path.write_text(program)
            program = path
        cmd = [TEML, command, str(program), "--verify", "--cache-dir", str(self.dir / "cache"), *extra]
        for name, value in inputs.items():
            np.save(self.dir / f"in_{name}.npy", value)
            cmd += ["--input", f"{name}={self.dir / f'in_{name}.npy'}"]
        for name in outputs:
            cmd += ["--output", f"{name}={self.dir / f'out_{name}.npy'}"]  # a gradient's name is X.grad
        for name, value in (sizes or {}).items():
            cmd += ["--set", f"{name}={value}"]
        return subprocess.run(cmd, capture_output=True, text=True)


@pytest.fixture
def teml(tmp_path):
    return Teml(tmp_path)
