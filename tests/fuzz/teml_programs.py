"""Random TeML programs (docs/teml.md) with random TeML schedules: the `teml` path.

    /usr/bin/python3 tests/fuzz/teml_programs.py SEED [--plain]   # prints program SEED (--plain: no steps)
    /usr/bin/python3 tests/fuzz/teml_programs.py SEED --run        # runs the path, prints the result

The grammar (ideas from tests/random_schedules_test.cpp's templates and
tests/random_teil_programs.hpp, drawn instead of listed):

    program   := sizes stmt+ nests codegen
    stmt      := contract | shift | stencil | recurrence | accumulate3
               | transpose | outer | entrywise | chain | scaled
    operand   := an earlier result of the shape wanted | a new tensor([...])
                 (double, or float one time in five)
    nests     := l_k = build(result_k), then 0-4 steps on each:
    step      := stripmine(l, lv, f) | interchange(l, lv, lv) | tile(l, f)
               | unroll(l, lv, f) | unroll_and_jam(l, lv, f) | parallelize(l, lv)
               | vectorize(l, lv) | skew(l, lv, lv, f) | merge(l, lv)
               | separate_tail(l, lv) | fission(l, lv, 1) | blend(l, lv)
               | local(l, lv, T) | cache(l, lv, T) | cache_reduce(l, lv, T)
               | reorder(l, [iterators]) | fuse_outer(l, next nest, lv)

Sizes N, M, K are drawn on both sides of the vector width and tile
factors. The path: the unscheduled program (the same statements and builds,
no steps) under `--interp` is the reference; the scheduled one runs compiled
with `--verify`; both with `--random 1`, every written tensor compared. A
refused step (exit 1 at its line) is dropped and the rest tried again.
"""
import argparse
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SIZES = {"N": [1, 2, 3, 5, 7, 8, 9, 16, 17], "M": [1, 2, 4, 5, 8, 9, 12], "K": [1, 3, 4, 7, 8, 9]}
ATTEMPTS = 8


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed * 1000003 + 5)
        self.seed = seed
        self.decls = []       # declaration lines
        self.stmts = []       # expression lines
        self.shapes = {}      # tensor -> shape (list of size expressions)
        self.written = []     # (tensor, depth) built into nests
        self.k = 0

    def fresh(self, p):
        self.k += 1
        return f"{p}{self.k}"

    def dim(self):
        return self.rng.choice(["N", "M", "K"])

    def declare(self, name, shape, elem=None):
        elem = elem if elem is not None else ("float, " if self.rng.random() < 0.2 else "")
        self.decls.append(f"{name} = tensor({elem}[{', '.join(shape)}])" if shape else f"{name} = scalar()")
        self.shapes[name] = list(shape)
        return name

    def operand(self, shape, avoid=()):
        have = [t for t, s in self.shapes.items() if s == list(shape) and t not in avoid]
        if have and self.rng.random() < 0.5:
            return self.rng.choice(have)
        return self.declare(self.fresh("in"), shape)

    def result(self, depth, name, shape=None, declare=True):
        if declare and shape is not None:
            self.declare(name, shape, "")
        elif shape is not None:
            self.shapes[name] = list(shape)
        self.written.append((name, depth))
        return name

    # ---- statements --------------------------------------------------------------------
    def s_contract(self):
        a, b, c = self.dim(), self.dim(), self.dim()
        A, B = self.operand([a, b]), self.operand([b, c])
        C = self.fresh("C")
        self.stmts.append(f"{C} = contract({A}, {B}, [2, 1])")
        self.result(3, C, [a, c], declare=False)

    def s_shift(self):
        a, b = self.dim(), self.dim()
        src = self.declare(self.fresh("a"), [f"{a} + 2", b])
        B = self.operand([a, b])
        t, r = self.fresh("t"), self.fresh("r")
        di = self.rng.choice(["i + 1", "i + 2"])
        self.stmts += [f"{t} = vadd({src}, {B}, [[{di}, j], [i, j]])", f"{r} = eq({t}, -> [i, j])"]
        self.result(2, r, [a, b])

    def s_stencil(self):
        a, b = self.dim(), self.dim()
        X = self.declare(self.fresh("a"), [f"{a} + 3", f"{b} + 2"], "")
        B = self.operand([a, b])
        t = self.fresh("t")
        (ri, rj), (wi, wj) = self.rng.choice([(("i + 1", "j + 2"), ("i + 3", "j + 1")),
                                              (("i + 1", "j + 1"), ("i + 2", "j + 2")),
                                              (("i", "j + 1"), ("i + 1", "j"))])
        self.stmts += [f"{t} = vadd({X}, {B}, [[{ri}, {rj}], [i, j]])", f"{X} = eq({t}, -> [{wi}, {wj}])"]
        self.result(2, X)

    def s_recurrence(self):
        a, b = self.dim(), self.dim()
        s = self.declare(self.fresh("s"), [], "")
        B = self.operand([a, b])
        one = self.declare(self.fresh("one"), [], "")
        self.decls.append(f"init({one}, {self.rng.choice(['1', '0.5', '-0.25'])})")
        t, u = self.fresh("t"), self.fresh("u")
        op = self.rng.choice(["vmul", "vadd"])
        self.stmts += [f"{t} = {op}({s}, {B}, [, [i, j]])", f"{u} = vadd({t}, {one}, [, ])", f"{s} = eq({u}, -> [])"]
        self.result(2, s)

    def s_accumulate3(self):
        n, k, m = self.dim(), self.dim(), self.dim()
        A, u = self.operand([k, k]), self.operand([n, k, m])
        t = self.declare(self.fresh("T"), [n, k, m], "")
        p = self.fresh("p")
        self.stmts += [f"{p} = vmul({A}, {u}, [[i, l], [e, l, q]])", f"{t} = add({t}, {p}, [[e, i, q], ] -> [e, i, q])"]
        self.result(4, t)

    def s_transpose(self):
        a, b = self.dim(), self.dim()
        x = self.operand([a, b])
        r = self.fresh("R")
        self.stmts.append(f"{r} = transpose({x}, [[1, 2]])")
        self.result(2, r, [b, a], declare=False)

    def s_outer(self):
        a, b = self.dim(), self.dim()
        u, v = self.operand([a]), self.operand([b])
        r = self.fresh("O")
        self.stmts.append(f"{r} = outerproduct({u}, {v})")
        self.result(2, r, [a, b], declare=False)

    def s_entrywise(self):
        a, b = self.dim(), self.dim()
        x = self.operand([a, b])
        y = self.operand([a, b], avoid=[x])
        r = self.fresh("E")
        op = self.rng.choice(["add", "sub", "mul"])
        self.stmts.append(f"{r} = entrywise_{op}({x}, {y})")
        self.result(2, r, [a, b], declare=False)

    def s_chain(self):
        a, b = self.dim(), self.dim()
        x, z = self.operand([a, b]), self.operand([a, b])
        t = self.declare(self.fresh("t"), [f"{a} + 2", b], "")
        r = self.declare(self.fresh("r"), [a, b], "")
        w = self.fresh("w")
        self.stmts += [f"{t} = eq({x}, [i, j] -> [i + 1, j])", f"{w} = vadd({t}, {z}, [[i + 2, j], [i, j]])",
                       f"{r} = eq({w}, -> [i, j])"]
        self.result(2, t)
        self.result(2, r)

    def s_scaled(self):
        a, b = self.dim(), self.dim()
        x, y = self.operand([a, b]), self.operand([b, a])
        r = self.declare(self.fresh("P"), [a, b], "")
        op = self.rng.choice(["mul", "add", "sub"])
        self.stmts.append(f"{r} = {op}({x}, {y}, [[i, j], [j, i]] -> [i, j])")
        self.result(2, r)

    # ---- schedule steps ------------------------------------------------------------------
    def step(self, depth, tensors, nxt):
        """A step template: '{cur}' is the nest it transforms; None for fuse_outer (made by the caller)."""
        rng = self.rng
        lv = lambda: str(rng.randint(1, max(1, depth)))  # noqa: E731
        outer = lambda: str(rng.randint(1, max(1, depth - 1)))  # noqa: E731 (a loop with one inside)
        f = lambda: str(rng.choice([2, 3, 4, 5, 8]))  # noqa: E731
        kind = rng.choices(["interchange", "stripmine", "tile", "unroll_and_jam", "unroll", "parallelize",
                            "vectorize", "skew", "merge", "separate_tail", "fission", "blend", "local", "cache",
                            "cache_reduce", "fuse_outer"],
                           weights=[5, 6, 3, 3, 3, 6, 5, 1, 2, 2, 0, 1, 2, 2, 2, 2 if nxt else 0])[0]
        t = rng.choice(tensors)
        return {"interchange": f"interchange({{cur}}, {outer()}, {str(depth)})", "stripmine": f"stripmine({{cur}}, {lv()}, {f()})",
                "tile": f"tile({{cur}}, {f()})", "unroll_and_jam": f"unroll_and_jam({{cur}}, {outer()}, {f()})",
                "unroll": f"unroll({{cur}}, {lv()}, {f()})", "parallelize": f"parallelize({{cur}}, {lv()})",
                "vectorize": f"vectorize({{cur}}, {lv()})", "skew": f"skew({{cur}}, {outer()}, {str(depth)}, {rng.randint(1, 2)})",
                "merge": f"merge({{cur}}, {lv()})", "separate_tail": f"separate_tail({{cur}}, {lv()})",
                "fission": f"fission({{cur}}, {lv()}, 1)", "blend": f"blend({{cur}}, {lv()})",
                "local": f"local({{cur}}, {lv()}, {t})", "cache": f"cache({{cur}}, {lv()}, {t})",
                "cache_reduce": f"cache_reduce({{cur}}, {lv()}, {t})",
                "fuse_outer": f"fuse_outer({{cur}}, {{next}}, {rng.randint(1, 2)})"}[kind]

    def program(self):
        rng = self.rng
        self.sizes = {k: rng.choice(v) for k, v in SIZES.items()}
        kinds = ["contract", "shift", "stencil", "recurrence", "accumulate3", "transpose", "outer", "entrywise",
                 "chain", "scaled"]
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            getattr(self, "s_" + rng.choice(kinds))()
        self.nests = []  # (name, depth, [step templates])
        for i, (t, depth) in enumerate(self.written):
            nxt = i + 1 < len(self.written)
            steps = [self.step(depth + s, list(self.shapes), nxt) for s in range(rng.choice([0, 1, 1, 2, 3, 4]))]
            self.nests.append((t, depth, steps))
        return self

    def render(self, with_steps=True, drop=()):
        """The program's text; `drop`: (nest, step) pairs left out. Returns (text, {line: (nest, step)})."""
        lines = [f"# teml fuzz program {self.seed}: sizes {json.dumps(self.sizes, sort_keys=True)}"]
        lines += self.decls + self.stmts
        heads = []
        for n, (t, _, _) in enumerate(self.nests):
            lines.append(f"l{n} = build({t})")
            heads.append(f"l{n}")
        where = {}
        consumed = set()
        for n, (_, _, steps) in enumerate(self.nests):
            if n in consumed:
                continue
            cur = heads[n]
            for s, tmpl in enumerate(steps if with_steps else []):
                if (n, s) in drop:
                    continue
                if "{next}" in tmpl and (n + 1 >= len(heads) or n + 1 in consumed):
                    continue
                nxt = f"s{n}_{s}"
                lines.append(f"{nxt} = " + tmpl.format(cur=cur, next=heads[n + 1] if n + 1 < len(heads) else ""))
                where[len(lines)] = (n, s)
                if "{next}" in tmpl:
                    consumed.add(n + 1)
                cur = nxt
            heads[n] = cur
        lines.append("codegen(" + ", ".join(h for n, h in enumerate(heads) if n not in consumed) + ")")
        return "\n".join(lines) + "\n", where

    def set_args(self):
        out = []
        for k, v in sorted(self.sizes.items()):
            out += ["--set", f"{k}={v}"]
        return out


