"""A refused schedule step is named as the user wrote it: `s.split(L, 0)` is
refused as `split`, not as the schedule library's `stripmine`."""
from conftest import Teml

PROGRAM = '''import teml


@teml.transform
def double(x: teml.Var[(n,), "float32"], y: teml.Var[(n,), "float32", "output"]):
    #! label: L
    for i in range(n):
        y[i] = x[i] * 2.0


@teml.schedule(double)
def by_zero(s):
    s.{step}
'''


def test_split_by_zero_is_refused_as_split(tmp_path):
    r = Teml(tmp_path).attempt(PROGRAM.format(step='split("L", 0)'), {}, [], sizes={"n": 8})
    assert r.returncode == 1
    assert r.stderr.strip().endswith("program.py:13:5: error: split: the factor must be positive, not 0"), r.stderr
    assert "stripmine" not in r.stderr


def test_a_message_without_a_primitive_name_is_left_as_it_is(tmp_path):
    r = Teml(tmp_path).attempt(PROGRAM.format(step='split("M", 2)'), {}, [], sizes={"n": 8})
    assert r.returncode == 1
    assert "there is no loop 'M'" in r.stderr and "stripmine" not in r.stderr, r.stderr
