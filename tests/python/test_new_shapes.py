"""A transform compiled once serves every shape of its inputs (docs/python.md,
"New shapes"): a new shape runs the compiler's stages again (milliseconds) but
not the C compiler, unless a size decides the code. Each test that counts
compiled kernels runs in a fresh process with an empty kernel cache."""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import teml

PROGRAMS = textwrap.dedent('''
    from __future__ import annotations
    import numpy as np
    import teml

    @teml.transform
    def spmv(ptr: teml.Var[(R1,), "int32"], col: teml.Var[(NNZ,), "int32"], val: teml.Var[(NNZ,), "float64"],
             x: teml.Var[(C,), "float64"], y: teml.Var[(R1 - 1,), "float64", "output"]):
        for i in range(R1 - 1):
            for k in range(ptr[i], ptr[i + 1]):
                y[i] += val[k] * x[col[k]]

    @teml.transform
    def softmax(x: teml.Var[(N, M), "float32"], y: teml.Var[(N, M), "float32", "output"]):
        for i in range(N):
            top = teml.full((), float("-inf"), "float32")
            for j in range(M):
                top[()] = max(top[()], x[i, j])
            total = teml.zeros((), "float32")
            for j in range(M):
                y[i, j] = teml.exp(x[i, j] - top[()])
                total[()] += y[i, j]
            for j in range(M):
                y[i, j] = y[i, j] / total[()]

    @teml.transform
    def mean_rows(x: teml.Var[(N, M), "float64"], y: teml.Var[(N,), "float64", "output"]):
        for i in range(N):
            for j in range(M):
                y[i] += x[i, j]
            y[i] = y[i] / float(M)

    @teml.transform
    def edge_softmax(ptr: teml.Var[(R1,), "int32"], e: teml.Var[(NNZ,), "float64"],
                     y: teml.Var[(NNZ,), "float64", "output"]):
        for i in range(R1 - 1):
            top = teml.full((), float("-inf"), "float64")
            for k in range(ptr[i], ptr[i + 1]):
                top[()] = max(top[()], e[k])
            total = teml.zeros((), "float64")
            for k in range(ptr[i], ptr[i + 1]):
                y[k] = teml.exp(e[k] - top[()])
                total[()] += y[k]
            for k in range(ptr[i], ptr[i + 1]):
                y[k] = y[k] / total[()]

    def csr(rng, rows, cols, nnz):
        cells = np.sort(rng.choice(rows * cols, nnz, replace=False))
        ptr = np.searchsorted(cells // cols, np.arange(rows + 1)).astype(np.int32)
        return ptr, (cells % cols).astype(np.int32), rng.standard_normal(nnz), rng.standard_normal(cols)

    def spmv_numpy(ptr, col, val, x):
        return np.array([val[ptr[i]:ptr[i + 1]] @ x[col[ptr[i]:ptr[i + 1]]] for i in range(len(ptr) - 1)])

    def softmax_numpy(x):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
''')


def run_fresh(tmp_path, body, env=None):
    """`body` after PROGRAMS in a new process whose kernel cache is empty; its stdout."""
    script = tmp_path / "script.py"
    script.write_text(PROGRAMS + textwrap.dedent('''
        import os
        def kernels():
            root = os.path.join(os.environ["XDG_CACHE_HOME"], "teml")
            return sum(f.endswith(".so") for _, _, files in os.walk(root) for f in files)
        rng = np.random.default_rng(7)
    ''') + textwrap.dedent(body))
    # Probes within any budget a loaded machine needs, so that what the test counts is decided
    # by the programs alone (the default half second is a first call's, not a test's)
    e = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), TEML_SIZE_PROBE_SECONDS="60")
    e.update(env or {})
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=e, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_csr_spmv_with_new_numbers_of_rows_and_nonzeros_compiles_once(tmp_path):
    # Odd numbers of rows: the blocks of rows handed to threads never divide them (where they
    # do, the code has no cut at the end, and that code gets a kernel of its own)
    out = run_fresh(tmp_path, '''
        for rows, cols, nnz in [(3001, 2500, 30000), (1201, 5000, 9000), (4711, 333, 20001), (6001, 6000, 1)]:
            ptr, col, val, x = csr(rng, rows, cols, nnz)
            y = spmv(ptr, col, val, x)
            assert np.allclose(y, spmv_numpy(ptr, col, val, x), rtol=1e-12, atol=1e-12), (rows, cols, nnz)
            print(kernels())
    ''')
    assert out.split() == ["1", "1", "1", "1"]


def test_softmax_rows_and_columns_with_every_remainder(tmp_path):
    # 1004 leaves 12 after 16-wide vectors (4 after 8-wide), 1500 12 (4), 2001 1 (1), 1003 11 (3):
    # counts of the masked tail vary too
    out = run_fresh(tmp_path, '''
        for n, m in [(300, 1004), (150, 1500), (1000, 2001), (211, 1003)]:
            x = rng.standard_normal((n, m)).astype(np.float32)
            assert np.allclose(softmax(x), softmax_numpy(x), rtol=1e-5, atol=1e-7), (n, m)
            print(kernels())
    ''')
    assert out.split() == ["1", "1", "1", "1"]


def test_a_float_that_depends_on_a_size_is_bound_too(tmp_path):
    out = run_fresh(tmp_path, '''
        for n, m in [(200, 1000), (300, 1700)]:
            x = rng.standard_normal((n, m))
            assert np.allclose(mean_rows(x), x.mean(axis=1), rtol=1e-12), (n, m)
            print(kernels())
    ''')
    assert out.split() == ["1", "1"]


