"""What the runner needs to know of a program's text: its parameters (from
the entry's annotations, sizes evaluated from the module constants), its
`# fuzz:` header, and inputs drawn for it."""
import ast
import json

import numpy as np

ENTRY_DECORATOR = "transform"


class Param:
    def __init__(self, name, shape, dtype, access):
        self.name, self.shape, self.dtype, self.access = name, shape, dtype, access

    @property
    def is_float(self):
        return self.dtype.startswith("float")

    def __repr__(self):
        return f"Param({self.name}, {self.shape}, {self.dtype}, {self.access})"


class Program:
    def __init__(self, path, text=None):
        self.path = path
        self.text = text if text is not None else open(path).read()
        self.header = {}
        for line in self.text.splitlines():
            if line.startswith("# fuzz: "):
                self.header = json.loads(line[len("# fuzz: "):])
                break
        tree = ast.parse(self.text)
        self.constants = {}
        entry = None
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (int, float))):
                self.constants[node.targets[0].id] = node.value.value
            if isinstance(node, ast.FunctionDef) and any(
                    (isinstance(d, ast.Attribute) and d.attr == ENTRY_DECORATOR)
                    or (isinstance(d, ast.Name) and d.id == ENTRY_DECORATOR) for d in node.decorator_list):
                entry = node
        if entry is None:
            raise ValueError(f"{path}: no @teml.transform function")
        self.entry = entry.name
        self.params = []
        for a in entry.args.args:
            sub = a.annotation.slice
            elts = sub.elts if isinstance(sub, ast.Tuple) else [sub]
            shape_node = elts[0]
            dims = shape_node.elts if isinstance(shape_node, ast.Tuple) else [shape_node]
            shape = tuple(int(eval(compile(ast.Expression(d), "<shape>", "eval"), {}, dict(self.constants)))
                          for d in dims)
            dtype = elts[1].value
            access = elts[2].value if len(elts) > 2 else "input"
            self.params.append(Param(a.arg, shape, dtype, access))

    def longest_accumulation(self):
        """The most instances any accumulating statement (`+=` and the like, or `v = f(v, ...)`)
        runs: the product of the trip counts of its enclosing loops, through inlined helpers.
        Recursive summation of n terms is exact to n units of roundoff (Higham's gamma_n), so
        the tolerance of a reordered sum grows with it. A loop bounded by data counts as the
        largest dimension of any parameter."""
        tree = ast.parse(self.text)
        functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
        largest = max([d for p in self.params for d in p.shape] + [1])

        def trips(call):
            args = call.args
            try:
                ends = [int(eval(compile(ast.Expression(a), "<range>", "eval"), {}, dict(self.constants)))
                        for a in args[:2]]
            except Exception:
                return largest
            return max(ends[0] if len(ends) == 1 else ends[1] - ends[0], 1)

        def reads_target(stmt):
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
            if target is None:
                return False
            base = target.value if isinstance(target, ast.Subscript) else target
            return isinstance(base, ast.Name) and any(
                isinstance(n, ast.Name) and n.id == base.id for n in ast.walk(stmt.value))

        def walk(body, count, seen):
            most = 1
            for stmt in body:
                if isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.Call):
                    most = max(most, walk(stmt.body, count * trips(stmt.iter), seen))
                    continue
                if isinstance(stmt, ast.AugAssign) or (isinstance(stmt, ast.Assign) and reads_target(stmt)):
                    most = max(most, count)
                for call in ast.walk(stmt):
                    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                            and call.func.id in functions and call.func.id not in seen):
                        most = max(most, walk(functions[call.func.id].body, count, seen | {call.func.id}))
                for field in ("body", "orelse"):
                    if isinstance(stmt, (ast.If, ast.While, ast.With)) and getattr(stmt, field, None):
                        most = max(most, walk(getattr(stmt, field), count, seen))
            return most

        return walk(functions[self.entry].body, 1, {self.entry})

    def param(self, name):
        return next((p for p in self.params if p.name == name), None)

    @property
    def inputs(self):
        return [p for p in self.params if p.access in ("input", "inout")]

    @property
    def written(self):
        return [p for p in self.params if p.access in ("output", "inout")]

    @property
    def differentiable(self):
        """wrt and of of the gradient problem, restricted to what the text still has."""
        if "wrt" not in self.header:
            return None
        wrt = [n for n in self.header["wrt"] if self.param(n) is not None and self.param(n).access == "input"
               and self.param(n).dtype == "float64"]
        of = [n for n in self.header["of"] if self.param(n) is not None and self.param(n).access == "output"
              and self.param(n).dtype == "float64"]
        if not wrt or not of or any(p.access == "inout" for p in self.params):
            return None
        if any(p.is_float and p.dtype != "float64" for p in self.params):
            return None
        return wrt, of

    def draw_inputs(self, seed):
        """Inputs for every input and inout parameter: data around 0 (so branches go
        both ways), index tensors in range, CSR row pointers nondecreasing."""
        rng = np.random.default_rng(seed)
        roles = self.header.get("inputs", {})
        out = {}
        for p in self.inputs:
            role = roles.get(p.name, {"role": "data"})
            n = int(np.prod(p.shape)) if p.shape else 1
            if role["role"] == "index":
                bound = max(int(self.constants.get(role["bound"], 1)), 1)
                v = rng.integers(0, bound, size=p.shape)
            elif role["role"] == "csr":
                bound = int(self.constants.get(role["bound"], 0))
                cuts = np.sort(rng.integers(0, bound + 1, size=n))
                cuts[0] = 0
                if n > 1 and rng.random() < 0.7:
                    cuts[-1] = bound
                v = cuts.reshape(p.shape)
            elif p.is_float:
                v = rng.standard_normal(p.shape) * rng.choice([0.5, 1.0, 2.0])
                # some exact small values too (ties in min/max, thresholds)
                mask = rng.random(p.shape) < 0.1
                v = np.where(mask, np.round(v * 4) / 4, v)
            else:
                v = rng.integers(-4, 5, size=p.shape)
            out[p.name] = np.ascontiguousarray(np.asarray(v).astype(p.dtype).reshape(p.shape))
        return out

    def draw_weights(self, seed, of):
        rng = np.random.default_rng(seed + 7919)
        return {n: rng.standard_normal(self.param(n).shape).astype("float64") for n in of}
