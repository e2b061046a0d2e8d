"""The part of a Python module that teml's free-form front end reads: the
imports of teml, module-level constants, the entry function, the functions
it calls and the schedules for it. Every other line is blanked, so line
numbers in error messages stay those of the file."""
import ast


def _names_called(node):
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _is_teml_import(node):
    if isinstance(node, ast.Import):
        return all(a.name == "teml" or a.name.startswith("teml.") for a in node.names)
    return isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "teml"


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


def program_text(source, entry):
    """`source` with only what the entry function `entry` needs kept."""
    tree = ast.parse(source)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    keep, todo = set(), [entry]
    while todo:
        name = todo.pop()
        if name in keep or name not in functions:
            continue
        keep.add(name)
        todo.extend(_names_called(functions[name]))
    kept, rewritten = [], {}
    for node in tree.body:
        if isinstance(node, ast.Import) and not _is_teml_import(node) and node.lineno == node.end_lineno:
            # `import numpy as np, teml`: only the teml part, on the same line
            names = [a for a in node.names if a.name == "teml" or a.name.startswith("teml.")]
            if names:
                a = names[0]
                rewritten[node.lineno] = f"import {a.name}" + (f" as {a.asname}" if a.asname else "")
            continue
        if (_is_teml_import(node) or _is_constant(node)
                or (isinstance(node, ast.FunctionDef) and (node.name in keep or _schedules_for(node, entry)))):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            kept.append((first, node.end_lineno))
    lines = source.splitlines()
    out = [""] * len(lines)
    for first, last in kept:
        out[first - 1:last] = lines[first - 1:last]
    for line, text in rewritten.items():
        out[line - 1] = text
    return "\n".join(out) + "\n"


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
