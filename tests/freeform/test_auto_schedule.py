"""--auto: an entry with no schedule gets FreeTensor's automatic schedule
(docs/auto-schedule.md). Every step goes through the same legality checks
as a user's, -v prints the steps as a schedule to paste into the program,
and the pasted schedule gives the same program."""
import re
import subprocess

import numpy as np

from conftest import TEML

PROGRAM = '''import teml


@teml.transform
def f(x: teml.Var[(64, 48), "int64"], y: teml.Var[(64,), "int64", "output"],
      prefix: teml.Var[(48,), "int64", "output"]):
    #! label: Li
    for i in range(64):
        #! label: Lj
        for j in range(48):
            y[i] += x[i, j] * (j + 1)
    #! label: Lp
    for j in range(48):
        prefix[j] = x[0, j]
        if j > 0:
            prefix[j] += prefix[j - 1]
'''


def expected(x):
    return (x * np.arange(1, 49)).sum(1), np.cumsum(x[0])


def test_auto_scheduled_program_agrees_with_numpy_on_every_thread_count(teml):
    x = np.random.default_rng(0).integers(-2**40, 2**40, (64, 48))
    y, prefix = expected(x)
    for threads in ("1", "2", "4"):
        out = teml.run(PROGRAM, {"x": x}, ["y", "prefix"], extra=["--auto", "--threads", threads])
        np.testing.assert_array_equal(out["y"], y)
        np.testing.assert_array_equal(out["prefix"], prefix)


def test_v_prints_a_schedule_that_replays_to_the_same_program(tmp_path):
    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    auto = subprocess.run([TEML, "emit", str(path), "--emit", "ir", "--auto", "-v", *cache], capture_output=True, text=True)
    assert auto.returncode == 0, auto.stderr
    schedule = auto.stderr[auto.stderr.index("@teml.schedule(f)"):]
    schedule = "\n".join(line for line in schedule.splitlines() if not line.startswith("teml: ")) + "\n"
    assert re.search(r's\.parallelize\("Li(\.o)?"\)', schedule)  # blocks of four rows with 256-bit vectors
    assert 's.vectorize("Lj")' in schedule
    assert "Lp" not in schedule  # the prefix sum carries a dependence: parallelize and vectorize are refused
    path.write_text(PROGRAM + "\n\n" + schedule)
    pasted = subprocess.run([TEML, "emit", str(path), "--emit", "ir", *cache], capture_output=True, text=True)
    assert pasted.returncode == 0, pasted.stderr
    # The same loops and marks; only the line numbers of provenance may differ.
    strip = lambda text: re.sub(r"  # .*", "", text)
    assert strip(pasted.stdout) == strip(auto.stdout)


def test_no_auto_and_an_own_schedule_are_left_alone(tmp_path):
    path = tmp_path / "program.py"
    path.write_text(PROGRAM + '''

@teml.schedule(f)
def sched(s):
    s.parallelize("Li")
''')
    for flags in (["--auto"], ["--no-auto"]):
        r = subprocess.run([TEML, "emit", str(path), "--emit", "ir", "-v", *flags], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "auto-schedule" not in r.stderr
        assert " vector" not in r.stdout


def auto_steps(tmp_path, program, threads="2"):
    path = tmp_path / "steps.py"
    path.write_text(program)
    r = subprocess.run([TEML, "emit", str(path), "--emit", "ir", "--threads", threads, "-v",
                        "--cache-dir", str(tmp_path / "cache")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [line.strip() for line in r.stderr.splitlines() if line.strip().startswith("s.")]


def test_rows_that_data_decide_go_to_threads_dynamically_in_blocks(tmp_path, teml):
    program = '''import teml


@teml.transform
def f(ptr: teml.Var[(100001,), "int32"], idx: teml.Var[(400000,), "int32"], x: teml.Var[(100000,), "float64"],
      y: teml.Var[(100000,), "float64", "output"]):
    #! label: Lrow
    for i in range(100000):
        for p in range(ptr[i], ptr[i + 1]):
            y[i] += x[idx[p]]
'''
    steps = auto_steps(tmp_path, program)
    assert steps[:2] == ['s.split("Lrow", 512)', 's.parallelize("Lrow.o", "dynamic")'], steps
    rng = np.random.default_rng(4)
    ptr = np.concatenate([[0], np.sort(rng.integers(0, 400000, 99999)), [400000]]).astype(np.int32)
    idx = rng.integers(0, 100000, 400000).astype(np.int32)
    x = rng.integers(1, 5, 100000).astype(np.float64)
    got = teml.run(program, {"ptr": ptr, "idx": idx, "x": x}, ["y"], extra=["--threads", "4"])["y"]
    np.testing.assert_array_equal(got, np.add.reduceat(np.concatenate([x[idx], [0]]), ptr[:-1]) * (ptr[1:] > ptr[:-1]))


def test_a_loop_of_few_iterations_a_thread_leaves_threads_to_the_loop_inside(tmp_path):
    program = '''import teml


@teml.transform
def f(x: teml.Var[(8, 4096), "float32"], y: teml.Var[(8, 4096), "float32", "output"]):
    #! label: Lhead
    for h in range(8):
        #! label: Ltoken
        for j in range(4096):
            y[h, j] = x[h, j] * 2
'''
    assert auto_steps(tmp_path, program, threads="2")[0] == 's.parallelize("Ltoken")'
    assert auto_steps(tmp_path, program, threads="1")[0] == 's.parallelize("Lhead")'


def test_auto_schedule_in_a_schedule_completes_what_the_user_left_alone(tmp_path, teml):
    vectorized = PROGRAM + '''

@teml.schedule(f)
def sched(s):
    s.vectorize("Lj")
    s.auto_schedule()
'''
    assert auto_steps(tmp_path, vectorized) == ['s.parallelize("Li")']
    # A nest the user put on threads keeps them: nothing is added to it.
    threaded = vectorized.replace('s.vectorize("Lj")', 's.parallelize("Lj")')
    assert auto_steps(tmp_path, threaded) == []
    x = np.random.default_rng(5).integers(-2**40, 2**40, (64, 48))
    y, prefix = expected(x)
    for program in (vectorized, threaded):
        out = teml.run(program, {"x": x}, ["y", "prefix"], extra=["--threads", "4"])
        np.testing.assert_array_equal(out["y"], y)
        np.testing.assert_array_equal(out["prefix"], prefix)