def generate(seed):
    return Gen(seed).program()


def run_path(seed, workdir, timeout=120, threads=2, env=None, log=None):
    """The `teml` path for program `seed`: a runner.Result."""
    import numpy as np

    import runner
    g = generate(seed)
    R = runner.Result
    outs = sorted({t for t, _ in g.written})

    def cli(tag, text, extra):
        f = os.path.join(workdir, f"teml-{tag}.teml")
        with open(f, "w") as out:
            out.write(text)
        args = ["run", f, "--threads", str(threads), "--random", "1"] + g.set_args() + extra
        for t in outs:
            args += ["--output", f"{t}={os.path.join(workdir, f'teml-{tag}.{t}.npy')}"]
        rc, out, err, hung = runner.run_process([runner.TEML] + args, timeout, env)
        if log:
            log.write(f"$ {runner.TEML} {' '.join(args)}\n(rc {rc})\n{text}{out}{err}\n")
        return rc, out, err, hung

    plain, _ = g.render(with_steps=False)
    rc, out, err, hung = cli("ref", plain, ["--interp"])
    r = runner.classify_process("teml", rc, out, err, hung)
    if r is not None:
        if r["outcome"] == "refused":  # the generator's own mistake, not a schedule's: say so
            r["kind"] = "program: " + r["kind"]
        r["program"] = plain
        return r
    drop, refusals = set(), []
    for _ in range(ATTEMPTS):
        text, where = g.render(drop=drop)
        rc, out, err, hung = cli("sched", text, ["--verify"])
        if rc == 3 and "(FAILED)" in (out + err):
            return R("teml", "mismatch", "--verify: " + (out + err)[-1500:], program=text, refusals=refusals)
        r = runner.classify_process("teml", rc, out, err, hung)
        if r is None:
            break
        r["program"], r["refusals"] = text, refusals
        if r["outcome"] != "refused":
            return r
        m = runner.LOCATED.search(err or out)
        lo = re.search(r"--output: tensor '(\w+)' is local to a loop", err or out)
        if lo and not m:  # a step made a tensor the path reads back local: that step is refused
            refusals.append("--output: tensor '_' is local to a loop (local(...))")
            cand = [ln for ln, (n, k) in where.items() if f", {lo.group(1)})" in text.splitlines()[ln - 1]]
            if cand:
                drop.add(where[max(cand)])
                continue
        if not m:
            return R("teml", "internal", "refused without file:line:col: " + (err or out)[-1000:], program=text)
        refusals.append(r["kind"])
        line = int(m.group("line"))
        if line not in where:  # refused at codegen (or elsewhere): drop the last step left
            if not where:
                return r
            line = max(where)
        drop.add(where[line])
    else:
        return R("teml", "refused", "every attempt refused", kind=refusals[0], program=text, refusals=refusals)
    for t in outs:
        a = os.path.join(workdir, f"teml-ref.{t}.npy")
        b = os.path.join(workdir, f"teml-sched.{t}.npy")
        if not os.path.exists(b):
            return R("teml", "mismatch", f"no output '{t}' written", program=text, refusals=refusals)
        ref = np.load(a)
        d = runner.compare(ref, np.load(b), "float32" if ref.dtype == np.float32 else "float64")
        if d:
            return R("teml", "mismatch", f"'{t}' {d} (against the unscheduled program's interpreter)",
                     program=text, refusals=refusals)
    return R("teml", "ok", program=text, refusals=refusals, steps=len(where))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--plain", action="store_true")
    ap.add_argument("--run", action="store_true")
    a = ap.parse_args()
    g = generate(a.seed)
    if a.run:
        import tempfile
        with tempfile.TemporaryDirectory(prefix="teml-fuzz-teml-") as d:
            r = run_path(a.seed, d)
        print(json.dumps(r, indent=1))
        return
    print(" ".join(g.set_args()))
    print(g.render(with_steps=not a.plain)[0], end="")


if __name__ == "__main__":
    main()
