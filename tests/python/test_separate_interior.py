"""separate_interior from Python (docs/transformations.md): a window whose
bounds guard is dropped in the loop's interior gives NumPy's and PyTorch's
callers what the program as written gives, and its gradient too."""
from __future__ import annotations

import numpy as np
import torch

import teml


def window(x: teml.Var[(N, 8), "float64"], y: teml.Var[(N, 8), "float64", "output"]):
    #! label: Lj
    for j in range(N):
        for t in range(-3, 4):
            if 0 <= j + 2 * t < N:
                for p in range(8):
                    y[j, p] += x[j + 2 * t, p] * (t + 4)


def interior(s):
    s.separate_interior("Lj")


def expected(x):
    y = np.zeros_like(x)
    for j in range(x.shape[0]):
        for t in range(-3, 4):
            if 0 <= j + 2 * t < x.shape[0]:
                y[j] += x[j + 2 * t] * (t + 4)
    return y


def test_numpy_and_pytorch_callers_get_the_windows_sums():
    split = teml.transform(window, schedule=interior)
    x = np.random.default_rng(0).integers(-9, 9, (29, 8)).astype(np.float64)
    np.testing.assert_array_equal(split(x), expected(x))
    np.testing.assert_array_equal(split(torch.from_numpy(x)).numpy(), expected(x))
    assert "Lj.head" in split.ir() and "Lj.tail" in split.ir()


def test_the_gradient_of_the_split_program_is_the_written_ones():
    x = np.random.default_rng(1).standard_normal((23, 8))
    weight = np.random.default_rng(2).standard_normal((23, 8))
    gradients = []
    for schedule in (interior, None):
        forward, backward = teml.grad(teml.transform(window, schedule=schedule, auto=schedule is None))
        forward(x)
        gradients.append(backward(weight)[0])
    np.testing.assert_allclose(gradients[0], gradients[1], rtol=1e-12)


def dilated(x: teml.Var[(4, N, 8), "float64"], y: teml.Var[(4, N, 8), "float64", "output"]):
    #! label: Lh
    for h in range(4):
        for j in range(N):
            for t in range(-3, 4):
                # Longformer's dilation: 2 on the first head, 1 on the others.
                if 0 <= j + t * (2 if h < 1 else 1) < N:
                    for p in range(8):
                        y[h, j, p] += x[h, j + t * (2 if h < 1 else 1), p] * (t + 4)


def test_each_part_takes_the_side_of_a_select_its_condition_gives_there():
    split = teml.transform(dilated, schedule=lambda s: s.separate_interior("Lh"), auto=False)
    x = np.random.default_rng(3).integers(-9, 9, (4, 19, 8)).astype(np.float64)
    y = teml.transform(dilated, auto=False)(x)
    np.testing.assert_array_equal(split(x), y)
    ir = split.ir()
    first, rest = ir[ir.index("@Lh  "):ir.index("@Lh.tail")], ir[ir.index("@Lh.tail"):]
    assert "x[h][j + t * 2][p]" in first and "x[h][j + t][p]" in rest and "select" not in ir


def classes(x: teml.Var[(2 * N,), "float64"], y: teml.Var[(2 * N,), "float64", "output"]):
    for c in range(2):
        #! label: Lj
        for j in range(N):
            for t in range(-3, 4):
                if 0 <= 2 * j + c + 2 * t < 2 * N:
                    y[2 * j + c] += x[2 * j + c + 2 * t] * (t + 4)
        y[c] += 1  # Lj is not all of c's body: c is outside Lj's perfect nest


def test_a_guard_may_ask_about_loops_outside_the_perfect_nest():
    split = teml.transform(classes, schedule=lambda s: s.separate_interior("Lj"), auto=False)
    x = np.random.default_rng(4).integers(-9, 9, 38).astype(np.float64)
    np.testing.assert_array_equal(split(x), teml.transform(classes, auto=False)(x))
    interior = split.ir().split("@Lj  ")[1].split("@Lj.tail")[0]
    assert "if" not in interior
