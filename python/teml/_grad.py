"""teml.grad and teml.torch_function: reverse-mode gradients of a free-form
entry (docs/autodiff.md). The entry as written is differentiated; its
forward pass (filling the tapes the backward pass reads) and its backward
pass are two kernels over one set of buffers: NumPy arrays, or PyTorch
CUDA tensors (the CUDA target, in GPU memory)."""
import threading

import numpy as np

from . import _teml
from ._errors import ProgramError
from ._transform import Transform, _THREADS, _TORCH_DTYPES, _aligned_copy, _aligned_zeros, _as_array, _cuda_interface


class _GradientProgram:
    """One compiled gradient program per combination of input shapes."""

    def __init__(self, f, wrt, of, tapes):
        if not isinstance(f, Transform):
            raise TypeError("teml.grad differentiates a @teml.transform function")
        self.f, self.tapes = f, tapes
        f._source()
        self.wrt = list(wrt) if wrt is not None else None
        self.of = list(of) if of is not None else list(f._outputs)
        for name in self.wrt or []:
            if name not in f._passed:
                raise ValueError(f"wrt: {f.__name__} has no input parameter '{name}' (inputs: {', '.join(f._passed)})")
        for name in self.of:
            if name not in f._outputs:
                raise ValueError(f"of: {f.__name__} has no result '{name}' (results: {', '.join(f._outputs)})")
        self._compiled = {}
        self._lock = threading.Lock()
        self._spare = {}  # (name, dtype, shape) -> buffers of passes that are gone

    def take(self, name, dtype, shape):
        """A buffer a finished pass left (its pages touched already: a fresh
        one pays the first touch of every page, about 2 ms a call for an MLP
        layer's tapes on these machines), or None."""
        with self._lock:
            spare = self._spare.get((name, dtype, shape))
            return spare.pop() if spare else None

    def give_back(self, buffers):
        with self._lock:
            for (name, dtype, shape), buffer in buffers:
                self._spare.setdefault((name, dtype, shape), []).append(buffer)

    def compiled(self, shapes, target):
        key = (target,) + tuple(tuple(shapes[n]) for n in self.f._passed)
        with self._lock:
            entry = self._compiled.get(key)
            if entry is None:
                self.f._check_shapes(shapes)
                wrt = self.wrt if self.wrt is not None else self._float_inputs(shapes)
                try:
                    entry = _teml.compile_gradient(self.f._source(), self.f.python.__name__, self.f._sizes(),
                                                   {k: list(v) for k, v in shapes.items()}, self.f.check_indices,
                                                   wrt, self.of, self.tapes, target=target,
                                                   emulate=self.f.emulate and target == "cuda")
                except ProgramError as e:
                    self.f._locate(e)
                    raise
                entry = self._compiled[key] = (entry, wrt)
        return entry

    def _float_inputs(self, shapes):
        try:
            probe = _teml.compile_freeform(self.f._source(), self.f.python.__name__, self.f._sizes(),
                                           {k: list(v) for k, v in shapes.items()}, self.f.check_indices,
                                           apply_schedules=False, auto_schedule=False)
        except ProgramError as e:
            self.f._locate(e)
            raise
        return [n for n, d, s, a in probe.params() if a != "output" and np.dtype(d).kind == "f"]


# The roles of the buffers the backward call zeroes, and of those it fills,
# before its kernel runs; the forward kernel does not use them, so a taken
# one needs no zeros before the forward call.
_ZEROED_BY_BACKWARD = ("gradient", "adjoint")
_SET_BY_BACKWARD = _ZEROED_BY_BACKWARD + ("weights",)


class _Backward:
    """The backward call over one forward call's buffers; a subclass says how
    its buffers are zeroed, filled and copied out."""

    def backward(self, weights):
        """Gradients of sum(OUT * weight) over `of`, for each of `wrt`."""
        if len(weights) != len(self.of):
            raise TypeError(f"backward takes one weight array per result ({', '.join(self.of)}), not {len(weights)}")
        for name, _, _, role in self.params:
            if role in _ZEROED_BY_BACKWARD:
                self._zero(self.buffers[name])
        names = self.compiled.gradient_of()
        for name, w in zip(self.of, weights):
            self._fill(self.buffers[names[name]], w)
        self._run("backward")
        grads = [self._result(self.buffers[names[x]]) for x in self.wrt]
        return grads[0] if len(grads) == 1 else tuple(grads)


