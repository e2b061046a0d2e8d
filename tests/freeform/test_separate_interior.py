"""separate_interior splits a loop into its edges and its interior, where
the bounds guards inside it surely hold and are dropped
(src/schedule/separate_interior.cpp). Whole numbers, so that an element
summed twice, in the wrong place or not at all shows exactly."""
import subprocess

import numpy as np

from conftest import TEML


def window(schedule, guard="0 <= j + 2 * t < N", otherwise=""):
    body = f'''import teml


@teml.transform
def f(x: teml.Var[(N, 8), "int32"], y: teml.Var[(N, 8), "int32", "output"]):
    #! label: Lj
    for j in range(N):
        #! label: Lt
        for t in range(-3, 4):
            if {guard}:
                #! label: Lp
                for p in range(8):
                    y[j, p] += x[j + 2 * t, p] * (t + 4)
{otherwise}

@teml.schedule(f)
def schedule(s):
{schedule}
'''
    return body


def expected(x, sign=1):
    n = x.shape[0]
    y = np.zeros_like(x)
    for j in range(n):
        for t in range(-3, 4):
            if 0 <= j + 2 * t < n:
                y[j] += x[j + 2 * t] * (t + 4)
            elif sign < 0:
                y[j] -= 1
    return y


def whole(n, seed=0):
    return np.random.default_rng(seed).integers(-50, 50, (n, 8)).astype(np.int32)


def emitted(teml, *extra):
    r = subprocess.run([TEML, "emit", str(teml.dir / "program.py"), "--emit", "ir", *extra],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_the_interior_runs_without_the_guard_and_the_edges_keep_it(teml):
    for n in (13, 40):  # an interior of 1 and of 28 iterations
        x = whole(n)
        out = teml.run(window('    s.separate_interior("Lj")'), {"x": x}, ["y"], extra=["--no-auto"])
        np.testing.assert_array_equal(out["y"], expected(x))
    ir = emitted(teml, "--no-auto", "--set", "N=40")
    assert "for j in [0, 6)  @Lj.head" in ir and "for j in [6, 34)  @Lj " in ir and "for j in [34, 40)  @Lj.tail" in ir
    assert ir.count("if 0 <= j + t * 2") + ir.count("if 0 <= j + 2 * t") == 2, ir  # in the two edges only


def test_an_else_branch_runs_only_at_the_edges(teml):
    otherwise = "            else:\n                for p in range(8):\n                    y[j, p] -= 1\n"
    x = whole(30, seed=1)
    out = teml.run(window('    s.separate_interior("Lj")', otherwise=otherwise), {"x": x}, ["y"], extra=["--no-auto"])
    np.testing.assert_array_equal(out["y"], expected(x, sign=-1))


def test_a_guard_counting_down_bounds_the_interior_from_above(teml):
    x = whole(20, seed=2)
    program = window('    s.separate_interior("Lj")', guard="j + 2 * t >= 0 and N - 1 - j - 2 * t >= 0")
    out = teml.run(program, {"x": x}, ["y"], extra=["--no-auto"])
    np.testing.assert_array_equal(out["y"], expected(x))
    assert "for j in [6, 14)  @Lj " in emitted(teml, "--no-auto", "--set", "N=20")


def test_a_guard_read_from_data_is_refused_at_the_step(teml):
    x = whole(16)
    r = teml.attempt(window('    s.separate_interior("Lj")', guard="x[j, 0] > 0"), {"x": x}, ["y"])
    assert r.returncode == 1, r.stderr
    assert ("error: separate_interior: no branch inside 'j' compares an expression linear in 'j' with bounds of "
            "the loops around it") in r.stderr, r.stderr


def test_a_loop_whose_guards_never_all_hold_is_refused(teml):
    r = teml.attempt(window('    s.separate_interior("Lj")'), {"x": whole(10)}, ["y"])
    assert r.returncode == 1, r.stderr
    assert "separate_interior: no iteration of 'j' takes the branches inside it in every case" in r.stderr, r.stderr
