"""Random CSR matrices and their product with a vector, in NumPy."""
import numpy as np


def random_csr(rows, cols, seed, per_row=(0, 6)):
    rng = np.random.default_rng(seed)
    counts = rng.integers(per_row[0], per_row[1], rows)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    idx = rng.integers(0, cols, ptr[-1]).astype(np.int32)
    return ptr, idx, rng.standard_normal(ptr[-1]), rng.standard_normal(cols)


def spmv(ptr, idx, val, x):
    return np.array([val[ptr[i]:ptr[i + 1]] @ x[idx[ptr[i]:ptr[i + 1]]] for i in range(len(ptr) - 1)])
