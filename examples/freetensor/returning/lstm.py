"""An LSTM over a sequence that returns its final hidden and cell states,
`return h, c` (two outputs, named `h` and `c`).

Follows FreeTensor's experiments/lstm/ours/main.py (the four gates of each
step from `w`, `u` and `b`, then the cell and hidden updates; there the
hidden state is copied into an output parameter) and the multiple return
values of test/50.frontend/test_transformer_basic.py
(`test_multiple_return_values`: `return y, z`). FreeTensor's experiment runs
100 steps of 4 input features into 256 hidden ones."""
from __future__ import annotations  # size names in annotations need not exist in Python

import numpy as np

import teml


@teml.transform
def lstm(x: teml.Var[(length, in_feats), "float32"],
         w: teml.Var[(4, in_feats, hidden), "float32"],
         u: teml.Var[(4, hidden, hidden), "float32"],
         b: teml.Var[(4, hidden), "float32"]):
    h = teml.zeros((hidden,), "float32")
    c = teml.zeros((hidden,), "float32")
    for t in range(length):
        # gates 0, 1, 2: forget, input, output; 3: the candidate cell value
        f = teml.empty((4, hidden), "float32")
        for g in range(4):
            for l in range(hidden):
                f[g, l] = b[g, l]
                for j in range(in_feats):
                    f[g, l] += w[g, j, l] * x[t, j]
                for j in range(hidden):
                    f[g, l] += u[g, j, l] * h[j]
        for l in range(hidden):
            c[l] = teml.sigmoid(f[0, l]) * c[l] + teml.sigmoid(f[1, l]) * teml.tanh(f[3, l])
            h[l] = teml.sigmoid(f[2, l]) * teml.tanh(c[l])
    return h, c


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    length, in_feats, hidden = 100, 4, 256
    x = rng.uniform(size=(length, in_feats)).astype(np.float32)
    w = rng.uniform(-0.1, 0.1, (4, in_feats, hidden)).astype(np.float32)
    u = rng.uniform(-0.1, 0.1, (4, hidden, hidden)).astype(np.float32)
    b = rng.uniform(-0.1, 0.1, (4, hidden)).astype(np.float32)
    h, c = lstm(x, w, u, b)
    print("lstm: h", h.shape, "sum", float(h.sum()), "c sum", float(c.sum()))