class _Pass(_Backward):
    """The buffers of one forward call (NumPy), kept for its backward call."""

    def __new__(cls, program, args):
        faces = [_cuda_interface(a) if type(a) is not np.ndarray else None for a in args]
        if any(face is not None for face in faces):
            return _DevicePass(program, args, faces)
        return super().__new__(cls)

    def __init__(self, program, args):
        f = program.f
        arrays = [_as_array(a)[0] for a in args]
        self.torch = any(_as_array(a)[1] for a in args)
        compiled, self.wrt = program.compiled({n: a.shape for n, a in zip(f._passed, arrays)}, f.target or "cpu")
        self.compiled, self.of = compiled, program.of
        self.params = [(n, np.dtype(d), tuple(s), role) for n, d, s, role in compiled.params()]
        given = dict(zip(f._passed, arrays))
        self.program, self.buffers = program, {}
        for name, dtype, shape, role in self.params:
            if role in ("input", "inout"):
                a = given[name]
                if a.dtype != dtype or a.shape != shape:
                    raise ValueError(f"parameter '{name}' of {f.__name__} must be {dtype} of shape {shape}, "
                                     f"not {a.dtype} of shape {a.shape}")
            buffer = program.take(name, dtype, shape) if role != "output" else None
            # Every buffer on a cache line's boundary: the kernels' vector loads
            # of a NumPy array's 16-byte start would cross lines.
            if role in ("input", "inout"):  # the backward pass reads these values
                self.buffers[name] = _aligned_copy(a) if buffer is None else buffer
                if buffer is not None:
                    np.copyto(buffer, a)
            elif buffer is None:
                self.buffers[name] = _aligned_zeros(shape, dtype)
            else:
                if role not in _SET_BY_BACKWARD:
                    buffer[...] = 0
                self.buffers[name] = buffer
        self.threads = f.threads or _THREADS
        self._run("forward")
        self.outputs = [self.buffers[n] for n, _, _, role in self.params if role == "output"]

    def _run(self, which):
        self.compiled.run(which, [self.buffers[n] for n, _, _, _ in self.params], self.threads)

    def __del__(self):
        # Every buffer but the outputs (which the caller may hold) is this
        # pass's alone: the next pass of the program takes them.
        program, buffers = getattr(self, "program", None), getattr(self, "buffers", {})
        if program is not None:
            program.give_back([((n, d, s), buffers[n]) for n, d, s, role in self.params
                               if role != "output" and n in buffers])

    def _zero(self, buffer):
        buffer[...] = 0

    def _fill(self, buffer, weight):
        buffer[...] = 1 if weight is None else _as_array(weight)[0]

    def _result(self, buffer):
        if self.torch:
            import torch
            return torch.from_numpy(buffer.copy())
        return buffer.copy()


class _DevicePass(_Backward):
    """The buffers of one forward call on PyTorch CUDA tensors: the CUDA
    target, in GPU memory (no copies to the host), on PyTorch's current
    stream; the inputs are kept (not copied) for the backward call, the
    other buffers are PyTorch tensors on the inputs' device."""

    def __init__(self, program, args, faces):
        f = program.f
        f._check_gpu_call(faces)
        if any(type(a).__module__.split(".")[0] != "torch" for a in args):
            raise TypeError(f"the gradient of {f.__name__} on the GPU keeps its tensors in PyTorch: give PyTorch "
                            "CUDA tensors")
        import torch
        self.torch = torch
        compiled, self.wrt = program.compiled({n: tuple(face["shape"]) for n, face in zip(f._passed, faces)}, "cuda")
        self.compiled, self.of = compiled, program.of
        self.params = [(n, np.dtype(d), tuple(s), role) for n, d, s, role in compiled.params()]
        given = dict(zip(f._passed, args))
        device = args[0].device
        self.stream = torch.cuda.current_stream(device).cuda_stream
        self.buffers = {}
        for name, dtype, shape, role in self.params:
            if role in ("input", "inout"):
                a = given[name]
                f._check_device_array(name, _cuda_interface(a), dtype, shape, role)
                self.buffers[name] = a.detach() if role == "input" else a.detach().clone()
            else:
                self.buffers[name] = torch.zeros(shape, dtype=getattr(torch, _TORCH_DTYPES[dtype.name]), device=device)
        self._run("forward")
        self.outputs = [self.buffers[n] for n, _, _, role in self.params if role == "output"]

    def _run(self, which):
        pointers = [self.buffers[n].data_ptr() for n, _, _, _ in self.params]
        self.compiled.run_device(which, pointers, self.stream)

    def _zero(self, buffer):
        buffer.zero_()

    def _fill(self, buffer, weight):
        buffer.fill_(1) if weight is None else buffer.copy_(weight)

    def _result(self, buffer):
        return buffer.clone()


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
        state.pop("pass", None)  # its buffers go back for this pass to take
        state["pass"] = _Pass(program, args)
        outputs = state["pass"].outputs
        if isinstance(state["pass"], _DevicePass):
            outputs = [o.clone() for o in outputs]
        elif state["pass"].torch:
            import torch
            outputs = [torch.from_numpy(o) for o in outputs]
        return f._results(outputs)

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
            on_gpu = any(x.is_cuda for x in inputs)  # then in GPU memory throughout (the CUDA target)
            ctx.teml_pass = _Pass(program, [x.detach() if on_gpu else x.detach().cpu().numpy() for x in inputs])
            ctx.teml_inputs, ctx.teml_on_gpu = f._passed, on_gpu
            outputs = tuple(o.clone() if on_gpu else torch.from_numpy(o.copy()) for o in ctx.teml_pass.outputs)
            return outputs[0] if len(outputs) == 1 else outputs

        @staticmethod
        def backward(ctx, *grad_outputs):
            p = ctx.teml_pass
            grads = p.backward([g.detach().contiguous() if ctx.teml_on_gpu else g.detach().cpu().numpy()
                                for g in grad_outputs])
            grads = list(grads) if isinstance(grads, tuple) else [grads]
            by_name = dict(zip(p.wrt, grads))
            if not ctx.teml_on_gpu:
                by_name = {n: torch.from_numpy(np.asarray(g)) for n, g in by_name.items()}
            return tuple(by_name.get(n) for n in ctx.teml_inputs)

    def apply(*inputs):
        outputs = Function.apply(*inputs)
        return f._results(list(outputs) if isinstance(outputs, tuple) else [outputs])

    return apply
