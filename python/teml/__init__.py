"""teml from Python: free-form tensor programs (FreeTensor's language) that
run compiled. docs/python.md."""
from ._errors import DeviceUnavailable, ProgramError
from ._numpy import ceil, cos, empty, exp, floor, full, log, ones, result_type, sigmoid, sin, sqrt, tanh, zeros
from ._transform import Transform, Var, array, inline, schedule, transform
from ._load import Program, load
from ._schedule import Handle, Schedule
from ._grad import grad, torch_function
from . import libop

__all__ = ["DeviceUnavailable", "grad", "torch_function", "ProgramError", "Program", "load", "Schedule", "Handle", "Transform", "Var", "array", "transform", "schedule", "inline", "libop", "zeros", "ones", "empty",
           "full", "exp", "log", "sqrt", "tanh", "sigmoid", "sin", "cos", "floor", "ceil", "result_type"]
