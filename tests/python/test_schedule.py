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
