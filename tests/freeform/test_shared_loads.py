"""Vectors that jammed rows load alike (docs/lowering.md, shared loads): a
convolution's input vector at t + k serves the four output channels jammed
around it, so it is loaded once per k, through a pointer to its row taken
before the k loop; a matrix product's row of B, which moves with the loop,
is loaded once all the same. Checked against NumPy and the interpreter
(--verify) at sizes neither the vectors nor the jammed rows divide."""
import numpy as np

from conftest import vector_floats  # noqa: F401  (the conftest's TEML)


def conv1d(ci, length, co, k):
    return f'''import teml


@teml.transform
def conv1d(x: teml.Var[({ci}, {length}), "float32"], w: teml.Var[({co}, {ci}, {k}), "float32"],
           y: teml.Var[({co}, {length - k + 1}), "float32", "output"]):
    for o in range({co}):
        for t in range({length - k + 1}):
            for c in range({ci}):
                for j in range({k}):
                    y[o, t] += w[o, c, j] * x[c, t + j]
'''


def reference(x, w):
    co, ci, k = w.shape
    out = np.zeros((co, x.shape[1] - k + 1), np.float64)
    for j in range(k):
        out += np.einsum("oc,ct->ot", w[:, :, j], x[:, j:j + out.shape[1]])
    return out


def test_a_convolutions_input_vector_is_loaded_once_for_the_jammed_channels(teml):
    rng = np.random.default_rng(0)
    for ci, length, co, k in [(5, 4 * vector_floats() + 9, 6, 3), (3, 130, 9, 7), (2, 40, 4, 1)]:
        x = rng.standard_normal((ci, length)).astype(np.float32)
        w = rng.standard_normal((co, ci, k)).astype(np.float32)
        source = conv1d(ci, length, co, k)
        out = teml.run(source, {"x": x, "w": w}, ["y"], extra=["--threads", "2"])
        np.testing.assert_allclose(out["y"], reference(x, w), rtol=1e-4, atol=1e-4)
        c = teml.attempt(source, {"x": x, "w": w}, [], extra=["--threads", "1"], command="emit").stdout
        if k > 1:
            assert "teml_keep(vload" in c and "*vrow = &x[c]" in c, c


# C[i, j] += A[i, k] * B[k, j] at sizes neither the vectors nor the jammed rows divide.
MM = '''import teml


@teml.transform
def mm(A: teml.Var[(37, 300), "float32"], B: teml.Var[(300, 45), "float32"],
       C: teml.Var[(37, 45), "float32", "output"]):
    for i in range(37):
        for j in range(45):
            for k in range(300):
                C[i, j] += A[i, k] * B[k, j]
'''


def test_a_row_of_b_that_moves_with_the_loop_is_still_loaded_once(teml):
    # C[i, j] += A[i, k] * B[k, j]: the jammed rows of C share B's vectors,
    # whose row is k itself (no row pointer); the load is named and kept.
    source = MM
    rng = np.random.default_rng(3)
    a = rng.standard_normal((37, 300)).astype(np.float32)
    b = rng.standard_normal((300, 45)).astype(np.float32)
    out = teml.run(source, {"A": a, "B": b}, ["C"], extra=["--threads", "2"])
    np.testing.assert_allclose(out["C"], a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)
    c = teml.attempt(source, {"A": a, "B": b}, [], extra=["--threads", "1"], command="emit").stdout
    assert "teml_keep(vload" in c and "*vrow" not in c, c


def test_kernels_for_wider_vectors_than_the_machines_still_compile(teml, monkeypatch):
    # teml_keep pins a vector only where the machine has registers that wide
    # (an AVX2 machine has none of 64 bytes: the asm would not compile).
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 70)).astype(np.float32)
    w = rng.standard_normal((5, 3, 4)).astype(np.float32)
    for vector_bytes in ("16", "32", "64"):
        monkeypatch.setenv("TEML_VECTOR_BYTES", vector_bytes)
        out = teml.run(conv1d(3, 70, 5, 4), {"x": x, "w": w}, ["y"], extra=["--threads", "1"])
        np.testing.assert_allclose(out["y"], reference(x, w), rtol=1e-4, atol=1e-4)
