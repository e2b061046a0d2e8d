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


# The automatic schedule (src/autoschedule/auto_window_blocks.cpp) takes the
# same steps on windows as users write them: dot products and weighted
# rows, on heads whose dilation is a select (its heads set apart, the
# dilated one's tokens spread over their classes mod 2). A dot product's
# interior rows go in pairs: 16 sums per vector of Q loaded.
H, WA, TA, FA = 3, 8, 64, 128  # K and V of 3 x 64 x 128 floats: beyond the L1 cache


def window_layer(q: teml.Var[(H, n, FA), "float32"], k: teml.Var[(H, n, FA), "float32"],
                 a: teml.Var[(H, n, 2 * WA + 1), "float32"], v: teml.Var[(H, n, FA), "float32"],
                 s: teml.Var[(H, n, 2 * WA + 1), "float32", "output"],
                 y: teml.Var[(H, n, FA), "float32", "output"]):
    #! label: Lh
    for h in range(H):
        #! label: Lj
        for j in range(n):
            for t in range(-WA, WA + 1):
                if 0 <= j + t * (2 if h < 1 else 1) < n:
                    s[h, j, t + WA] = 0
                    for p in range(FA):
                        s[h, j, t + WA] += q[h, j, p] * k[h, j + t * (2 if h < 1 else 1), p]
            for t in range(-WA, WA + 1):
                if 0 <= j + t * (2 if h < 1 else 1) < n:
                    for p in range(FA):
                        y[h, j, p] += a[h, j, t + WA] * v[h, j + t * (2 if h < 1 else 1), p]


# 64 tokens: each class of the dilated head is 4 whole blocks; 70: each
# class of 35 tokens ends in a tail of 3 (the blocks then sit in a loop
# over the classes that holds their tail too).
@pytest.mark.parametrize("tokens", [64, 70])
def test_the_automatic_schedule_blocks_the_tokens_of_every_head(tokens):
    q, k, v = (whole((H, tokens, FA), seed) for seed in (3, 4, 5))
    a = whole((H, tokens, 2 * WA + 1), 6)
    auto = teml.transform(window_layer)
    for got, want in zip(auto(q, k, a, v), teml.transform(window_layer, auto=False)(q, k, a, v)):
        np.testing.assert_array_equal(got, want)
    ir = auto.ir(q, k, a, v)
    dilated, rest = ir[:ir.index("@Lh.tail")], ir[ir.index("@Lh.tail"):]
    # Undilated heads: 8 tokens two rows of K, and a row of V, in the interior.
    assert rest.count("* k[h][8 * j_o + (-1 + 2 * t_o)][p]") >= 8
    assert rest.count("* k[h][8 * j_o + (-1 + 2 * t_o + 1)][p]") >= 8
    assert rest.count("* v[h][8 * j_o + t_2][") >= 8
    # Rows j + 2t: the tokens go in their two classes mod 2 (j outside),
    # 8 tokens of a class (2 apart) to two rows.
    assert "for j in [0, 2)  @Lj " in dilated
    assert dilated.count("* k[h][j + 16 * j_o_o + 2 * (-1 + 2 * t_o)][p]") >= 8
    assert dilated.count("* v[h][j + 16 * j_o_o + 2 * t_2][") >= 8


def lopsided(q: teml.Var[(2, n, FA), "float32"], k: teml.Var[(2, n, FA), "float32"],
             s: teml.Var[(2, n, 16), "float32", "output"]):
    for h in range(2):
        for j in range(n):
            for t in range(-8, 8):
                if 0 <= j + t < n:
                    s[h, j, t + 8] = 0
                    for p in range(FA):
                        s[h, j, t + 8] += q[h, j, p] * k[h, j + t, p]


# A window of 16 rows has 9 in every token's window of a block of 8: four
# pairs, and a last row alone (separate_tail of the pairs).
@pytest.mark.parametrize("tokens", [64, 75])
def test_an_odd_number_of_interior_rows_keeps_its_last_row_alone(tokens):
    q, k = whole((2, tokens, FA), 14), whole((2, tokens, FA), 15)
    auto = teml.transform(lopsided)
    np.testing.assert_array_equal(auto(q, k), teml.transform(lopsided, auto=False)(q, k))
    ir = auto.ir(q, k)
    assert ir.count("* k[h][8 * j_o + (-1 + 2 * t_o + 1)][p]") >= 8
    assert "for t_o in [0, 4)" in ir and "for t_o in [4, 5)" in ir


def stencil(x: teml.Var[(TA, FA), "float32"], y: teml.Var[(TA, FA), "float32", "output"]):
    #! label: Lj
    for j in range(1, TA - 1):
        for t in range(-1, 2):
            for p in range(FA):
                y[j, p] += x[j + t, p]


def test_a_window_without_a_bounds_check_is_not_blocked():
    x = whole((TA, FA), 7)
    f = teml.transform(stencil)
    np.testing.assert_array_equal(f(x), teml.transform(stencil, auto=False)(x))
    assert "j_o" not in f.ir(x)


def test_teml_grad_of_the_blocked_windows_is_the_written_ones():
    q, k, v = (whole((H, TA, FA), seed) for seed in (8, 9, 10))
    a = whole((H, TA, 2 * WA + 1), 11)
    ds, dy = whole((H, TA, 2 * WA + 1), 12), whole((H, TA, FA), 13)
    gradients = []
    for auto in (True, False):
        forward, backward = teml.grad(teml.transform(window_layer, auto=auto))
        forward(q, k, a, v)
        gradients.append(backward(ds, dy))
    for got, want in zip(*gradients):
        np.testing.assert_array_equal(got, want)