def test_a_size_that_decides_the_code_gets_a_kernel_of_its_own(tmp_path):
    # 1024 columns leave no tail after the vectors, 1004 do (8-wide and 16-wide alike): the code
    # differs, not only its numbers
    out = run_fresh(tmp_path, '''
        for n, m in [(300, 1004), (300, 1024), (500, 2048)]:
            x = rng.standard_normal((n, m)).astype(np.float32)
            assert np.allclose(softmax(x), softmax_numpy(x), rtol=1e-5, atol=1e-7), (n, m)
            print(kernels())
    ''')
    assert out.split() == ["1", "2", "2"]


def test_small_sizes_are_compiled_for_each_value(tmp_path):
    out = run_fresh(tmp_path, '''
        for n, m in [(300, 40), (300, 41)]:
            x = rng.standard_normal((n, m)).astype(np.float32)
            assert np.allclose(softmax(x), softmax_numpy(x), rtol=1e-5, atol=1e-7), (n, m)
            print(kernels())
    ''')
    assert out.split() == ["1", "2"]


GRAPHS = '''
        forward, backward = teml.grad(edge_softmax, wrt=["e"], of=["y"])
        for rows, nnz in [(3001, 30000), (1201, 40000), (4711, 52001), (2001, 61000)]:
            ptr, _, e, _ = csr(rng, rows, 4000, nnz)
            y = forward(ptr, e)
            w = rng.standard_normal(nnz)
            de = backward(w)
            de = de[0] if isinstance(de, tuple) else de
            row = np.repeat(np.arange(rows), np.diff(ptr))
            want = y * (w - np.bincount(row, w * y, minlength=rows)[row])
            assert np.allclose(de, want, rtol=1e-10, atol=1e-12), (rows, nnz)
            print(kernels())
'''


def test_gradients_of_a_csr_edge_softmax_on_new_graphs(tmp_path):
    # teml.grad's forward and backward passes: two kernels, for every graph
    assert run_fresh(tmp_path, GRAPHS).split() == ["2", "2", "2", "2"]


def test_a_program_too_slow_to_probe_reuses_its_second_kernels(tmp_path):
    # No time for probes: the first graph's kernels are compiled as they are, the second's are
    # made from both graphs' C and serve every graph after them
    out = run_fresh(tmp_path, GRAPHS, env={"TEML_SIZE_PROBE_SECONDS": "0"})
    assert out.split() == ["2", "4", "4", "4"]


def test_a_later_process_takes_the_kernel_from_the_cache(tmp_path):
    body = '''
        ptr, col, val, x = csr(rng, {rows}, 2000, 20000)
        assert np.allclose(spmv(ptr, col, val, x), spmv_numpy(ptr, col, val, x))
        print(kernels())
    '''
    assert run_fresh(tmp_path, body.format(rows=3000)).split() == ["1"]
    assert run_fresh(tmp_path, body.format(rows=3000)).split() == ["1"]


def test_teml_size_generic_0_compiles_every_shape(tmp_path):
    out = run_fresh(tmp_path, '''
        for n, m in [(300, 1000), (150, 1500)]:
            x = rng.standard_normal((n, m)).astype(np.float32)
            assert np.allclose(softmax(x), softmax_numpy(x), rtol=1e-5, atol=1e-7)
            print(kernels())
    ''', env={"TEML_SIZE_GENERIC": "0"})
    assert out.split() == ["1", "2"]


def load_programs(tmp_path):
    path = tmp_path / "programs.py"
    path.write_text(PROGRAMS)
    sys.path.insert(0, str(tmp_path))
    try:
        import programs
        return programs
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("programs", None)


def test_an_index_check_names_the_extent_of_the_call_that_failed(tmp_path):
    p = load_programs(tmp_path)
    rng = np.random.default_rng(3)
    ptr, col, val, x = p.csr(rng, 2000, 1500, 10000)
    p.spmv(ptr, col, val, x)
    ptr, col, val, x = p.csr(rng, 1000, 900, 5000)
    col[17] = 905
    with pytest.raises(teml.ProgramError, match=r"index 905 out of range \[0, 900\) for dimension 0 of 'x'"):
        p.spmv(ptr, col, val, x)


def test_calls_of_different_shapes_from_threads_at_once(tmp_path):
    p = load_programs(tmp_path)
    rng = np.random.default_rng(5)
    cases = [p.csr(rng, rows, 800, nnz) for rows, nnz in [(1500, 9000), (700, 4000), (2500, 20000)]]
    expected = [p.spmv_numpy(*c) for c in cases]
    for c in cases:
        p.spmv(*c)  # compiled before the threads start
    wrong = []

    def work(k):
        for _ in range(40):
            if not np.allclose(p.spmv(*cases[k]), expected[k], rtol=1e-12, atol=1e-12):
                wrong.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(cases))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def test_a_matrix_products_rows_of_a_at_displacements_of_a_new_stride(tmp_path):
    # A[i + r, k] for the jammed rows r is read at r * K elements from one pointer
    # (docs/lowering.md, scalar rows): a new K is a new displacement, bound at run time
    out = run_fresh(tmp_path, '''
        @teml.transform
        def mm(A: teml.Var[(M, K), "float32"], B: teml.Var[(K, N), "float32"], C: teml.Var[(M, N), "float32", "output"]):
            for i in range(M):
                for j in range(N):
                    for k in range(K):
                        C[i, j] += A[i, k] * B[k, j]

        for k in (300, 251, 403):
            a = rng.standard_normal((40, k)).astype(np.float32)
            b = rng.standard_normal((k, 70)).astype(np.float32)
            assert np.allclose(mm(a, b), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3), k
            print(kernels())
    ''')
    assert out.split() == ["1", "1", "1"]
