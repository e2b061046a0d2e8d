"""@teml.transform: a free-form function compiled by teml's front end and
called on NumPy arrays (or CPU PyTorch tensors) like any Python function."""
import functools
import inspect
import os
import sys
import threading

import numpy as np

from . import _teml
from ._errors import ProgramError
from ._source import parameters, program_text


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


def _as_array(value):
    """A NumPy array for `value`; a CPU PyTorch tensor shares its memory."""
    if type(value).__module__.split(".")[0] == "torch":
        if value.device.type != "cpu":
            raise ValueError(f"teml runs on the CPU; move the tensor there first (it is on {value.device})")
        return value.detach().numpy(), True
    return np.asarray(value), False


def _default_threads():
    env = os.environ.get("OMP_NUM_THREADS", "")
    return int(env) if env.isdigit() and int(env) > 0 else (os.cpu_count() or 1)


class Transform:
    """A compiled free-form function. Call it with its input and inout
    parameters (positionally or by name); it returns its outputs (one array,
    or a tuple) and updates inout parameters in place. It is compiled once
    per combination of input shapes, then kept in memory and in the kernel
    cache. `f.python` is the function itself, which Python runs on NumPy."""

    def __init__(self, fn, check_indices=True):
        functools.update_wrapper(self, fn)
        self.python = fn
        self.check_indices = check_indices
        self.threads = None  # None: OMP_NUM_THREADS, else every core
        self._file = inspect.getsourcefile(fn) or "<program>"
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
            self._text = program_text(full, self.python.__name__)
            self._params = parameters(self._text, self.python.__name__)
        return self._text

    def _sizes(self):
        """Python integers in the function's module: compile-time constants (FreeTensor's style)."""
        return {k: int(v) for k, v in self.python.__globals__.items()
                if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and not k.startswith("_")}

    def _compile(self, shapes):
        key = tuple(sorted((k, tuple(v)) for k, v in shapes.items()))
        with self._lock:
            compiled = self._compiled.get(key)
            if compiled is None:
                try:
                    compiled = _teml.compile_freeform(self._source(), self.python.__name__, self._sizes(),
                                                      {k: list(v) for k, v in shapes.items()}, self.check_indices)
                except ProgramError as e:
                    e.file = self._file
                    raise
                self._compiled[key] = compiled
            self._last = compiled
            return compiled

    # ---- calling
    def __call__(self, *args, **kwargs):
        self._source()
        passed = [name for name, access in self._params if access != "output"]
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
        arrays, torch_in = {}, False
        for name, value in given.items():
            arrays[name], is_torch = _as_array(value)
            torch_in |= is_torch
        compiled = self._compile({n: a.shape for n, a in arrays.items()})
        buffers, outputs = [], []
        for name, dtype, shape, access in compiled.params():
            if access == "output":
                out = np.zeros(shape, np.dtype(dtype))
                outputs.append(out)
                buffers.append(out)
                continue
            a = arrays[name]
            if a.dtype != np.dtype(dtype):
                raise TypeError(f"parameter '{name}' of {self.__name__} is {dtype}, not {a.dtype} "
                                f"(convert it with .astype('{dtype}'))")
            if tuple(a.shape) != tuple(shape):
                raise ValueError(f"parameter '{name}' of {self.__name__} has shape {tuple(shape)}, not {tuple(a.shape)}")
            if access == "inout" and not (a.flags.c_contiguous and a.flags.writeable):
                raise ValueError(f"parameter '{name}' of {self.__name__} is updated in place: it must be a writeable, "
                                 "C-contiguous array (np.ascontiguousarray makes a copy that would not be updated)")
            buffers.append(np.ascontiguousarray(a))
        try:
            compiled.run(buffers, self.threads or _default_threads())
        except ProgramError as e:
            e.file = self._file
            raise
        if torch_in:
            import torch
            outputs = [torch.from_numpy(o) for o in outputs]
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    # ---- inspection
    def ir(self, *args, **kwargs):
        """The loop IR (after the file's schedule) for these arguments, or the last compiled."""
        return self._inspect(args, kwargs).ir()

    def c_source(self, *args, **kwargs):
        """The generated C for these arguments, or the last compiled."""
        return self._inspect(args, kwargs).c_source()

    def _inspect(self, args, kwargs):
        if args or kwargs:
            self._source()
            passed = [n for n, a in self._params if a != "output"]
            given = dict(zip(passed, args), **kwargs)
            return self._compile({n: _as_array(v)[0].shape for n, v in given.items()})
        if self._last is None:
            return self._compile({})
        return self._last

    def __repr__(self):
        self._source()
        params = ", ".join(f"{n}" + ("" if a == "input" else f" ({a})") for n, a in self._params)
        return f"<teml.transform {self.__name__}({params}) from {self._file}, compiled for {len(self._compiled)} shape(s)>"


def transform(fn=None, *, check_indices=True):
    """Decorator: `@teml.transform` or `@teml.transform(check_indices=False)`."""
    if fn is None:
        return lambda f: Transform(f, check_indices)
    return Transform(fn, check_indices)


def schedule(entry):
    """Decorator of a schedule function for `entry` (read by teml from the source; Python leaves it as it is)."""
    return lambda fn: fn


def inline(fn):
    """Decorator of a helper function (every undecorated function is inlined anyway)."""
    return fn
