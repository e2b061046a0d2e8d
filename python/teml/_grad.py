"""teml.grad and teml.torch_function: reverse-mode gradients of a free-form
entry (docs/autodiff.md). The entry as written is differentiated; its
forward pass (filling the tapes the backward pass reads) and its backward
pass are two kernels over one set of buffers."""
import threading

import numpy as np

from . import _teml
from ._errors import ProgramError
from ._transform import Transform, _THREADS, _as_array


class _GradientProgram:
    """One compiled gradient program per combination of input shapes."""

    def __init__(self, f, wrt, of, tapes):
        if not isinstance(f, Transform):
            raise TypeError("teml.grad differentiates a @teml.transform function")
        self.f, self.tapes = f, tapes
        f._source()
        outputs = [n for n, access in f._params if access == "output"]
        self.wrt = list(wrt) if wrt is not None else None
        self.of = list(of) if of is not None else outputs
        self._compiled = {}
        self._lock = threading.Lock()

    def compiled(self, shapes):
        key = tuple(tuple(shapes[n]) for n in self.f._passed)
        with self._lock:
            entry = self._compiled.get(key)
            if entry is None:
                wrt = self.wrt if self.wrt is not None else self._float_inputs(shapes)
                try:
                    entry = _teml.compile_gradient(self.f._source(), self.f.python.__name__, self.f._sizes(),
                                                   {k: list(v) for k, v in shapes.items()}, self.f.check_indices,
                                                   wrt, self.of, self.tapes)
                except ProgramError as e:
                    self.f._locate(e)
                    raise
                entry = self._compiled[key] = (entry, wrt)
        return entry

    def _float_inputs(self, shapes):
        probe = _teml.compile_freeform(self.f._source(), self.f.python.__name__, self.f._sizes(),
                                       {k: list(v) for k, v in shapes.items()}, self.f.check_indices,
                                       apply_schedules=False, auto_schedule=False)
        return [n for n, d, s, a in probe.params() if a != "output" and np.dtype(d).kind == "f"]


class _Pass:
    """The buffers of one forward call, kept for its backward call."""

    def __init__(self, program, args):
        f = program.f
        arrays = [_as_array(a)[0] for a in args]
        self.torch = any(_as_array(a)[1] for a in args)
        compiled, self.wrt = program.compiled({n: a.shape for n, a in zip(f._passed, arrays)})
        self.compiled, self.of = compiled, program.of
        self.params = [(n, np.dtype(d), tuple(s), role) for n, d, s, role in compiled.params()]
        given = dict(zip(f._passed, arrays))
        self.buffers = {}
        for name, dtype, shape, role in self.params:
            if role in ("input", "inout"):
                a = given[name]
                if a.dtype != dtype or a.shape != shape:
                    raise ValueError(f"parameter '{name}' of {f.__name__} must be {dtype} of shape {shape}, "
                                     f"not {a.dtype} of shape {a.shape}")
                self.buffers[name] = np.array(a, dtype, order="C")  # the backward pass reads these values
            else:
                self.buffers[name] = np.zeros(shape, dtype)
        self.threads = f.threads or _THREADS
        self._run("forward")
        self.outputs = [self.buffers[n] for n, _, _, role in self.params if role == "output"]

    def _run(self, which):
        self.compiled.run(which, [self.buffers[n] for n, _, _, _ in self.params], self.threads)

    def backward(self, weights):
        """Gradients of sum(OUT * weight) over `of`, for each of `wrt`."""
        if len(weights) != len(self.of):
            raise TypeError(f"backward takes one weight array per result ({', '.join(self.of)}), not {len(weights)}")
        for name, _, _, role in self.params:
            if role in ("gradient", "temporary"):
                self.buffers[name][...] = 0
        names = self.compiled.gradient_of()
        for name, w in zip(self.of, weights):
            self.buffers[names[name]][...] = 1 if w is None else _as_array(w)[0]
        self._run("backward")
        grads = [self.buffers[names[x]].copy() for x in self.wrt]
        if self.torch:
            import torch
            grads = [torch.from_numpy(g) for g in grads]
        return grads[0] if len(grads) == 1 else tuple(grads)


def grad(f, wrt=None, of=None, tapes="auto"):
    """Forward and backward callables for a @teml.transform function.
    `forward(*inputs)` returns what f returns and keeps what the backward
    pass needs; `backward(*weights)` (one array per result of `of`, or None
    for ones) returns the gradients of sum(result * weight) with respect to
    each tensor of `wrt` (default: every float input), after the latest
    forward call. `tapes`: "auto", "all" or "none" (docs/autodiff.md)."""
    program = _GradientProgram(f, wrt, of, tapes)
    state = {}

    def forward(*args):
        state["pass"] = _Pass(program, args)
        outputs = state["pass"].outputs
        if state["pass"].torch:
            import torch
            outputs = [torch.from_numpy(o) for o in outputs]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def backward(*weights):
        if "pass" not in state:
            raise RuntimeError("backward() needs a forward() call first")
        return state["pass"].backward(list(weights) if weights else [None] * len(program.of))

    return forward, backward


def torch_function(f, tapes="auto"):
    """A callable that runs f inside PyTorch's autograd: its outputs are
    tensors whose backward runs teml's backward pass, with gradients for
    every float input (FreeTensor's PyTorch integration)."""
    import torch

    program = _GradientProgram(f, None, None, tapes)

    class Function(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            ctx.teml_pass = _Pass(program, [x.detach().cpu().numpy() for x in inputs])
            ctx.teml_inputs = f._passed
            outputs = tuple(torch.from_numpy(o.copy()) for o in ctx.teml_pass.outputs)
            return outputs[0] if len(outputs) == 1 else outputs

        @staticmethod
        def backward(ctx, *grad_outputs):
            p = ctx.teml_pass
            grads = p.backward([g.detach().cpu().numpy() for g in grad_outputs])
            grads = list(grads) if isinstance(grads, tuple) else [grads]
            by_name = dict(zip(p.wrt, grads))
            return tuple(torch.from_numpy(np.asarray(by_name[n])) if n in by_name else None for n in ctx.teml_inputs)

    def apply(*inputs):
        return Function.apply(*inputs)

    return apply
