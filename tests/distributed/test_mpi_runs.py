"""Distributed runs (docs/distributed.md): every program below, launched by
mpirun with 1, 2, 3 and 4 ranks (oversubscribed on this machine), writes
the outputs one process writes: exactly for integers, to the last bits for
floats (the ranks compute each element as one process does). Under -v each
rank reports its iterations, and the bytes each exchange moved equal the
bytes predicted from the accesses and, for a vertical stencil, the closed
form (two rows per neighbour)."""
import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEML = os.environ.get("TEML_BINARY", str(ROOT / "build" / "teml"))
EXAMPLES = ROOT / "examples" / "distributed"
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_hwloc_base_binding_policy="none",
           OMP_NUM_THREADS="1")
rng = np.random.default_rng(7)


def csr_inputs(n, m, c):
    counts = rng.multinomial(m, np.ones(n) / n)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return {"ptr": ptr, "col": rng.integers(0, n, m).astype(np.int32),
            "x": rng.integers(-50, 50, (n, c)).astype(np.int64), "total": np.arange(c, dtype=np.int64) * 100}


# name: (program, sizes, inputs, outputs); sizes that the ranks do not divide.
PROGRAMS = {
    "interp": ("interp.teml", {"E": 37, "N": 7}, lambda: {"A": rng.random((7, 7)), "u": rng.random((37, 7, 7, 7))}, ["v"]),
    "helm": ("helm.teml", {"E": 13, "N": 5},
             lambda: {"S": rng.random((5, 5)), "D": rng.random((5, 5, 5)) + 1, "u": rng.random((13, 5, 5, 5))}, ["v"]),
    "blur": ("blur.teml", {"N": 23}, lambda: {"inp": rng.random((23, 23))}, ["out", "tmp"]),
    "mttkrp": ("mttkrp.teml", {"I": 11, "J": 9, "K": 5, "L": 6},
               lambda: {"B": rng.random((11, 5, 6)), "C": rng.random((5, 9)), "D": rng.random((6, 9))}, ["A"]),
    "mm": ("mm.teml", {"N": 19}, lambda: {"A": rng.random((19, 19)), "B": rng.random((19, 19))}, ["C"]),
    "gather": ("gather.py", {"F": 17, "C": 5},
               lambda: {"x": rng.integers(-9, 9, (17, 5)).astype(np.int64),
                        "adj": rng.integers(0, 17, (17, 3)).astype(np.int32)}, ["y"]),
    "csr": ("csr.py", {"N": 15, "M": 60, "C": 4}, lambda: csr_inputs(15, 60, 4), ["y", "total"]),
}


def run(tmp_path, program, sizes, inputs, outputs, ranks=None, tag="", extra=(), command="run"):
    args = [TEML, command, str(program), "--cache-dir", str(tmp_path / "cache")]
    for k, v in sizes.items():
        args += ["--set", f"{k}={v}"]
    for name, value in inputs.items():
        np.save(tmp_path / f"in_{name}.npy", value)
        args += ["--input", f"{name}={tmp_path / f'in_{name}.npy'}"]
    for name in outputs:
        args += ["--output", f"{name}={tmp_path / f'out{tag}_{name}.npy'}"]
    args += list(extra)
    if ranks:
        args = ["mpirun", "-np", str(ranks)] + args
    result = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=300)
    assert result.returncode == 0, result.stderr
    return {name: np.load(tmp_path / f"out{tag}_{name}.npy") for name in outputs}, result


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_rank_count_writes_what_one_process_writes(tmp_path, name):
    program, sizes, make_inputs, outputs = PROGRAMS[name]
    inputs = make_inputs()
    alone, _ = run(tmp_path, EXAMPLES / program, sizes, inputs, outputs, tag="alone")
    for ranks in (1, 2, 3, 4):
        # 2 ranks of 2 threads too: a lost or doubled update inside a rank changes the integer results.
        threads = ["--threads", "2"] if ranks == 2 else []
        together, result = run(tmp_path, EXAMPLES / program, sizes, inputs, outputs, ranks, tag=str(ranks),
                               extra=["-v", *threads])
        for out in outputs:
            if alone[out].dtype.kind == "f":
                np.testing.assert_allclose(together[out], alone[out], rtol=1e-12, atol=0, err_msg=f"{out}, {ranks} ranks")
            else:
                np.testing.assert_array_equal(together[out], alone[out], err_msg=f"{out}, {ranks} ranks")
        if ranks > 1:
            check_report(result.stderr, ranks)


