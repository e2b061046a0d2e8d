"""teml.Schedule: a schedule written in Python (FreeTensor's
`ft.optimize(f, schedule_callback=...)`). The callback's calls are recorded
and become a `@teml.schedule` function of the program, so they are checked
exactly like schedules in the file; a refusal is reported at the callback's
line. The primitives, their arguments and the loops each hands back come
from teml's one table of schedule primitives (src/schedule/primitives.cpp):
a primitive without a method of its own below gets a plain one."""
import inspect

from . import _teml

# free-form spelling -> (fewest arguments, most arguments, loops handed back, usage)
_PRIMITIVES = _teml.schedule_primitives()


class Handle:
    """A loop made by a primitive; its id is known when the schedule runs."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<teml loop handle {self.name}>"


class _Keyword:
    """A keyword argument of a primitive, written back as `name=value`."""

    def __init__(self, name, value):
        self.name, self.value = name, value


def _text(value):
    if isinstance(value, _Keyword):
        return f"{value.name}={_text(value.value)}"
    if isinstance(value, Handle):
        return value.name
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return repr(value)
    raise TypeError(f"a schedule takes loop labels (strings), handles and integers, not {value!r}")


class Schedule:
    """The schedule of one transform: call its primitives with loop labels or
    handles (docs/freeform.md, "Schedules")."""

    def __init__(self):
        self.steps = []  # (line of the generated function, file, line of the call)

    def _record(self, method, args):
        least, most, results, usage = _PRIMITIVES.get(method, (0, 0, 0, method + "()"))
        if not least <= len(args) <= most:
            raise TypeError(f"teml.Schedule.{method} takes {usage}")
        caller = inspect.stack()[2]
        names = [f"_h{len(self.steps)}_{k}" for k in range(results)]
        call = f"s.{method}({', '.join(_text(a) for a in args)})"
        self.steps.append((f"    {', '.join(names)} = {call}" if names else f"    {call}", caller.filename, caller.lineno))
        handles = [Handle(n) for n in names]
        return tuple(handles) if len(handles) > 1 else (handles[0] if handles else None)

    def split(self, loop, factor=None, *, nparts=None):
        if (factor is None) == (nparts is None):
            raise TypeError("teml.Schedule.split takes split(loop, factor) or split(loop, nparts=n)")
        if factor is not None:
            return self._record("split", (loop, factor))
        return self._record("split", (loop, _Keyword("nparts", nparts)))

    def reorder(self, loops):
        return self._record("reorder", (list(loops),))

    def interchange(self, a, b):
        return self._record("interchange", (a, b))

    def tile(self, loop, factor):
        return self._record("tile", (loop, factor))

    def merge(self, outer, inner):
        return self._record("merge", (outer, inner))

    def fuse(self, first, second):
        return self._record("fuse", (first, second))

    def fission(self, loop, k):
        return self._record("fission", (loop, k))

    def swap(self, loop, a, b):
        return self._record("swap", (loop, a, b))

    def blend(self, loop):
        return self._record("blend", (loop,))

    def unroll(self, loop, factor=None):
        return self._record("unroll", (loop,) if factor is None else (loop, factor))

    def unroll_and_jam(self, loop, factor):
        return self._record("unroll_and_jam", (loop, factor))

    def parallelize(self, loop, schedule="static"):
        return self._record("parallelize", (loop, schedule))

    def vectorize(self, loop):
        return self._record("vectorize", (loop,))

    def hoist_product(self, loop):
        return self._record("hoist_product", (loop,))

    def factor_sum(self, loop):
        return self._record("factor_sum", (loop,))

    def separate_tail(self, loop):
        return self._record("separate_tail", (loop,))

    def separate_interior(self, loop):
        return self._record("separate_interior", (loop,))

    def skew(self, outer, inner, factor):
        return self._record("skew", (outer, inner, factor))

    def interchange_skewed(self, outer, inner):
        return self._record("interchange_skewed", (outer, inner))

    def as_lib(self, loop):
        return self._record("as_lib", (loop,))

    def cache(self, loop, tensor):
        return self._record("cache", (loop, tensor))

    def cache_reduce(self, loop, tensor):
        return self._record("cache_reduce", (loop, tensor))

    def auto_schedule(self):
        """The automatic schedule (docs/auto-schedule.md) of what the steps before left alone."""
        return self._record("auto_schedule", ())

    def program_text(self, entry, first_line):
        """The schedule as free-form source, starting at line `first_line`."""
        lines = ["import teml as _teml_python_schedule", f"@_teml_python_schedule.schedule({entry})",
                 "def _teml_python_schedule_of(s):"]
        self.first_step_line = first_line + len(lines)
        lines += [text for text, _, _ in self.steps] or ["    pass"]
        return "\n".join(lines) + "\n"

    def locate(self, line):
        """(file, line) of the Python call behind line `line` of the generated function, if any."""
        k = line - self.first_step_line
        if 0 <= k < len(self.steps):
            return self.steps[k][1], self.steps[k][2]
        return None


def _plain_method(spelling, usage):
    def method(self, *args):
        return self._record(spelling, args)
    method.__name__ = spelling
    method.__doc__ = f"s.{usage} (docs/freeform.md, \"Schedules\")"
    return method


for _spelling, (_least, _most, _handles, _usage) in _PRIMITIVES.items():
    if not hasattr(Schedule, _spelling):
        setattr(Schedule, _spelling, _plain_method(_spelling, _usage))
