"""@teml.transform: a free-form function compiled by teml's front end and
called on NumPy arrays (or CPU PyTorch tensors) like any Python function."""
import functools
import mmap
import inspect
import os
import sys
import threading

import numpy as np

from . import _teml
from ._errors import ProgramError
from ._schedule import Schedule
from ._source import assigned_at, nested_program_text, parameters, program_text, returns, shapes as annotated_shapes


class Var:
    """A parameter's annotation: teml.Var[(shape...), "dtype"] or
    teml.Var[(shape...), "dtype", "access"]. Size names in the shape need not
    exist in Python when the module starts with `from __future__ import
    annotations` (annotations are then never evaluated)."""

    def __init__(self, shape, dtype, access="input"):
        self.shape, self.dtype, self.access = shape, dtype, access

    def __class_getitem__(cls, item):
        return cls(*item)

    def __repr__(self):
        return f"teml.Var[{self.shape!r}, {self.dtype!r}, {self.access!r}]"


# A cache line: vector loads of an array that starts on one cross no line
# boundary (rows of a whole number of lines; compiled.aligned_copies()).
_VECTOR_ALIGNMENT = 64


def _aligned_copy(a):
    """A copy of `a` that starts on a _VECTOR_ALIGNMENT boundary."""
    raw = np.empty(a.nbytes + _VECTOR_ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % _VECTOR_ALIGNMENT
    copy = raw[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
    np.copyto(copy, a)
    return copy


def _aligned_zeros(shape, dtype):
    """Zeros that start on a _VECTOR_ALIGNMENT boundary (from calloc, as np.zeros)."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    raw = np.zeros(nbytes + _VECTOR_ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % _VECTOR_ALIGNMENT
    return raw[start:start + nbytes].view(dtype).reshape(shape)


def _as_array(value):
    """A NumPy array for `value`; a CPU PyTorch tensor shares its memory."""
    if type(value).__module__.split(".")[0] == "torch":
        if value.device.type != "cpu":
            raise ValueError(f"teml runs on the CPU; move the tensor there first (it is on {value.device})")
        return value.detach().numpy(), True
    return np.asarray(value), False


def _cuda_interface(value):
    """The __cuda_array_interface__ of an array in GPU memory (a PyTorch CUDA
    tensor, CuPy, Numba), else None."""
    try:
        return value.__cuda_array_interface__
    except (AttributeError, RuntimeError):
        return None


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


def _stream_of(interfaces):
    """The stream the arrays' producer named (CUDA Array Interface v3): 1 and
    absent are the legacy default stream (0), 2 the per-thread default."""
    for face in interfaces:
        stream = face.get("stream")
        if stream not in (None, 1):
            return 2 if stream == 2 else int(stream)
    return 0


_TORCH_DTYPES = {"float32": "float32", "float64": "float64", "int32": "int32", "int64": "int64", "bool": "bool"}


def array(value, dtype=None):
    """A copy of `value` in memory that teml's kernels reach fastest: huge
    pages for arrays of 2 MiB or more (fewer TLB misses on gathers; the
    `teml` command keeps its tensors that way too). Use it once for large
    inputs that many calls read."""
    a = np.asarray(value, dtype)
    if a.nbytes < 2 << 20:
        return a.copy()
    memory = mmap.mmap(-1, a.nbytes)
    if hasattr(memory, "madvise") and hasattr(mmap, "MADV_HUGEPAGE"):
        memory.madvise(mmap.MADV_HUGEPAGE)
    out = np.frombuffer(memory, a.dtype).reshape(a.shape)
    out[...] = a
    return out


def _default_threads():
    env = os.environ.get("OMP_NUM_THREADS", "")
    return int(env) if env.isdigit() and int(env) > 0 else (os.cpu_count() or 1)


_THREADS = _default_threads()


class Transform:
    """A compiled free-form function. Call it with its input and inout
    parameters (positionally or by name); it returns its outputs (one array,
    or a tuple) and updates inout parameters in place. It is compiled once
    per combination of input shapes, then kept in memory and in the kernel
    cache. `f.python` is the function itself, which Python runs on NumPy."""

    def __init__(self, fn, check_indices=True, schedule=None, auto=True, target=None, emulate=False):
        if isinstance(fn, Transform):  # teml.transform(f, target="cuda") of a decorated f: its function
            fn = fn.python
        functools.update_wrapper(self, fn)
        self.python = fn
        self.check_indices = check_indices
        if target not in (None, "cpu", "cuda"):
            raise ValueError(f'target must be "cpu" or "cuda", not {target!r}')
        if emulate and target != "cuda":
            raise ValueError('emulate=True runs a GPU program in teml\'s emulator: give target="cuda"')
        self.target = target  # None: the CPU, or the GPU where the arrays are
        self.emulate = emulate
        self.auto = auto  # no schedule: the automatic one (docs/auto-schedule.md); False: as written
        self._schedule = None
        if schedule is not None:  # FreeTensor's schedule_callback: called once, its steps recorded
            self._schedule = Schedule()
            schedule(self._schedule)
        # A function defined inside another reads names of that function's
        # scope: its locals now (sizes computed before the definition) and its
        # closure when compiled.
        self._enclosing = _caller_locals() if "<locals>" in fn.__qualname__ else None
        self.threads = None  # None: OMP_NUM_THREADS, else every core
        self._file = inspect.getsourcefile(fn) or "<program>"
        self._indents = {}  # line -> indentation nested_program_text took off it
        self._text = None
        self._params = None
        self._compiled = {}
        self._last = None
        self._lock = threading.Lock()

    # ---- the program text and its parameters
    def _source(self):
        if self._text is None:
            module = sys.modules.get(self.python.__module__)
            try:
                full = inspect.getsource(module) if module is not None else open(self._file).read()
            except (OSError, TypeError):
                full = open(self._file).read()
            if self._enclosing is None:
                self._text = program_text(full, self.python.__name__)
            else:
                try:
                    self._text, self._indents = nested_program_text(full, self.python, self._captured())
                except ProgramError as e:
                    e.file = self._file
                    raise
            if self._schedule is not None:
                first = self._text.count("\n") + 1
                self._text += self._schedule.program_text(self.python.__name__, first)
            self._params = parameters(self._text, self.python.__name__)
            self._passed = [name for name, access in self._params if access != "output"]
            self._shapes = annotated_shapes(self._text, self.python.__name__)
            self._return_form, returned = returns(self._text, self.python.__name__)
            self._outputs = [name for name, access in self._params if access == "output"] + returned
        return self._text

    def _results(self, outputs):
        """The outputs (in parameter order, the returned ones last) as the
        function gives them back: one, a tuple, or a dict when it returns one."""
        if self._return_form == "dict":
            return dict(zip(self._outputs, outputs))
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _captured(self):
        names = dict(self._enclosing)
        for name, cell in zip(self.python.__code__.co_freevars, self.python.__closure__ or ()):
            try:
                names[name] = cell.cell_contents
            except ValueError:  # not assigned yet
                pass
        return names

    def _sizes(self):
        """Python integers in the function's module: compile-time constants (FreeTensor's style)."""
        hidden = self._captured() if self._enclosing is not None else {}
        return {k: int(v) for k, v in self.python.__globals__.items()
                if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and not k.startswith("_")
                and k not in hidden}

    def _size_origin(self, name):
        """Where a size the module (or the function around) fixes comes from, as words."""
        if self._enclosing is not None and name in self._captured():
            return f"in the function around '{self.__name__}'"
        module = sys.modules.get(self.python.__module__)
        try:
            line = assigned_at(inspect.getsource(module) if module is not None else open(self._file).read(), name)
        except (OSError, TypeError, SyntaxError):
            line = None
        return f"at {self._file}:{line}" if line else f"in module {self.python.__module__}"

    def _check_shapes(self, shapes):
        """The arguments' shapes against the annotations, before compiling: a
        ValueError naming the parameter, its shape and the argument's."""
        known = {}  # size -> (value, where it comes from)
        for name, value in self._sizes().items():
            known[name] = (value, None)
        if self._enclosing is not None:
            for name, value in self._captured().items():
                if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                    known[name] = (int(value), None)
        for name in self._passed:
            dims, given = self._shapes.get(name), shapes.get(name)
            if dims is None or given is None:
                continue
            given = tuple(int(d) for d in given)
            written = "(" + ", ".join(str(v) for _, v in dims) + ("," if len(dims) == 1 else "") + ")"
            if len(dims) != len(given):
                raise ValueError(f"parameter '{name}' of {self.__name__} has shape {written}, {len(dims)} dimension(s); "
                                 f"the argument has shape {given}")
            for d, (kind, value) in enumerate(dims):
                if kind == "int" and value != given[d]:
                    raise ValueError(f"parameter '{name}' of {self.__name__} has shape {written}, not {given}")
                if kind != "name":
                    continue
                if value not in known:
                    known[value] = (given[d], f"from the shape of '{name}'")
                    continue
                size, origin = known[value]
                if size != given[d]:
                    if origin is None:
                        origin = self._size_origin(value)
                    expected = tuple(known[v][0] if k == "name" and v in known else v for k, v in dims)
                    expected = "(" + ", ".join(str(v) for v in expected) + ("," if len(dims) == 1 else "") + ")"
                    raise ValueError(f"parameter '{name}' of {self.__name__} has shape {written} = {expected} "
                                     f"({value} = {size} {origin}), not {given}")

    def _compile(self, shapes, target="cpu"):
        """The program for these input shapes ({name: shape}) and target, with its parameters."""
        key = (target,) + tuple(tuple(shapes[n]) if n in shapes else None for n in self._passed)
        entry = self._compiled.get(key)
        if entry is None:
            self._check_shapes(shapes)
            with self._lock:
                entry = self._compiled.get(key)
                if entry is None:
                    try:
                        compiled = _teml.compile_freeform(self._source(), self.python.__name__, self._sizes(),
                                                          {k: list(v) for k, v in shapes.items()}, self.check_indices,
                                                          auto_schedule=self.auto, target=target,
                                                          emulate=self.emulate and target == "cuda")
                    except ProgramError as e:
                        self._locate(e)
                        raise
                    params = [(n, np.dtype(d), tuple(s), a) for n, d, s, a in compiled.params()]
                    entry = self._compiled[key] = (compiled, params)
        self._last = entry[0]
        return entry

    def _locate(self, error):
        """Where an error points: the file (columns of a function moved to the left margin
        counted where it is written), or the Python call of a schedule step."""
        error.file = self._file
        if error.column and error.line in self._indents:
            error.column += self._indents[error.line]
        where = self._schedule.locate(error.line) if self._schedule is not None else None
        if where:
            error.file, error.line = where
            error.column = 0

    # ---- calling
    def __call__(self, *args, out=None, **kwargs):
        """`out`: arrays to hold the outputs (one, or a tuple), reused from an
        earlier call instead of fresh ones: they are zeroed (unless the program
        stores every element before reading it), filled, returned."""
        if self._text is None:
            self._source()
        passed = self._passed
        if kwargs or len(args) != len(passed):
            args = self._bind(args, kwargs)
        for name, value in zip(passed, args):
            if type(value) is not np.ndarray and getattr(value, "requires_grad", False):
                self._refuse_autograd(name, value)
        interfaces = [_cuda_interface(v) if type(v) is not np.ndarray else None for v in args]
        if any(face is not None for face in interfaces):
            return self._call_on_device(args, interfaces, out)
        arrays, torch_in = [], False
        for value in args:
            if type(value) is not np.ndarray:
                value, is_torch = _as_array(value)
                torch_in |= is_torch
            arrays.append(value)
        compiled, params = self._compile({n: a.shape for n, a in zip(passed, arrays)}, self.target or "cpu")
        buffers, outputs, k = [], [], 0
        reuse = list(out) if isinstance(out, (tuple, list)) else ([] if out is None else [out])
        # Outputs whose every element the program stores before reading it need no zeros first.
        unseen = compiled.written_before_read() if reuse else ()
        realign = compiled.aligned_copies()
        for name, dtype, shape, access in params:
            if access == "output":
                if reuse:
                    given, torch_out = _as_array(reuse.pop(0))
                    if given.dtype != dtype or given.shape != shape or not given.flags.c_contiguous:
                        raise ValueError(f"out= for '{name}' of {self.__name__} must be a C-contiguous {dtype} array "
                                         f"of shape {shape}")
                    if name not in unseen:
                        given.fill(0)
                    y = given
                else:
                    y = np.zeros(shape, dtype)  # calloc: cheaper to start than huge pages for a fresh array
                outputs.append(y)
                buffers.append(y)
                continue
            a = arrays[k]
            k += 1
            if a.dtype != dtype:
                raise TypeError(f"parameter '{name}' of {self.__name__} is {dtype}, not {a.dtype} "
                                f"(convert it with .astype('{dtype}'))")
            if a.shape != shape:
                raise ValueError(f"parameter '{name}' of {self.__name__} has shape {shape}, not {a.shape}")
            if not a.flags.c_contiguous:
                if access == "inout":
                    raise ValueError(f"parameter '{name}' of {self.__name__} is updated in place: it must be a "
                                     "C-contiguous array (np.ascontiguousarray makes a copy that would not be updated)")
                a = np.ascontiguousarray(a)
            if name in realign and a.ctypes.data % _VECTOR_ALIGNMENT:
                a = _aligned_copy(a)
            if access == "inout" and not a.flags.writeable:
                raise ValueError(f"parameter '{name}' of {self.__name__} is updated in place: it must be writeable")
            buffers.append(a)
        try:
            compiled.run(buffers, self.threads or _THREADS)
        except ProgramError as e:
            self._locate(e)
            raise
        if torch_in:
            import torch
            outputs = [torch.from_numpy(o) for o in outputs]
        return self._results(outputs)

    def _refuse_autograd(self, name, value):
        """A PyTorch tensor that requires grad: a plain call would drop its gradient silently."""
        import torch
        if type(value).__module__.split(".")[0] == "torch" and torch.is_grad_enabled():
            raise TypeError(f"parameter '{name}' of {self.__name__} is a PyTorch tensor that requires grad, and a plain "
                            f"transform does not record gradients: use teml.torch_function({self.__name__}) to "
                            f"differentiate through it, or pass {name}.detach() (or call under torch.no_grad())")

    def _call_on_device(self, args, interfaces, out):
        """Arrays in GPU memory: the CUDA target, in place (no copies), on the
        producer's stream; outputs made by PyTorch on the inputs' device."""
        self._check_gpu_call(interfaces)
        compiled, params = self._compile({n: tuple(f["shape"]) for n, f in zip(self._passed, interfaces)}, "cuda")
        torch_like = next((v for v in args if type(v).__module__.split(".")[0] == "torch"), None)
        reuse = list(out) if isinstance(out, (tuple, list)) else ([] if out is None else [out])
        pointers, outputs, k = [], [], 0
        for name, dtype, shape, access in params:
            if access == "output":
                if reuse:
                    y = reuse.pop(0)
                    face = _cuda_interface(y)
                    if face is None:
                        raise ValueError(f"out= for '{name}' of {self.__name__} must be an array in GPU memory")
                    self._check_device_array(name, face, dtype, shape, "output")
                elif torch_like is not None:
                    import torch
                    y = torch.zeros(shape, dtype=getattr(torch, _TORCH_DTYPES[dtype.name]), device=torch_like.device)
                    face = y.__cuda_array_interface__
                else:
                    raise TypeError(f"the output '{name}' of {self.__name__} on the GPU is made by PyTorch: give "
                                    "PyTorch CUDA tensors, or arrays in GPU memory for it with out=")
                outputs.append(y)
                pointers.append(face["data"][0])
                continue
            face = interfaces[k]
            k += 1
            self._check_device_array(name, face, dtype, shape, access)
            pointers.append(face["data"][0])
        if torch_like is not None:
            import torch
            stream = torch.cuda.current_stream(torch_like.device).cuda_stream
        else:
            stream = _stream_of(interfaces)
        try:
            compiled.run_device(pointers, stream)
        except ProgramError as e:
            self._locate(e)
            raise
        return self._results(outputs)

    def _check_gpu_call(self, interfaces):
        """A call (or a gradient's forward pass) on arrays in GPU memory: all of
        them there, and a transform that may run on the GPU."""
        host = [n for n, face in zip(self._passed, interfaces) if face is None]
        if host:
            raise ValueError(f"{self.__name__} is given arrays in GPU memory and arrays on the host ({', '.join(host)}); "
                             "give them all on one device")
        if self.target == "cpu":
            raise ValueError(f'{self.__name__} was made with target="cpu" and is given arrays in GPU memory')
        if self.emulate:
            raise ValueError("the emulator (emulate=True) runs on host arrays: give NumPy arrays or CPU tensors")

    def _check_device_array(self, name, face, dtype, shape, access):
        got = np.dtype(face["typestr"])
        if got != dtype:
            raise TypeError(f"parameter '{name}' of {self.__name__} is {dtype}, not {got}")
        if tuple(face["shape"]) != shape:
            raise ValueError(f"parameter '{name}' of {self.__name__} has shape {shape}, not {tuple(face['shape'])}")
        strides = face.get("strides")
        if strides is not None and tuple(strides) != _c_strides(shape, dtype.itemsize):
            raise ValueError(f"parameter '{name}' of {self.__name__} must be C-contiguous in GPU memory "
                             "(.contiguous() makes a copy that is)")
        if access != "input" and face["data"][1]:
            raise ValueError(f"parameter '{name}' of {self.__name__} is written: its GPU memory must not be read-only")

    def _bind(self, args, kwargs):
        """The arguments in parameter order (inputs and inouts; outputs are returned)."""
        passed = self._passed
        if len(args) > len(passed):
            raise TypeError(f"{self.__name__}() takes {len(passed)} arguments ({', '.join(passed)}), not {len(args)}")
        given = dict(zip(passed, args))
        for name, value in kwargs.items():
            if name not in passed:
                raise TypeError(f"{self.__name__}() has no input parameter '{name}'")
            if name in given:
                raise TypeError(f"{self.__name__}() got parameter '{name}' twice")
            given[name] = value
        missing = [n for n in passed if n not in given]
        if missing:
            raise TypeError(f"{self.__name__}() is missing parameter '{missing[0]}'")
        return [given[n] for n in passed]

    # ---- inspection
    def ir(self, *args, **kwargs):
        """The loop IR (after the file's schedule) for these arguments, or the last compiled."""
        return self._inspect(args, kwargs).ir()

    def lowered_ir(self, *args, **kwargs):
        """The loop IR with the lowering stage's decisions (docs/lowering.md) for these arguments."""
        return self._inspect(args, kwargs).lowered_ir()

    def c_source(self, *args, **kwargs):
        """The generated C for these arguments, or the last compiled."""
        return self._inspect(args, kwargs).c_source()

    def _inspect(self, args, kwargs):
        if args or kwargs:
            self._source()
            given = dict(zip(self._passed, args), **kwargs)
            return self._compile({n: _as_array(v)[0].shape for n, v in given.items()})[0]
        if self._last is None:
            self._source()
            return self._compile({})[0]
        return self._last

    def __repr__(self):
        self._source()
        params = ", ".join(f"{n}" + ("" if a == "input" else f" ({a})") for n, a in self._params)
        return f"<teml.transform {self.__name__}({params}) from {self._file}, compiled for {len(self._compiled)} shape(s)>"


def _caller_locals():
    """The local names of the first caller outside the teml package."""
    frame = inspect.currentframe()
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "teml":
        frame = frame.f_back
    return dict(frame.f_locals) if frame is not None else {}


def transform(fn=None, *, check_indices=True, schedule=None, auto=True, target=None, emulate=False):
    """Decorator: `@teml.transform`, or `@teml.transform(check_indices=False,
    schedule=callback, auto=False, target="cuda")`; `callback(s)` gets a
    teml.Schedule (FreeTensor's `ft.optimize(f, schedule_callback=...)`);
    without a schedule the function is scheduled automatically unless
    `auto=False`. `target`: None runs on the CPU, or on the GPU when given
    arrays in GPU memory (PyTorch CUDA tensors, in place); "cuda" also
    copies NumPy arrays to the GPU and back; `emulate=True` (with "cuda")
    runs in teml's GPU emulator instead (docs/cuda.md)."""
    if fn is None:
        return lambda f: Transform(f, check_indices, schedule, auto, target, emulate)
    return Transform(fn, check_indices, schedule, auto, target, emulate)


def schedule(entry, target=None):
    """Decorator of a schedule function for `entry` (read by teml from the
    source; Python leaves it as it is); `target="cpu"` or `"cuda"`: for that
    target only, instead of the one for every target."""
    if target not in (None, "cpu", "cuda"):
        raise ValueError(f'target must be "cpu" or "cuda", not {target!r}')
    return lambda fn: fn


def inline(fn):
    """Decorator of a helper function (every undecorated function is inlined anyway)."""
    return fn