def check_report(stderr, ranks):
    """Each rank reports its block of every distributed loop, blocks that cover
    the loop once, and exchanges that moved what was predicted."""
    blocks = {}
    for rank, k, lo, hi, begin, end in re.findall(
            r"rank (\d+): distributed loop (\d+) '\S+' iterations \[(-?\d+), (-?\d+)\) of \[(-?\d+), (-?\d+)\)", stderr):
        blocks.setdefault((k, int(begin), int(end)), []).append((int(rank), int(lo), int(hi)))
    assert blocks, stderr
    for (var, begin, end), parts in blocks.items():
        parts.sort()
        assert [r for r, _, _ in parts] == list(range(ranks)), (var, parts)
        assert parts[0][1] == begin and parts[-1][2] == end
        assert all(parts[k][2] == parts[k + 1][1] for k in range(ranks - 1)), parts
    for sent, received, moved_sent, moved_received in re.findall(
            r"predicted (\d+) B sent, (\d+) B received; moved (\d+) B sent, (\d+) B received", stderr):
        assert (sent, received) == (moved_sent, moved_received), stderr




@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_a_vertical_stencil_moves_two_rows_per_neighbour(tmp_path, ranks):
    path = EXAMPLES / "stencil.py"
    n, w = 40, 9
    a = rng.integers(-100, 100, (n + 2, w)).astype(np.int64)
    alone, _ = run(tmp_path, path, {"N": n, "W": w}, {"a": a}, ["out"], tag="alone")
    together, result = run(tmp_path, path, {"N": n, "W": w}, {"a": a}, ["out"], ranks, tag="mpi", extra=["-v"])
    np.testing.assert_array_equal(together["out"], alone["out"])
    halos = re.findall(r"rank (\d+): halo of 'tmp': predicted (\d+) B sent, (\d+) B received; "
                       r"moved (\d+) B sent, (\d+) B received", result.stderr)
    assert len(halos) == ranks, result.stderr
    row = w * 8
    for rank, sent, received, moved_sent, moved_received in halos:
        r = int(rank)
        # Each rank but the last receives two rows of tmp from the next; each but the first sends two.
        assert int(received) == int(moved_received) == (2 * row if r < ranks - 1 else 0)
        assert int(sent) == int(moved_sent) == (2 * row if r > 0 else 0)


def test_four_ranks_each_keep_under_a_third_of_interp(tmp_path):
    program, sizes, make_inputs, outputs = PROGRAMS["interp"]
    sizes = {"E": 400, "N": 7}
    inputs = {"A": rng.random((7, 7)), "u": rng.random((400, 7, 7, 7))}
    _, result = run(tmp_path, EXAMPLES / program, sizes, inputs, outputs, 4, extra=["-v"])
    kept = re.findall(r"rank \d+: keeps (\d+) B of the program's tensors \((\d+) B whole\)", result.stderr)
    assert len(kept) == 4
    for part, whole in kept:
        assert int(part) < int(whole) / 3, result.stderr


def test_a_carried_dependence_is_refused_under_mpirun_too(tmp_path):
    path = tmp_path / "carried.py"
    path.write_text('''import teml
@teml.transform
def f(a: teml.Var[(8,), "int64", "inout"]):
    #! label: Li
    for i in range(1, 8):
        a[i] = a[i - 1] + 1
@teml.schedule(f)
def g(s):
    s.distribute("Li")
''')
    result = subprocess.run(["mpirun", "-np", "2", TEML, "run", str(path), "--cache-dir", str(tmp_path / "c")],
                            capture_output=True, text=True, env=ENV, timeout=120)
    assert result.returncode == 1, result.stderr
    assert "distribute" in result.stderr and "'a'" in result.stderr


def test_bench_under_mpirun_reports_the_ranks(tmp_path):
    program, sizes, make_inputs, _ = PROGRAMS["mm"]
    args = ["mpirun", "-np", "2", TEML, "bench", str(EXAMPLES / program), "--set", "N=64", "--runs", "3",
            "--cache-dir", str(tmp_path / "c")]
    result = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("runs on 2 ranks of 1 thread") == 1, result.stdout


def test_without_outputs_rank_0_prints_the_sums_of_the_whole_tensors(tmp_path):
    program, sizes, make_inputs, _ = PROGRAMS["gather"]
    args = [TEML, "run", str(EXAMPLES / program), "--set", "F=17", "--set", "C=5", "--random", "3", "--verify",
            "--cache-dir", str(tmp_path / "c")]
    alone = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=120)
    together = subprocess.run(["mpirun", "-np", "3"] + args, capture_output=True, text=True, env=ENV, timeout=120)
    assert alone.returncode == 0 and together.returncode == 0, together.stderr
    assert together.stdout == alone.stdout
    assert "(ok)" in together.stdout


AUTO = '''import teml
@teml.transform
def f(x: teml.Var[(N, 8), "int64"], y: teml.Var[(N, 8), "int64", "output"]):
    for i in range(N):
        for j in range(8):
            y[i, j] = x[i, j] * x[i, j] + i * j
'''


