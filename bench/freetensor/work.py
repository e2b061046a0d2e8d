"""The work each workload must do, from its inputs' shapes: floating-point
operations (an exp, a division or a comparison counts as one) and the bytes
that must move (inputs read once, outputs written once; intermediates that
fit in the caches are not counted), and rows gathered at indices from data
where that is what binds (GAT). limit() turns it into the shortest time on
the measured peak, bandwidth and rate of gathered rows."""
import numpy as np


def shapes(directory):
    return {p.stem: np.load(p, mmap_mode="r") for p in directory.glob("*.npy")}


def nbytes(*arrays):
    return sum(a.size * a.itemsize for a in arrays)


def subdivnet(directory):
    t = shapes(directory)
    n, c = t["e"].shape
    out = t["w0"].shape[1]
    # per face: 3 neighbours x (sum; |difference| twice, with its sum), then four c x out products
    flops = n * (3 * c * 7 + 4 * 2 * c * out)
    return {"flops": flops, "bytes": nbytes(t["e"], t["adj"]) + n * out * 4}


def longformer(directory, w=32):
    t = shapes(directory)
    heads, n, f = t["q"].shape
    # per token: 2w+1 dot products of length f, the softmax, the weighted sum of 2w+1 rows
    flops = heads * n * ((2 * w + 1) * 2 * f * 2 + (2 * w + 1) * 4)
    return {"flops": flops, "bytes": nbytes(t["q"], t["k"], t["v"]) + t["q"].size * 4}


def softras(directory, pixels=64 * 64):
    t = shapes(directory)
    faces = t["faces"].shape[0]
    # per face and pixel, per edge (its constants once per face): the offset (2), t (3), clamp (2),
    # the offset from the closest point and its square (7), the edge function (3); then min (2),
    # the sign test (5) and the sigmoid (4)
    flops = faces * pixels * (3 * 17 + 11)
    return {"flops": flops, "bytes": nbytes(t["faces"]) + faces * pixels * 4}


def gat(directory):
    t = shapes(directory)
    n, f = t["feat"].shape
    edges = t["idx"].shape[0]
    # the projection and the two attention vectors; per edge: score (3), max, exp and its argument (2),
    # the sum, the weighted row (2f); per node a division per feature
    flops = n * (2 * f * f + 4 * f + f) + edges * (7 + 2 * f)
    # Each edge reads its neighbour's row of h (f floats) at an index from data: rows of an n x f
    # table gathered at random, at the rate limits.c measures for a table that size.
    return {"flops": flops, "bytes": nbytes(t["ptr"], t["idx"], t["feat"], t["weight"]) + n * f * 4,
            "gathered_rows": edges, "gather_table": [n * f * 4, f * 4]}


WORK = {"subdivnet": subdivnet, "longformer": longformer, "softras": softras, "gat": gat}


def gather_key(work):
    """Which measured rate of gathered rows a workload's limit takes (table bytes, row bytes)."""
    return " ".join(map(str, work["gather_table"])) if work.get("gather_table") else None


def limit(work, machine):
    """(seconds, "compute" or "memory"): the work at the measured peak and bandwidth."""
    compute = work["flops"] / (machine["fma_gflops"] * 1e9)
    memory = work["bytes"] / (machine["triad_gbs"] * 1e9)
    bounds = [(compute, "compute"), (memory, "memory")]
    rate = machine.get("gather_rows_per_s", {}).get(gather_key(work))
    if work.get("gathered_rows") and rate:
        bounds.append((work["gathered_rows"] / rate, "gathers"))
    return max(bounds)
