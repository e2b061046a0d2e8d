"""teml.Schedule: schedules written in Python, checked like schedules in the file."""
import inspect
import pathlib
import sys

import numpy as np
import pytest

import teml

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import kernels  # noqa: E402


def test_a_legal_schedule_from_python():
    def schedule(s):
        outer, inner = s.split("Lr", 4)
        s.parallelize(outer)

    row_sums = teml.transform(kernels.row_sums, schedule=schedule)
    x = np.random.default_rng(0).standard_normal((10, 3))
    np.testing.assert_allclose(row_sums(x), x.sum(1))
    assert "parallel  @Lr.o" in row_sums.ir()


def test_an_illegal_step_is_refused_at_its_python_line():
    def schedule(s):
        s.parallelize("Lp")

    line = inspect.getsourcelines(schedule)[1] + 1
    prefix = teml.transform(kernels.prefix_sums, schedule=schedule)
    with pytest.raises(teml.ProgramError) as e:
        prefix(np.ones(8))
    assert (e.value.file, e.value.line) == (__file__, line)
    assert "different iterations may read x[i - 1] while another writes x[i]" in e.value.message


def test_merge_returns_the_merged_loop_as_freetensor_does():
    handles = []

    def schedule(s):
        handles.append(s.merge("Lr", "Lc"))

    column_sums = teml.transform(kernels.column_sums, schedule=schedule)
    x = np.arange(24, dtype=np.int64).reshape(6, 4)
    np.testing.assert_array_equal(column_sums(x), x.sum(0))
    assert isinstance(handles[0], teml.Handle)
    assert "in [0, 24)" in column_sums.ir()


def test_every_primitive_of_the_table_is_a_method_with_its_arity():
    table = teml._teml.schedule_primitives()
    assert {"split", "reorder", "parallelize", "vectorize", "cache", "fission"} <= set(table)
    for spelling, (least, most, handles, usage) in table.items():
        assert callable(getattr(teml.Schedule, spelling)), spelling
        assert usage.startswith(spelling + "("), usage
        assert least <= most
    with pytest.raises(TypeError, match=r"cache_zeroed takes cache_zeroed\(loop, tensor\)"):
        teml.Schedule().cache_zeroed("Lr")


def test_a_primitive_without_a_method_of_its_own_runs_from_the_table():
    # cache_zeroed has no hand-written method: teml.Schedule takes it from
    # the table (its copy of the row sums starts as zeros).
    def schedule(s):
        s.cache_zeroed("Lr", "y")

    assert teml.Schedule.cache_zeroed.__doc__.startswith("s.cache_zeroed(loop, tensor)")
    row_sums = teml.transform(kernels.row_sums, schedule=schedule)
    x = np.arange(30, dtype=np.float64).reshape(10, 3)
    np.testing.assert_allclose(row_sums(x), x.sum(1))


def four_columns(x: teml.Var[(9,), "float32"], y: teml.Var[(9, 4), "float32", "output"]):
    #! label: Li
    for i in range(9):
        y[i, 0] = x[i]
        y[i, 1] = x[i] + 1
        y[i, 2] = x[i] + 2
        y[i, 3] = x[i] + 3


def test_a_loop_a_step_makes_has_an_id_no_other_loop_of_the_program_has():
    # The third fission's second loop would be `Li.f` again, beside the
    # first fission's loop (now a nest of its own): the handle must name
    # the loop this fission made, not the older one.
    def schedule(s):
        rest = s.fission("Li", 2)
        s.fission(rest, 1)
        made = s.fission("Li", 1)
        s.unroll(made, 2)

    f = teml.transform(four_columns, schedule=schedule, auto=False)
    x = np.arange(9, dtype=np.float32)
    np.testing.assert_array_equal(f(x), x[:, None] + np.arange(4, dtype=np.float32))
    ir = f.ir(x)
    unrolled = ir[ir.index("step 2"):]
    assert unrolled.index("y[i][1] =") < unrolled.index("y[i + 1][1] =") < unrolled.index("@Li.f ")
