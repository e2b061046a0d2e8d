"""teml.load: a TeML, TeIL or .til program as a Python callable."""
import os

import numpy as np

from . import _teml
from ._errors import ProgramError


class Program:
    """A compiled .teml/.teil/.til program. Call it with its input tensors
    (the ones no nest writes), positionally in declaration order or by name;
    it returns the tensors it writes (one array, or a tuple in declaration
    order). `ir()`, `lowered_ir()` and `c_source()` show what it runs."""

    def __init__(self, path, sizes):
        self.path = os.fspath(path)
        try:
            self._program = _teml.LoadedProgram(self.path, {k: int(v) for k, v in sizes.items()})
        except ProgramError as e:
            e.file = self.path
            raise
        self._params = [(n, np.dtype(d), tuple(s), role, init) for n, d, s, role, init in self._program.params()]
        # An inout tensor is passed in and its updated copy returned.
        self.inputs = [n for n, _, _, role, _ in self._params if role in ("input", "inout")]
        self.outputs = [n for n, _, _, role, _ in self._params if role in ("output", "inout")]
        self.threads = None

    def __call__(self, *args, **kwargs):
        if len(args) > len(self.inputs):
            raise TypeError(f"{self.path} takes {len(self.inputs)} inputs ({', '.join(self.inputs)}), not {len(args)}")
        given = dict(zip(self.inputs, args))
        for name, value in kwargs.items():
            if name not in self.inputs:
                raise TypeError(f"{self.path} has no input tensor '{name}' (inputs: {', '.join(self.inputs)})")
            given[name] = value
        buffers, outputs = [], []
        for name, dtype, shape, role, init in self._params:
            if name in self.inputs and name in given:
                a = np.array(given[name], order="C") if role == "inout" else np.ascontiguousarray(given[name])
                if a.dtype != dtype:
                    raise TypeError(f"tensor '{name}' of {self.path} is {dtype}, not {a.dtype}")
                if a.shape != shape:
                    raise ValueError(f"tensor '{name}' of {self.path} has shape {shape}, not {a.shape}")
            elif name in self.inputs:
                raise TypeError(f"{self.path} is missing input tensor '{name}'")
            else:
                a = np.full(shape, init, dtype) if init else np.zeros(shape, dtype)
            if name in self.outputs:
                outputs.append(a)
            buffers.append(a)
        from ._transform import _THREADS
        try:
            self._program.run(buffers, self.threads or _THREADS)
        except ProgramError as e:
            e.file = self.path
            raise
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def ir(self):
        return self._program.ir()

    def lowered_ir(self):
        return self._program.lowered_ir()

    def c_source(self):
        return self._program.c_source()

    def __repr__(self):
        return f"<teml.load {self.path}: ({', '.join(self.inputs)}) -> ({', '.join(self.outputs)})>"


def load(path, **sizes):
    """Compiles a .teml, .teil or .til program with these size parameters (`N=1024`)."""
    return Program(path, sizes)