def test_the_automatic_schedule_distributes_under_mpirun_and_says_so(tmp_path):
    path = tmp_path / "auto.py"
    path.write_text(AUTO)
    x = rng.integers(-100, 100, (4000, 8)).astype(np.int64)
    alone, _ = run(tmp_path, path, {"N": 4000}, {"x": x}, ["y"], tag="alone")
    together, result = run(tmp_path, path, {"N": 4000}, {"x": x}, ["y"], 2, tag="mpi", extra=["-v"])
    np.testing.assert_array_equal(together["y"], alone["y"])
    assert "teml: distribute      predicted exchanges 0 B per rank" in result.stderr, result.stderr
    check_report(result.stderr, 2)
    # The schedule -v prints, pasted into the program, gives the same plan and results.
    printed = result.stderr[result.stderr.index("@teml.schedule(f)"):]
    steps = [line for line in printed.splitlines()[2:] if line.startswith("    s.")]
    assert any(step.startswith('    s.distribute("') for step in steps), printed
    pasted = tmp_path / "pasted.py"
    pasted.write_text(AUTO + "@teml.schedule(f)\ndef schedule(s):\n" + "\n".join(steps) + "\n")
    again, result = run(tmp_path, pasted, {"N": 4000}, {"x": x}, ["y"], 2, tag="pasted", extra=["-v", "--no-auto"])
    np.testing.assert_array_equal(again["y"], alone["y"])
    check_report(result.stderr, 2)


def test_python_under_mpirun_gives_every_rank_the_complete_outputs(tmp_path):
    script = tmp_path / "script.py"
    script.write_text('''import numpy as np
import teml

@teml.transform
def double(x: teml.Var[(16,), "int64"], y: teml.Var[(16,), "int64", "output"]):
    for i in range(16):
        y[i] = x[i] * 2

y = double(np.arange(16, dtype=np.int64))
import sys
sys.stdout.write(f"sum {int(y.sum())} len {len(y)}\\n")
sys.stdout.flush()
''')
    env = dict(ENV, PYTHONPATH=str(ROOT / "build" / "python"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    result = subprocess.run(["mpirun", "-np", "2", "/usr/bin/python3", str(script)], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("240 len 16") == 2, result.stdout  # one line per rank (they may interleave)


def test_fewer_iterations_than_ranks_leave_some_ranks_idle(tmp_path):
    program, _, _, outputs = PROGRAMS["mm"]
    a, b = rng.random((3, 3)), rng.random((3, 3))
    alone, _ = run(tmp_path, EXAMPLES / program, {"N": 3}, {"A": a, "B": b}, outputs, tag="alone")
    together, result = run(tmp_path, EXAMPLES / program, {"N": 3}, {"A": a, "B": b}, outputs, 4, tag="mpi",
                           extra=["-v"])
    np.testing.assert_allclose(together["C"], alone["C"], rtol=1e-12, atol=0)
    assert re.search(r"rank \d+: distributed loop 1 'i\S*' iterations \[(\d+), \1\)", result.stderr), result.stderr
    check_report(result.stderr, 4)


# docs/testing.md, second campaign, bug 4: an output the nest reads but never
# writes. Rank 0 wrote the whole of it from its buffer, which keeps only the
# elements its iterations read: the rest was memory past the buffer's end.
READ_ONLY_OUTPUT = '''import teml
N = 16

@teml.transform
def f(x: teml.Var[(N,), 'float64'], y: teml.Var[(N,), 'float64', 'output'],
      Y: teml.Var[(N, 1), 'float64', 'output'], z: teml.Var[(N, 3), 'float64', 'inout']):
    for i1 in range(N):
        m2 = teml.full((), 100.0, 'float64')
        m2[()] = max(m2[()], abs(y[i1] * x[i1]) + z[i1, 1])
        Y[i1, 0] -= 1.0
'''


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_an_output_read_but_never_written_keeps_its_starting_values(tmp_path, ranks):
    path = tmp_path / "read_only.py"
    path.write_text(READ_ONLY_OUTPUT)
    inputs = {"x": np.arange(16.0) + 1, "z": np.arange(48.0).reshape(16, 3) + 0.5}
    alone, _ = run(tmp_path, path, {}, inputs, ["y", "Y", "z"], tag="alone")
    np.testing.assert_array_equal(alone["y"], np.zeros(16))
    np.testing.assert_array_equal(alone["z"], inputs["z"])
    together, _ = run(tmp_path, path, {}, inputs, ["y", "Y", "z"], ranks, tag="mpi")
    for out in ("y", "Y", "z"):
        np.testing.assert_array_equal(together[out], alone[out], err_msg=f"{out}, {ranks} ranks")
    # Without --output, rank 0 gathers the whole tensors (random starting values here).
    args = [TEML, "run", str(path), "--random", "5", "--cache-dir", str(tmp_path / "cache")]
    alone = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=120)
    together = subprocess.run(["mpirun", "-np", str(ranks)] + args, capture_output=True, text=True, env=ENV,
                              timeout=120)
    assert alone.returncode == 0 and together.returncode == 0, together.stderr
    assert together.stdout == alone.stdout
