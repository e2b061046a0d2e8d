"""Random free-form programs (docs/freeform.md) from a small grammar, seeded.

    /usr/bin/python3 tests/fuzz/generator.py SEED [-o FILE]

The program is one `.py` file with one `@teml.transform` entry `f`. Its first
line is a header comment, `# fuzz: {json}`, that the runner reads (and the
reducer keeps): how to draw each input (`data`, `index` into a size, `csr`
row pointers over a size), the gradient problem (`wrt`, `of`) when the
program is differentiable, and the features it uses. Sizes are module
constants (`N = 9`), so the reducer can shrink them and the inputs follow.

The grammar (one function per nonterminal below; weights in the choices):

    program  := sizes helper? entry
    block    := stmt+                      (1-3 statements, fewer when deep)
    stmt     := for | csr_for | if | local_scalar | local_row | running_max
              | assign | helper_assign
    for      := 'for' v 'in range(' SIZE ')' ':' block
    csr_for  := 'for' k 'in range(ptr[r], ptr[r + 1])' ':' block   (r over R in scope)
    if       := 'if' cond ':' block ('elif' cond ':' block)? ('else' ':' block)?
    cond     := cmp | cmp ('and' | 'or') cmp
    cmp      := expr ('<' | '>' | '<=' | '>=') const
    assign   := place ('=' | '+=' | '-=' | '*=' factor | '/=' divisor) expr
    place    := out[index...] | local[()] | row[j] | out[idx[j]] (scatter)
    expr     := load | const | local | unary(expr) | expr binop expr
              | min/max(expr, expr) | abs(expr) | expr if cond else expr
    load     := tensor[index...]     index := iterator | idx[iterator] | 0 | SIZE - 1

Every index is in range by construction (an iterator over the dimension's
size, a gather through an index tensor whose values lie in that size, or a
constant), so no run stops at a run-time check. Values stay tame: exp of
min(e, 3), sqrt(e * e + 1), division by abs(e) + 1, products in `*=` of
factors in [0.8, 1]; integer programs add, subtract, take min/max/abs,
`// 3` and `% 5`, and multiply only small leaves.
"""
import argparse
import json
import random

SIZE_CHOICES = {
    "N": [1, 7, 8, 9, 16, 17, 33, 65],
    "M": [1, 3, 4, 8, 9],
    "K": [1, 5, 8, 9, 33],
    "R": [1, 3, 8, 9],
    "E": [0, 1, 8, 17, 40],
}
DTYPES = [("float64", 45), ("float32", 25), ("int32", 15), ("int64", 15)]


def pick(rng, weighted):
    total = sum(w for _, w in weighted)
    r = rng.uniform(0, total)
    for item, w in weighted:
        r -= w
        if r <= 0:
            return item
    return weighted[-1][0]


class Tensor:
    def __init__(self, name, dims, dtype, access, role="data", bound=None):
        self.name, self.dims, self.dtype, self.access, self.role, self.bound = name, dims, dtype, access, role, bound


class Scope:
    """What a statement can see: iterators (name -> size name), locals."""

    def __init__(self, iters=(), scalars=(), rows=(), csr_rows=()):
        self.iters = list(iters)  # (name, size)
        self.scalars = list(scalars)  # local 0-d tensors
        self.rows = list(rows)  # local (M,) tensors
        self.csr_rows = list(csr_rows)  # iterators over R (rows of ptr)

    def child(self):
        return Scope(self.iters, self.scalars, self.rows, self.csr_rows)


class Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.uses = set()
        self.lines = []
        self.counter = 0
        self.statements = 0
        self.max_statements = self.rng.choice([6, 9, 12, 16])

    # ---- names and small helpers -------------------------------------------------
    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def use(self, feature):
        self.uses.add(feature)

    @property
    def is_float(self):
        return self.dtype.startswith("float")

    def const(self, small=False):
        if self.is_float:
            return self.rng.choice(["0.5", "2.0", "-1.5", "0.25", "1.0", "-0.75", "3.0"])
        return self.rng.choice(["1", "2", "-3", "5"] if not small else ["1", "2", "-1"])

    def threshold(self):
        if self.is_float:
            return self.rng.choice(["0.1", "-0.3", "0.45", "1.2", "-0.05"])
        return self.rng.choice(["0", "1", "-2", "3"])

    # ---- the program ---------------------------------------------------------------
    def program(self):
        rng = self.rng
        self.dtype = pick(rng, DTYPES)
        self.use(self.dtype)
        self.sizes = {k: rng.choice(v) for k, v in SIZE_CHOICES.items()}
        idx_dtype = rng.choice(["int32", "int32", "int64"])
        t = [Tensor("x", ["N"], self.dtype, "input")]
        if rng.random() < 0.5:
            t.append(Tensor("A", ["N", "M"], self.dtype, "input"))
        if rng.random() < 0.4:
            t.append(Tensor("w", ["M"], self.dtype, "input"))
        if rng.random() < 0.5:
            t.append(Tensor("idx", ["K"], idx_dtype, "input", "index", "N"))
        if rng.random() < 0.4:
            t.append(Tensor("ptr", ["R + 1"], "int32", "input", "csr", "E"))
            t.append(Tensor("col", ["E"], idx_dtype, "input", "index", "N"))
            t.append(Tensor("val", ["E"], self.dtype, "input"))
        t.append(Tensor("y", ["N"], self.dtype, "output"))
        if any(x.name == "A" for x in t) or rng.random() < 0.3:
            t.append(Tensor("Y", ["N", "M"], self.dtype, "output"))
        if rng.random() < 0.6:
            t.append(Tensor("s", [], self.dtype, "output"))
        self.differentiable = self.dtype == "float64"
        if not self.differentiable and rng.random() < 0.3:
            t.append(Tensor("z", ["N"], self.dtype, "inout"))
        self.tensors = t
        used_sizes = sorted({d.split()[0] for x in t for d in x.dims} | {x.bound for x in t if x.bound})
        self.helper = None
        if self.is_float and rng.random() < 0.45:
            self.helper = self.helper_function()
        body = []
        self.indent = 1
        scope = Scope()
        n = rng.randint(1, 3)
        out = []
        for _ in range(n):
            out += self.stmt(scope, 0, top=True)
        # every output is written somewhere (else it is a constant zero)
        for x in t:
            if x.access != "input" and not any(f"{x.name}[" in line for line in out):
                out += self.cover(x)
        body = out
        lines = []
        header = {
            "seed": self.seed,
            "inputs": {x.name: ({"role": x.role, "bound": x.bound} if x.role != "data" else {"role": "data"})
                       for x in t if x.access != "output"},
            "uses": sorted(self.uses),
        }
        if self.differentiable:
            header["wrt"] = [x.name for x in t if x.access == "input" and x.role == "data"]
            header["of"] = [x.name for x in t if x.access == "output"]
        lines.append("# fuzz: " + json.dumps(header, sort_keys=True))
        lines.append("import teml")
        for s in used_sizes:
            lines.append(f"{s} = {self.sizes[s]}")
        if self.helper:
            lines += [""] + self.helper
        params = []
        for x in t:
            shape = "(" + ", ".join(x.dims) + ("," if len(x.dims) == 1 else "") + ")"
            acc = "" if x.access == "input" else f", '{x.access}'"
            params.append(f"{x.name}: teml.Var[{shape}, '{x.dtype}'{acc}]")
        lines += ["", "@teml.transform", "def f(" + ", ".join(params) + "):"]
        lines += body
        return "\n".join(lines) + "\n"

    def cover(self, x):
        """A loop writing output x from the inputs (so each output is written)."""
        pad = "    "
        if not x.dims:
            return [pad + "for c0 in range(N):", pad * 2 + f"s[()] += {self.expr(Scope([('c0', 'N')]), 1)}"]
        scope = Scope([("c0", "N")])
        lines = [pad + "for c0 in range(N):"]
        if len(x.dims) == 2:
            scope = Scope([("c0", "N"), ("c1", "M")])
            lines.append(pad * 2 + "for c1 in range(M):")
            return lines + [pad * 3 + f"{x.name}[c0, c1] = {self.expr(scope, 1)}"]
        return lines + [pad * 2 + f"{x.name}[c0] = {self.expr(scope, 1)}"]

    # ---- helper functions ------------------------------------------------------------
    def helper_function(self):
        self.use("helper")
        saved_tensors = getattr(self, "tensors", [])
        self.in_helper = True
        scope = Scope()
        scope.params = ["a", "b"]
        t = "t"
        lines = ["def h0(a, b):", f"    {t} = teml.{self.rng.choice(['empty', 'zeros'])}((), '{self.dtype}')"]
        branches = self.rng.choice([1, 2, 3])
        self.use("helper_branches%d" % branches)
        conds = [self.helper_cond(), self.helper_cond()]
        lines.append(f"    if {conds[0]}:")
        lines.append(f"        {t}[()] = {self.helper_expr(2)}")
        if branches >= 3:
            lines.append(f"    elif {conds[1]}:")
            lines.append(f"        {t}[()] = {self.helper_expr(2)}")
        lines.append("    else:")
        lines.append(f"        {t}[()] = {self.helper_expr(2)}")
        lines.append(f"    return {t}[()]")
        self.in_helper = False
        return lines

    def helper_leaf(self):
        return self.rng.choice(["a", "b", "a", "b", self.const()])

    def helper_expr(self, depth):
        if depth <= 0 or self.rng.random() < 0.3:
            return self.helper_leaf()
        return self.combine(lambda: self.helper_expr(depth - 1), depth)

    def helper_cond(self):
        c = f"{self.helper_expr(1)} > {self.threshold()}"
        if self.rng.random() < 0.5:
            op = self.rng.choice(["and", "or"])
            self.use(op)
            c = f"{c} {op} {self.helper_expr(1)} < {self.threshold()}"
        return c

    # ---- statements ------------------------------------------------------------------------
    def block(self, scope, depth):
        out = []
        n = self.rng.randint(1, 3 if depth < 2 else 2)
        for _ in range(n):
            if self.statements >= self.max_statements and out:
                break
            out += self.stmt(scope, depth)
        return out

    def pad(self, depth):
        return "    " * (depth + 1)

    def label(self, depth, iterator):
        """`#! label: L<iterator>` before a loop: schedules (the `sched` path) name loops by it."""
        return self.pad(depth) + f"#! label: L{iterator}"

    def sizes_present(self):
        s = {d for x in self.tensors for d in x.dims if " " not in d}
        return sorted(s)

    def stmt(self, scope, depth, top=False):
        self.statements += 1
        rng = self.rng
        choices = [("for", 6 if depth < 3 else 0), ("assign", 4 if scope.iters or rng.random() < 0.3 else 1),
                   ("if", 3 if depth < 4 else 0), ("local_scalar", 2 if depth < 4 else 0),
                   ("local_row", 1 if depth < 2 and "M" in self.sizes_present() else 0),
                   ("running_max", 2 if depth < 3 else 0)]
        if scope.csr_rows and depth < 4:
            choices.append(("csr_for", 4))
        if self.helper:
            choices.append(("helper_assign", 3))
        if top:
            choices = [("for", 8), ("local_scalar", 1), ("assign", 1)]
        if self.statements > self.max_statements:
            choices = [("assign", 1)]
        kind = pick(rng, choices)
        return getattr(self, "s_" + kind)(scope, depth)

    def s_for(self, scope, depth):
        self.use("loop")
        sizes = self.sizes_present()
        if any(x.role == "csr" for x in self.tensors):
            sizes = sizes + ["R", "R"]
        if any(x.role == "index" and x.bound == "N" and x.dims == ["K"] for x in self.tensors):
            sizes = sizes + ["K"]
        size = self.rng.choice(sizes)
        v = self.fresh("i")
        inner = scope.child()
        inner.iters.append((v, size))
        if size == "R":
            inner.csr_rows.append(v)
        lines = [self.label(depth, v), self.pad(depth) + f"for {v} in range({size}):"]
        return lines + self.block(inner, depth + 1)

    def s_csr_for(self, scope, depth):
        self.use("csr_loop")
        r = self.rng.choice(scope.csr_rows)
        k = self.fresh("k")
        inner = scope.child()
        inner.iters.append((k, "E"))
        lines = [self.label(depth, k), self.pad(depth) + f"for {k} in range(ptr[{r}], ptr[{r} + 1]):"]
        return lines + self.block(inner, depth + 1)

    def s_if(self, scope, depth):
        self.use("if")
        lines = [self.pad(depth) + f"if {self.cond(scope)}:"] + self.block(scope.child(), depth + 1)
        if self.rng.random() < 0.35:
            self.use("elif")
            lines += [self.pad(depth) + f"elif {self.cond(scope)}:"] + self.block(scope.child(), depth + 1)
        if self.rng.random() < 0.6:
            self.use("else")
            lines += [self.pad(depth) + "else:"] + self.block(scope.child(), depth + 1)
        return lines

    def s_local_scalar(self, scope, depth):
        self.use("local_scalar")
        t = self.fresh("t")
        ctor = self.rng.choice(["zeros", "empty"])
        lines = [self.pad(depth) + f"{t} = teml.{ctor}((), '{self.dtype}')"]
        lines.append(self.pad(depth) + f"{t}[()] = {self.expr(scope, 2)}")
        scope.scalars.append(t)
        # a statement or two that use it, in this block
        if self.rng.random() < 0.5:
            lines += self.s_assign(scope, depth, target=(t, []))
        return lines

    def s_local_row(self, scope, depth):
        self.use("local_row")
        r = self.fresh("r")
        lines = [self.pad(depth) + f"{r} = teml.zeros((M,), '{self.dtype}')"]
        j = self.fresh("j")
        inner = scope.child()
        inner.iters.append((j, "M"))
        op = self.rng.choice(["=", "+="])
        lines += [self.label(depth, j), self.pad(depth) + f"for {j} in range(M):",
                  self.pad(depth + 1) + f"{r}[{j}] {op} {self.expr(inner, 2)}"]
        scope.rows.append(r)
        return lines

    def s_running_max(self, scope, depth):
        self.use("running_max")
        m = self.fresh("m")
        start = "-100.0" if self.is_float else "-1000"
        fn = self.rng.choice(["max", "max", "min"])
        if fn == "min":
            start = start[1:]
        lines = [self.pad(depth) + f"{m} = teml.full((), {start}, '{self.dtype}')"]
        size = self.rng.choice(self.sizes_present())
        v = self.fresh("i")
        inner = scope.child()
        inner.iters.append((v, size))
        lines += [self.label(depth, v), self.pad(depth) + f"for {v} in range({size}):",
                  self.pad(depth + 1) + f"{m}[()] = {fn}({m}[()], {self.expr(inner, 2)})"]
        scope.scalars.append(m)
        lines += self.s_assign(scope, depth)
        return lines

    def s_helper_assign(self, scope, depth):
        self.use("helper_call")
        call = f"h0({self.expr(scope, 1)}, {self.expr(scope, 1)})"
        return self.s_assign(scope, depth, value=call)

    def targets(self, scope):
        out = []
        for x in self.tensors:
            if x.access == "input":
                continue
            idx = self.indices(x, scope, write=True)
            if idx is not None:
                out.append((x.name, idx))
        for t in scope.scalars:
            out.append((t, []))
        for r in scope.rows:
            for v, s in scope.iters:
                if s == "M":
                    out.append((r, [v]))
        return out

    def s_assign(self, scope, depth, target=None, value=None):
        rng = self.rng
        if target is None:
            ts = self.targets(scope)
            target = rng.choice(ts)
        name, idx = target
        place = f"{name}[{', '.join(idx) if idx else '()'}]"
        value = value or self.expr(scope, 3)
        op = pick(rng, [("=", 5), ("+=", 5), ("-=", 1), ("*=", 1), ("/=", 1 if self.is_float else 0),
                        ("max", 1)])
        self.use("assign" + op)
        if op == "*=":
            value = f"(0.9 + 0.1 * teml.tanh({value}))" if self.is_float else rng.choice(["-1", "1"])
        elif op == "/=":
            value = f"(abs({value}) + 1.0)"
        elif op == "max":
            fn = rng.choice(["max", "min"])
            return [self.pad(depth) + f"{place} = {fn}({place}, {value})"]
        return [self.pad(depth) + f"{place} {op} {value}"]

    # ---- indices, loads, expressions ---------------------------------------------------
    def index_for(self, size, scope, write=False):
        """An index expression valid for a dimension of `size`, or None."""
        rng = self.rng
        iters = [v for v, s in scope.iters if s == size]
        options = []
        if iters:
            options.append((rng.choice(iters), 6))
        gathers = [x for x in self.tensors if x.role == "index" and x.bound == size]
        for g in gathers:
            gi = [v for v, s in scope.iters if s == g.dims[0]]
            if gi:
                options.append((f"{g.name}[{rng.choice(gi)}]", 3))
        if not write or not options:
            options.append(("0", 1))
            options.append((f"{size} - 1", 1))
        choice = pick(rng, options)
        if "[" in choice:
            self.use("scatter" if write else "gather")
        return choice

    def indices(self, x, scope, write=False):
        if self.sizes.get(x.dims[0] if x.dims else "N", 1) == 0 and x.dims:
            return None
        idx = []
        for d in x.dims:
            if self.sizes.get(d, 1) == 0:
                return None
            idx.append(self.index_for(d, scope, write))
        if write and x.dims and all(i in ("0", f"{d} - 1") for i, d in zip(idx, x.dims)) and scope.iters:
            # prefer a write that moves with the loops
            pass
        return idx

    def load(self, scope):
        rng = self.rng
        cands = [x for x in self.tensors if x.role == "data" and x.dtype == self.dtype]
        opts = []
        for x in cands:
            idx = self.indices(x, scope)
            if idx is not None:
                opts.append(f"{x.name}[{', '.join(idx) if idx else '()'}]")
        for t in scope.scalars:
            opts.append(f"{t}[()]")
        for r in scope.rows:
            for v, s in scope.iters:
                if s == "M":
                    opts.append(f"{r}[{v}]")
        if not opts:
            return self.const()
        return rng.choice(opts)

    def leaf(self, scope):
        r = self.rng.random()
        if r < 0.75:
            return self.load(scope)
        if r < 0.85 and scope.iters:
            v = self.rng.choice(scope.iters)[0]
            self.use("iterator_value")
            return f"float({v})" if self.is_float else v
        return self.const()

    def expr(self, scope, depth):
        if depth <= 0 or self.rng.random() < 0.25:
            return self.leaf(scope)
        return self.combine(lambda: self.expr(scope, depth - 1), depth, scope)

    def combine(self, sub, depth, scope=None):
        rng = self.rng
        if self.is_float:
            ops = [("bin", 6), ("exp", 1), ("sqrt", 1), ("sigmoid", 1), ("tanh", 1), ("abs", 1), ("minmax", 2),
                   ("div", 1), ("select", 1 if scope is not None else 0)]
        else:
            ops = [("bin", 6), ("abs", 1), ("minmax", 2), ("floordiv", 1), ("mod", 1),
                   ("select", 1 if scope is not None else 0)]
        op = pick(rng, ops)
        self.use(op if op not in ("bin",) else "arith")
        if op == "bin":
            o = rng.choice(["+", "-", "*"] if self.is_float else ["+", "-", "+", "-", "*"])
            a, b = sub(), sub()
            if o == "*" and not self.is_float:
                b = self.const(small=True)
            return f"({a} {o} {b})"
        if op == "exp":
            return f"teml.exp(min({sub()}, 3.0))"
        if op == "sqrt":
            e = sub()
            return f"teml.sqrt({e} * {e} + 1.0)"
        if op in ("sigmoid", "tanh"):
            return f"teml.{op}({sub()})"
        if op == "abs":
            return f"abs({sub()})"
        if op == "minmax":
            return f"{rng.choice(['min', 'max'])}({sub()}, {sub()})"
        if op == "div":
            return f"({sub()} / (abs({sub()}) + 1.0))"
        if op == "floordiv":
            return f"({sub()} // 3)"
        if op == "mod":
            return f"({sub()} % 5)"
        if op == "select":
            return f"({sub()} if {self.cond(scope, simple=True)} else {sub()})"
        raise AssertionError(op)

    def cond(self, scope, simple=False):
        rng = self.rng
        c = f"{self.expr(scope, 1)} {rng.choice(['<', '>', '<=', '>='])} {self.threshold()}"
        if not simple and rng.random() < 0.5:
            op = rng.choice(["and", "or"])
            self.use(op)
            c = f"{c} {op} {self.expr(scope, 1)} {rng.choice(['<', '>'])} {self.threshold()}"
        return c


def generate(seed):
    """The text of program `seed`."""
    return Generator(seed).program()


def header(text):
    """The `# fuzz: {...}` header of a program's text."""
    for line in text.splitlines():
        if line.startswith("# fuzz: "):
            return json.loads(line[len("# fuzz: "):])
    return {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    text = generate(a.seed)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
