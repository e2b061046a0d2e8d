"""Scalars a register block multiplies its vectors by (docs/lowering.md,
scalar rows): a convolution's weights w[o + r][c][j] for the jammed output
channels are read through one pointer taken in the innermost loop, at
constant displacements (r times w's row of CI * K elements), and that loop,
short and of constant trip count, is unrolled outright. Checked against
NumPy and through the size-generic kernel of another shape, at sizes neither
the vectors nor the jammed rows divide."""
import re

import numpy as np

from conftest import vector_floats  # noqa: F401  (the conftest's TEML)
from test_shared_loads import MM, conv1d, reference


def emitted(teml, source, inputs):
    return teml.attempt(source, inputs, [], extra=["--threads", "1"], command="emit").stdout


def test_the_weights_of_jammed_channels_are_read_at_displacements_from_one_pointer(teml):
    rng = np.random.default_rng(1)
    for ci, length, co, k in [(5, 4 * vector_floats() + 9, 6, 3), (3, 130, 9, 7), (16, 300, 32, 7)]:
        x = rng.standard_normal((ci, length)).astype(np.float32)
        w = rng.standard_normal((co, ci, k)).astype(np.float32)
        source = conv1d(ci, length, co, k)
        out = teml.run(source, {"x": x, "w": w}, ["y"], extra=["--threads", "2"])
        np.testing.assert_allclose(out["y"], reference(x, w), rtol=1e-4, atol=1e-4)
        c = emitted(teml, source, {"x": x, "w": w})
        assert "*srow = &w[o][c][j];" in c, c
        displacements = set(int(d) for d in re.findall(r"srow\[(\d+)\]", c))
        assert 0 in displacements and displacements <= {r * ci * k for r in range(co)}, c
        assert len(displacements) > 1, c


def test_a_short_loop_in_a_register_block_is_unrolled_and_a_long_one_is_not(teml):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 200)).astype(np.float32)
    w = rng.standard_normal((8, 4, 5)).astype(np.float32)
    c = emitted(teml, conv1d(4, 200, 8, 5), {"x": x, "w": w})
    assert re.search(r"#pragma GCC unroll 16\n\s*for \(long j = 0; j < 5; j\+\+\)", c), c
    w = rng.standard_normal((8, 4, 40)).astype(np.float32)
    c = emitted(teml, conv1d(4, 200, 8, 40), {"x": x, "w": w})
    assert "#pragma GCC unroll" not in c, c


def test_a_matrix_products_rows_of_a_are_displaced_by_their_stride(teml):
    # test_shared_loads runs the same program against NumPy
    rng = np.random.default_rng(3)
    a = rng.standard_normal((37, 300)).astype(np.float32)
    b = rng.standard_normal((300, 45)).astype(np.float32)
    c = emitted(teml, MM, {"A": a, "B": b})
    assert "*srow = &A[i][k];" in c and "srow[300]" in c, c
