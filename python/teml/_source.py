"""The part of a Python module that teml's free-form front end reads: the
imports, module-level assignments, the entry function, the functions it
calls and the schedules for it. Every other line is blanked, so line
numbers in error messages stay those of the file. What the front end cannot
compute (an import of NumPy, `a = np.arange(3.0)`) is an error only where a
transform uses it, as for `teml run file.py`."""
import ast
import types

from ._errors import ProgramError


def _names_called(node):
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _is_constant(node):
    return (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, (ast.Constant, ast.UnaryOp, ast.BinOp))
            and all(isinstance(n, (ast.Constant, ast.UnaryOp, ast.BinOp, ast.Name, ast.operator, ast.unaryop, ast.Load))
                    for n in ast.walk(node.value)))


def _schedules_for(node, entry):
    for d in getattr(node, "decorator_list", []):
        if isinstance(d, ast.Call) and any(isinstance(a, ast.Name) and a.id == entry for a in d.args):
            return True
    return False


def program_text(source, entry, called=()):
    """`source` with only what the entry function `entry` needs kept (and
    the module's functions named in `called`, with those they call)."""
    tree = ast.parse(source)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    keep, todo = set(), [entry, *called]
    while todo:
        name = todo.pop()
        if name in keep or name not in functions:
            continue
        keep.add(name)
        todo.extend(_names_called(functions[name]))
    kept = []
    for node in tree.body:
        if (isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign, ast.AugAssign, ast.AnnAssign))
                or (isinstance(node, ast.FunctionDef) and (node.name in keep or _schedules_for(node, entry)))):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            kept.append((first, node.end_lineno))
    lines = source.splitlines()
    out = [""] * len(lines)
    for first, last in kept:
        out[first - 1:last] = lines[first - 1:last]
    return "\n".join(out) + "\n"


def shapes(text, entry):
    """{parameter: its annotation's shape} of `entry`: a list with, per
    dimension, ("int", value), ("name", name) or ("expr", source); None
    where the annotation is not teml.Var[(shape...), ...]."""
    tree = ast.parse(text)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry)
    out = {}
    for a in fn.args.args:
        ann, dims = a.annotation, None
        if isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) >= 2:
            shape = ann.slice.elts[0]
            entries = shape.elts if isinstance(shape, (ast.Tuple, ast.List)) else [shape]
            dims = []
            for e in entries:
                if isinstance(e, ast.Constant) and type(e.value) is int:
                    dims.append(("int", e.value))
                elif isinstance(e, ast.Name):
                    dims.append(("name", e.id))
                else:
                    dims.append(("expr", ast.unparse(e)))
        out[a.arg] = dims
    return out


def returns(text, entry):
    """What `entry` returns at its end, as the front end names it: (form,
    names) with form "one", "tuple" or "dict" (names: the variables, `out` /
    `out0, out1, ...` for other expressions, or the dict's keys), or
    (None, []) when it returns nothing."""
    tree = ast.parse(text)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry)
    found = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None
             and not any(n in ast.walk(inner) for inner in ast.walk(fn)
                         if isinstance(inner, ast.FunctionDef) and inner is not fn)]
    if not found:
        return None, []
    value = found[-1].value
    if isinstance(value, ast.Dict):
        return "dict", [k.value for k in value.keys if isinstance(k, ast.Constant)]
    if isinstance(value, ast.Tuple):
        return "tuple", [e.id if isinstance(e, ast.Name) else f"out{k}" for k, e in enumerate(value.elts)]
    return "one", [value.id if isinstance(value, ast.Name) else "out"]


def assigned_at(source, name):
    """The line of the module's last top-level assignment to `name`, or None."""
    line = None
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and any(
                isinstance(t, ast.Name) and t.id == name for t in targets):
            line = node.lineno
    return line


def parameters(text, entry):
    """(name, access) of each parameter of `entry`, from its annotations."""
    tree = ast.parse(text)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry)
    out = []
    for a in fn.args.args:
        access = "input"
        ann = a.annotation
        if isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) == 3:
            last = ann.slice.elts[2]
            if isinstance(last, ast.Constant) and isinstance(last.value, str):
                access = last.value
        out.append((a.arg, access))
    return out


def _defined_at(tree, name, first_line):
    """The function `name` whose first line (its first decorator's) is `first_line`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            if min([node.lineno] + [d.lineno for d in node.decorator_list]) == first_line:
                return node
    return None


def _names_read(node):
    """Names the function reads that it does not bind itself (parameters,
    assignments), each with its first use."""
    bound = {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
    bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {n.name for n in ast.walk(node) if isinstance(n, ast.FunctionDef) and n is not node}
    uses = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound:
            if n.id not in uses or (n.lineno, n.col_offset) < (uses[n.id].lineno, uses[n.id].col_offset):
                uses[n.id] = n
    return uses


def nested_program_text(source, fn, captured):
    """The program for a function defined inside another (FreeTensor's tests
    define them so): what program_text keeps of the module, the function and
    the functions it calls from the enclosing scope moved to the left margin
    on their own lines, and the enclosing scope's numbers it reads as
    module constants. `captured`: the enclosing scope's names and values.
    Returns the text and, per moved line, the indentation taken off it."""
    tree = ast.parse(source)
    lines = source.splitlines()
    placed, constants, todo, seen, moved = {}, {}, [fn], set(), []
    while todo:
        f = todo.pop()
        node = _defined_at(tree, f.__name__, f.__code__.co_firstlineno)
        if node is None or f.__name__ in seen:
            continue
        seen.add(f.__name__)
        moved.append(node)
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        indent = len(lines[first - 1]) - len(lines[first - 1].lstrip())
        for k in range(first, node.end_lineno + 1):
            placed[k] = lines[k - 1][indent:] if lines[k - 1][:indent].strip() == "" else lines[k - 1].lstrip()
        for name, use in sorted(_names_read(node).items()):
            if name not in captured:
                continue
            value = captured[name]
            if isinstance(value, (bool, int, float)) or (type(value).__module__ == "numpy" and getattr(value, "ndim", 1) == 0):
                constants[name] = value.item() if hasattr(value, "item") else value
            elif isinstance(value, types.FunctionType):
                todo.append(value)
            elif type(value).__name__ == "Transform":  # another @teml.transform: inlined as its function
                todo.append(value.python)
            elif not isinstance(value, types.ModuleType):
                raise ProgramError(use.lineno, use.col_offset + 1,
                                   f"'{name}' is {type(value).__name__} from the function around '{fn.__name__}': "
                                   "a teml program can use numbers and functions from there, not other values")
    calls = set()
    for f in moved:
        calls |= _names_called(f)
    base = program_text(source, "", sorted(calls - seen)).splitlines()
    base += [""] * (len(lines) - len(base))
    for k, text in enumerate(base):  # a module constant the enclosing scope's value hides
        if text and not text[0].isspace() and _is_constant_line(text, constants):
            base[k] = ""
    for k, text in placed.items():
        base[k - 1] = text
    base += [f"{name} = {_literal(value)}" for name, value in constants.items()]
    indents = {k: len(lines[k - 1]) - len(text) for k, text in placed.items()}
    return "\n".join(base) + "\n", indents


def _literal(value):
    if isinstance(value, float) and value != value:
        return 'float("nan")'
    if isinstance(value, float) and value in (float("inf"), -float("inf")):
        return ('-' if value < 0 else '') + 'float("inf")'
    return repr(value)


def _is_constant_line(text, names):
    try:
        node = ast.parse(text).body[0]
    except SyntaxError:
        return False
    return _is_constant(node) and node.targets[0].id in names
