"""OpenMP's waiting threads spin briefly (GOMP_SPINCOUNT=3000) unless the
user chose how they wait: a kernel of a millisecond on two threads took 8 ms
beside another process with libgomp's default (docs/python.md, Threads)."""
import os
import subprocess
import sys

PROGRAM = r'''
from __future__ import annotations
import ctypes, numpy as np, teml

@teml.transform
def double(x: teml.Var[(N,), "float32"], y: teml.Var[(N,), "float32", "output"]):
    for i in range(N):
        y[i] = x[i] * 2.0

libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
before = libc.getenv(b"GOMP_SPINCOUNT")
assert (double(np.ones(5, np.float32)) == 2).all()
print(before, libc.getenv(b"GOMP_SPINCOUNT"))
'''


def run(tmp_path, **env):
    environment = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    environment.update(env)
    script = tmp_path / "double.py"
    script.write_text(PROGRAM)
    out = subprocess.run([sys.executable, str(script)], env=environment, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_importing_teml_sets_a_short_spin(tmp_path):
    assert run(tmp_path) == ["b'3000'", "b'3000'"]


def test_a_users_spin_count_is_kept(tmp_path):
    assert run(tmp_path, GOMP_SPINCOUNT="123") == ["b'123'", "b'123'"]


def test_a_users_wait_policy_is_kept(tmp_path):
    assert run(tmp_path, OMP_WAIT_POLICY="passive") == ["None", "None"]
