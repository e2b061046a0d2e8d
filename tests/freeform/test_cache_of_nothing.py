"""`cache` of a tensor whose accesses in the loop lie in loops of no
iterations (a CSR program of 0 edges) is refused at its step: there is
nothing to copy (fuzz seed 3867 made ill-formed IR)."""
import numpy as np

from conftest import Teml

PROGRAM = '''import teml
E = 0


@teml.transform
def f(col: teml.Var[(E,), "int32"], y: teml.Var[(8,), "float32", "output"]):
    #! label: Li
    for i in range(4):
        for k in range(E):
            y[col[k]] += 1.0


@teml.schedule(f)
def s(s):
    s.cache("Li", "col")
'''


def test_a_cache_of_no_elements_is_refused_at_its_step(tmp_path):
    r = Teml(tmp_path).attempt(PROGRAM, {"col": np.zeros(0, np.int32)}, ["y"])
    assert r.returncode == 1, r.stderr
    assert ("program.py:15:5: error: cache: loop 'i' touches no element of 'col' (its accesses lie in loops of no "
            "iterations): there is nothing to copy") in r.stderr, r.stderr
    assert "internal error" not in r.stderr
