"""The Python paths of one program, in a process of their own (a crash there
is the runner's finding, not its end).

    pyworker.py PROGRAM WORKDIR JOB [JOB...]

Jobs: `python` (the transform on NumPy arrays, called again on its outputs as `out=`), `torch` (on PyTorch tensors),
`pygrad:TAPES` (teml.grad), `torchgrad:TAPES` (teml.torch_function in a loss),
`fd` (central finite differences of the compiled forward, float64), `shapes`
(the program with its sizes bound at each call, at three shapes: shapes.py). Inputs
are WORKDIR/in_NAME.npy, gradient weights WORKDIR/w_NAME.npy; results go to
WORKDIR/JOB.NAME.npy. Prints one JSON line as each job starts and one as it
ends: {"job", "status": ok|refused|internal, "message"}.
"""
import importlib.util
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from program import Program  # noqa: E402
import shapes  # noqa: E402

THREADS = 2


def say(**kw):
    print(json.dumps(kw), flush=True)


def load_module(path):
    spec = importlib.util.spec_from_file_location("fuzz_program_%d" % os.getpid(), path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def as_list(r):
    if r is None:
        return []
    return list(r) if isinstance(r, tuple) else [r]


class Worker:
    def __init__(self, path, workdir):
        import teml
        self.teml = teml
        self.prog = Program(path)
        self.workdir = workdir
        self.module = load_module(path)
        self.f = getattr(self.module, self.prog.entry)
        self.f.threads = THREADS
        self.inputs = {p.name: np.load(os.path.join(workdir, f"in_{p.name}.npy")) for p in self.prog.inputs}
        self.problem = self.prog.differentiable

    def save(self, job, name, value):
        np.save(os.path.join(self.workdir, f"{job}.{name}.npy"), np.asarray(value))

    def call(self, f, arrays, torch=False, prog=None):
        """Calls f on copies of the inputs; returns {name: array} of everything written."""
        prog = prog or self.prog
        args = []
        for p in prog.inputs:
            a = arrays[p.name].copy()
            if torch:
                import torch as T
                a = T.from_numpy(a)
            args.append(a)
        outs = as_list(f(*args))
        outputs = [p for p in prog.params if p.access == "output"]
        got = {}
        for p, o in zip(outputs, outs):
            got[p.name] = o.numpy() if hasattr(o, "numpy") else np.asarray(o)
        for p, a in zip(prog.inputs, args):
            if p.access == "inout":
                got[p.name] = a.numpy() if hasattr(a, "numpy") else a
        return got

    def job_python(self, job):
        """Two calls: the second reuses the first's output arrays (`out=`), filled
        with garbage first, so that an output wrongly left unzeroed shows."""
        outputs = [p for p in self.prog.params if p.access == "output"]
        first = as_list(self.f(*[self.inputs[p.name].copy() for p in self.prog.inputs]))
        for o in first:
            o.fill(np.nan if o.dtype.kind == "f" else (1 if o.dtype == bool else 77))
        reused = tuple(first) if len(first) > 1 else (first[0] if first else None)
        args = [self.inputs[p.name].copy() for p in self.prog.inputs]
        outs = as_list(self.f(*args, out=reused) if first else self.f(*args))
        got = {p.name: np.asarray(o) for p, o in zip(outputs, outs)}
        for p, a in zip(self.prog.inputs, args):
            if p.access == "inout":
                got[p.name] = a
        for n, v in got.items():
            self.save(job, n, v)

    def job_torch(self, job):
        for n, v in self.call(self.f, self.inputs, torch=True).items():
            self.save(job, n, v)

    def job_shapes(self, job):
        """The program with its sizes bound at each call (shapes.py) at shapes A, B, A; where the runner
        drew gradient weights, teml.grad of it at the same shapes."""
        f = getattr(load_module(os.path.join(self.workdir, "shapes-sym.py")), self.prog.entry)
        f.threads = THREADS
        for k, tag in enumerate(shapes.CALLS):
            prog = Program(os.path.join(self.workdir, f"shapes-{tag}.py"))
            arrays = {p.name: np.load(os.path.join(self.workdir, f"shapes-{tag}.in_{p.name}.npy")) for p in prog.inputs}
            try:
                got = self.call(f, arrays, prog=prog)
            except self.teml.ProgramError as e:
                with open(os.path.join(self.workdir, f"shapes{k}.refused"), "w") as out:
                    out.write(str(e))
                continue
            for n, v in got.items():
                self.save(f"shapes{k}", n, v)
        if not self.problem or not os.path.exists(os.path.join(self.workdir, f"shapes-A.w_{self.problem[1][0]}.npy")):
            return
        wrt, of = self.problem
        forward, backward = self.teml.grad(f, wrt=wrt, of=of, tapes="auto")
        for k, tag in enumerate(shapes.CALLS):
            prog = Program(os.path.join(self.workdir, f"shapes-{tag}.py"))
            stem = os.path.join(self.workdir, f"shapes-{tag}.")
            try:
                forward(*[np.load(stem + f"in_{p.name}.npy") for p in prog.inputs])
                grads = as_list(backward(*[np.load(stem + f"w_{n}.npy") for n in of]))
            except self.teml.ProgramError as e:
                with open(os.path.join(self.workdir, f"shapes{k}.grad_refused"), "w") as out:
                    out.write(str(e))
                continue
            for n, g in zip(wrt, grads):
                self.save(f"shapes{k}.grad", n, g)

    def weights(self):
        stem = os.environ.get("FUZZ_WEIGHTS", "w_")  # the runner's scaled weights: ws_ (runner.py)
        return {n: np.load(os.path.join(self.workdir, f"{stem}{n}.npy")) for n in self.problem[1]}

    def job_pygrad(self, job, tapes):
        wrt, of = self.problem
        forward, backward = self.teml.grad(self.f, wrt=wrt, of=of, tapes=tapes)
        args = [self.inputs[p.name].copy() for p in self.prog.inputs]
        forward(*args)
        w = self.weights()
        grads = as_list(backward(*[w[n] for n in of]))
        for n, g in zip(wrt, grads):
            self.save(job, n, g)

    def job_torchgrad(self, job, tapes):
        import torch
        wrt, of = self.problem
        g = self.teml.torch_function(self.f, tapes=tapes)
        args = []
        for p in self.prog.inputs:
            t = torch.from_numpy(self.inputs[p.name].copy())
            if p.name in wrt:
                t.requires_grad_(True)
            args.append(t)
        outs = as_list(g(*args))
        outputs = [p.name for p in self.prog.params if p.access == "output"]
        w = self.weights()
        loss = 0
        for name, o in zip(outputs, outs):
            if name in of:
                loss = loss + (o * torch.from_numpy(w[name])).sum()
        loss.backward()
        for p, t in zip(self.prog.inputs, args):
            if p.name in wrt:
                self.save(job, p.name, t.grad.numpy() if t.grad is not None else np.zeros(p.shape))

    def job_fd(self, job):
        """Central differences of L = sum(out * w) at steps 1e-5 and 1e-6, with the
        forward compiled as written; `fd.NAME` the 1e-6 one, `fd_smooth.NAME` where
        both steps agree and, at each, the differences to the left and to the right
        agree (elsewhere a branch or a kink lies within the step: |x| at 0, a tie
        of max, where any value between the one-sided slopes is a derivative).
        Outputs are subtracted before they are summed, so large outputs that do
        not depend on the input do not drown the differences in rounding."""
        wrt, of = self.problem
        f = self.teml.transform(self.f.python, auto=False)
        f.threads = 1
        w = self.weights()

        def outputs(arrays):
            got = self.call(f, arrays)
            return {n: np.asarray(got[n], np.float64) for n in of}

        def change(a, b):  # L(a) - L(b)
            return sum(float(np.sum((a[n] - b[n]) * w[n])) for n in of)

        at = outputs(self.inputs)
        base = sum(float(np.sum(at[n] * w[n])) for n in of)
        # Rounding in the loss's terms, over the step: what a difference cannot resolve.
        magnitude = sum(float(np.sum(np.abs(at[n] * w[n]))) for n in of)

        def noise(step):
            return 1e-14 * (magnitude + 1.0) / step

        rng = np.random.default_rng(11)
        for n in wrt:
            x = self.inputs[n]
            fd = np.zeros(x.shape)
            err = np.zeros(x.shape)
            smooth = np.zeros(x.shape, dtype=bool)
            flat = list(range(x.size))
            if len(flat) > 48:
                flat = sorted(rng.choice(len(flat), 48, replace=False))
            for k in flat:
                vals, one_sided = [], True
                for h in (1e-5, 1e-6):
                    step = h * max(1.0, abs(float(x.flat[k])))
                    arrays = dict(self.inputs)
                    xp = x.copy()
                    xp.flat[k] += step
                    arrays[n] = xp
                    right = change(outputs(arrays), at)
                    xm = x.copy()
                    xm.flat[k] -= step
                    arrays[n] = xm
                    left = change(at, outputs(arrays))
                    central = (right + left) / (2 * step)
                    vals.append(central)
                    one_sided &= abs(right - left) / step <= 1e-2 * (abs(central) + 1.0)
                fd.flat[k] = vals[1]
                # The two steps' difference estimates the error of the finer one (first order
                # where the second derivative jumps, as x * min(0, x) at 0).
                err.flat[k] = abs(vals[0] - vals[1]) + noise(1e-6)
                tol = 1e-6 * (abs(vals[0]) + 1.0) + noise(1e-6)
                measurable = noise(1e-6) <= 1e-4 * (abs(vals[1]) + 1.0)  # outputs of 1e19 hide any slope of 1
                smooth.flat[k] = bool(np.isfinite(vals).all() and abs(vals[0] - vals[1]) <= tol and one_sided
                                      and measurable)
            self.save(job, n, fd)
            self.save("fd_err", n, err)
            self.save("fd_smooth", n, smooth)
        np.save(os.path.join(self.workdir, "fd_loss.npy"), np.asarray(base))


def main():
    path, workdir, jobs = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        w = Worker(path, workdir)
    except Exception as e:  # the module does not load
        say(job="load", status="internal", message=f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
        return
    for job in jobs:
        say(start=job)
        kind, _, tapes = job.partition(":")
        try:
            if tapes:
                getattr(w, "job_" + kind)(job, tapes)
            else:
                getattr(w, "job_" + kind)(job)
            say(job=job, status="ok")
        except w.teml.ProgramError as e:
            say(job=job, status="refused", message=str(e))
        except Exception as e:
            say(job=job, status="internal", message=f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=6)}")


if __name__ == "__main__":
    main()
