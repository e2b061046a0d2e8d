"""Blocks of tokens that share their windows' rows (docs/transformations.md):
the tokens split into blocks, the window skewed by the token's place in its
block (so its bounds are the same for every block), the two interchanged,
then `separate_interior` twice: once over the blocks (the sequence's ends
keep their bounds check) and once over the window's rows, where a row is in
the window of every token of the block (the token loop's clamped bounds
`max(8 * o, 8 * o + t - w)` are guards too). There the token loop has
constant bounds, so it can be unrolled into the dot product: one load of a
row of K for the block's tokens. Whole numbers in float32: every order sums
exactly."""
from __future__ import annotations

import numpy as np
import pytest

import teml

W = 4


def scores(q: teml.Var[(T, F), "float32"], k: teml.Var[(T, F), "float32"],
           y: teml.Var[(T, 2 * W + 1), "float32", "output"]):
    #! label: Ltoken
    for j in range(T):
        #! label: Lscore
        for t in range(-W, W + 1):
            if 0 <= j + t < T:
                y[j, t + W] = 0
                #! label: Ldot
                for p in range(F):
                    y[j, t + W] += q[j, p] * k[j + t, p]


def blocks_sharing_rows(s, tail=False):
    o, i = s.split("Ltoken", 8)
    if tail:
        s.separate_tail(o)  # full blocks first: constant bounds in them
    s.skew(i, "Lscore", 1)
    s.interchange_skewed(i, "Lscore")
    s.separate_interior(o)  # blocks away from the sequence's ends
    s.separate_interior("Lscore")  # rows in every token's window
    s.fission("Ltoken", 1)  # the zeros, then the sums
    s.reorder(["Ldot", "Ltoken.f"])
    s.unroll("Ltoken.f")
    s.vectorize("Ldot")


def whole(shape, seed):
    return np.random.default_rng(seed).integers(-4, 5, shape).astype(np.float32)


@pytest.mark.parametrize("tokens,tail", [(40, False), (64, False), (200, False), (30, True), (101, True)])
def test_blocks_sharing_rows_keep_the_scores(tokens, tail):
    q, k = whole((tokens, 16), 1), whole((tokens, 16), 2)
    written = teml.transform(scores, auto=False)(q, k)
    scheduled = teml.transform(scores, schedule=lambda s: blocks_sharing_rows(s, tail), auto=False)(q, k)
    np.testing.assert_array_equal(scheduled, written)


def test_the_interior_has_whole_blocks_and_keeps_the_names():
    q, k = whole((64, 16), 1), whole((64, 16), 2)
    ir = teml.transform(scores, schedule=blocks_sharing_rows, auto=False).ir(q, k)
    # Skewed by the place in the block: the window's bounds are constants.
    assert "for t in [-4, 12)  @Lscore.head" in ir
    # The interior: rows 3 and 4 are in the window of every token of a block.
    assert "for t in [3, 5)  @Lscore  " in ir
    # There the tokens are unrolled into one vector loop over the features.
    interior = ir[ir.index("@Lscore  "):ir.index("@Lscore.tail  ")]
    assert "vector  @Ldot  " in interior and interior.count("+= q[8 * j_o") == 8
    assert "if " not in interior
    # The edges are copies with ids of their own.
    assert "@Ldot.head" in ir and "@Ldot.tail" in ir


def test_a_skew_counts_a_block_loop_from_its_begin():
    def skewed(s):
        o, i = s.split("Ltoken", 8)
        s.skew(i, "Lscore", 1)
    q, k = whole((40, 16), 1), whole((40, 16), 2)
    f = teml.transform(scores, schedule=skewed, auto=False)
    assert "for t in [j - 8 * j_o - 4, j - 8 * j_o + 5)" in f.ir(q, k)
    np.testing.assert_array_equal(f(q, k), teml.transform(scores, auto=False)(q, k))


def test_no_interior_is_refused():
    # 16 tokens: no block is away from both ends of the sequence.
    q, k = whole((16, 16), 1), whole((16, 16), 2)
    with pytest.raises(teml.ProgramError, match="no iteration of 'j_o' takes the branches inside it in every case"):
        teml.transform(scores, schedule=blocks_sharing_rows, auto=False)(q, k)
