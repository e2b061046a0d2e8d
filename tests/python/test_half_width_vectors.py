"""Half-width vectors for loops that stream through memory (docs/lowering.md,
src/lowering/cpu/half_vectors): on an AVX-512 target a loop doing fewer than
two operations per vector it moves, over a tensor larger than the caches,
runs on 32-byte vectors where its accesses start off a 64-byte boundary:
always when the shapes say so (rows of 3000 floats, a neighbour x[j + 1]),
and in calls whose arrays start off a boundary otherwise (NumPy's start 16
bytes past one). Gathers, register blocks and cached data keep the full
width. A core that runs 64-byte vectors as two 32-byte halves (AMD Zen 4)
keeps the full width everywhere. Each test runs in a process of its own
with TEML_VECTOR_BYTES=64 and TEML_WIDE_VECTORS=whole (512-bit units)
unless it says otherwise, so that it checks the same code on any machine."""
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import teml

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEML = os.environ.get("TEML_BINARY", str(ROOT / "build" / "teml"))

PROGRAMS = '''
from __future__ import annotations

import teml


@teml.transform
def columns_weighted(A: teml.Var[(M, N), "float32"], x: teml.Var[(M,), "float32"],
                     y: teml.Var[(N,), "float32", "output"]):
    for j in range(N):
        for i in range(M):
            y[j] += A[i, j] * x[i]


@teml.transform
def scaled_rows(A: teml.Var[(M, N), "float32"], g: teml.Var[(N,), "float32"],
                y: teml.Var[(M, N), "float32", "output"]):
    for i in range(M):
        for j in range(N):
            y[i, j] = A[i, j] * g[j] + 1.0


@teml.transform
def stencil(x: teml.Var[(M, N), "float64"], y: teml.Var[(M, N - 2), "float64", "output"]):
    for i in range(M):
        for j in range(N - 2):
            y[i, j] = x[i, j] + x[i, j + 1] + x[i, j + 2]


@teml.transform
def bags(table: teml.Var[(M, 64), "float32"], index: teml.Var[(N, 8), "int64"],
         y: teml.Var[(N, 64), "float32", "output"]):
    for b in range(N):
        for l in range(8):
            for d in range(64):
                y[b, d] += table[index[b, l], d]
'''


def run_python(tmp_path, body):
    """Runs `body` after importing the programs, on the forced AVX-512 width."""
    (tmp_path / "programs.py").write_text(PROGRAMS)
    script = tmp_path / "check.py"
    script.write_text("import numpy as np\nimport programs\n" + textwrap.dedent(body))
    env = dict(os.environ, TEML_VECTOR_BYTES="64", TEML_WIDE_VECTORS="whole", XDG_CACHE_HOME=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(pathlib.Path(teml.__file__).resolve().parents[1])]))
    result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return result.stdout


def plans(tmp_path, entry, sizes, wide_vectors="whole"):
    """The vector plans of `entry`; wide_vectors: TEML_WIDE_VECTORS (None: the machine's own)."""
    (tmp_path / "programs.py").write_text(PROGRAMS)
    cmd = [TEML, "emit", str(tmp_path / "programs.py"), "--entry", entry, "--emit", "lowered"]
    for k, v in sizes.items():
        cmd += ["--set", f"{k}={v}"]
    env = dict(os.environ, TEML_VECTOR_BYTES="64", XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("TEML_WIDE_VECTORS", None)
    if wide_vectors:
        env["TEML_WIDE_VECTORS"] = wide_vectors
    result = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return [line.split(" plan(", 1)[1] for line in result.stdout.splitlines() if " plan(" in line]


def test_rows_off_a_boundary_stream_at_half_width(tmp_path):
    # rows of 3000 floats (12000 bytes): every other row starts 32 bytes past a boundary
    assert any("half width)" in p for p in plans(tmp_path, "columns_weighted", {"M": 800, "N": 3000}))
    # x[i, j + 1]: off a boundary wherever x starts
    assert any("half width)" in p for p in plans(tmp_path, "stencil", {"M": 300, "N": 1000}))


def test_rows_on_boundaries_wait_for_the_calls_addresses(tmp_path):
    (plan,) = plans(tmp_path, "scaled_rows", {"M": 512, "N": 1024})
    assert "half width unless aligned: A g y" in plan


def test_cores_that_halve_wide_vectors_keep_the_full_width(tmp_path):
    assert not any("half" in p for p in plans(tmp_path, "columns_weighted", {"M": 800, "N": 3000}, "halved"))
    assert not any("half" in p for p in plans(tmp_path, "scaled_rows", {"M": 512, "N": 1024}, "halved"))


def zen4():
    """An AMD core of family 19h with AVX-512, from /proc/cpuinfo."""
    info = pathlib.Path("/proc/cpuinfo").read_text().split("\n\n")[0]
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    return (fields.get("vendor_id") == "AuthenticAMD" and fields.get("cpu family") == "25"
            and "avx512f" in fields.get("flags", "").split())


@pytest.mark.skipif(not pathlib.Path("/proc/cpuinfo").exists(), reason="no /proc/cpuinfo to compare with")
def test_the_machine_says_whether_it_halves_wide_vectors(tmp_path):
    halves = not any("half width)" in p for p in plans(tmp_path, "columns_weighted", {"M": 800, "N": 3000}, None))
    assert halves == zen4()


def test_gathers_and_cached_data_keep_the_full_width(tmp_path):
    assert not any("half" in p for p in plans(tmp_path, "bags", {"M": 50000, "N": 512}))
    # 64 KiB: in the caches
    assert not any("half" in p for p in plans(tmp_path, "scaled_rows", {"M": 16, "N": 1024}))


@pytest.mark.parametrize("offset", [0, 16, 32])
def test_every_start_of_the_arrays_gives_the_same_result(tmp_path, offset):
    # whole numbers: every order of additions gives the same sums
    out = run_python(tmp_path, f'''
        def placed(a, offset={offset}):
            """A copy of `a` starting `offset` bytes past a 64-byte boundary."""
            buf = np.empty(a.nbytes + 128, np.uint8)
            start = (-buf.ctypes.data) % 64 + offset
            b = buf[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
            b[...] = a
            return b

        rng = np.random.default_rng(3)
        A = placed(rng.integers(-4, 5, (512, 1024)).astype(np.float32))
        g = placed(rng.integers(-4, 5, 1024).astype(np.float32))
        y = placed(np.full((512, 1024), 7.0, np.float32))
        programs.scaled_rows(A, g, out=y)
        assert np.array_equal(y, A * g + 1.0)

        A = placed(rng.integers(-4, 5, (300, 1003)).astype(np.float32))
        x = placed(rng.integers(-4, 5, 300).astype(np.float32))
        assert np.array_equal(programs.columns_weighted(A, x), A.T @ x)

        x = placed(rng.integers(-4, 5, (200, 1001)).astype(np.float64))
        assert np.array_equal(programs.stencil(x), x[:, :-2] + x[:, 1:-1] + x[:, 2:])
        print("ok")
    ''')
    assert out.strip() == "ok"
