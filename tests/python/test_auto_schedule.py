"""A transform with no schedule is scheduled automatically, as FreeTensor
does; auto=False runs it as written."""
import pathlib
import sys

import numpy as np

import teml

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import kernels  # noqa: E402


def test_a_transform_without_a_schedule_runs_its_automatic_schedule():
    row_sums = teml.transform(kernels.row_sums)
    x = np.random.default_rng(0).standard_normal((100, 7))
    np.testing.assert_allclose(row_sums(x), x.sum(1))
    assert "parallel  @Lr" in row_sums.ir()


def test_auto_false_runs_the_program_as_written():
    as_written = teml.transform(kernels.row_sums, auto=False)
    x = np.random.default_rng(1).standard_normal((100, 7))
    np.testing.assert_allclose(as_written(x), x.sum(1))
    assert "parallel" not in as_written.ir()
