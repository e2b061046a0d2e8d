"""Random schedules for a free-form program (the `sched` path, docs/testing.md):
a few steps drawn from the primitive table's free-form spellings
(docs/freeform.md, "Schedules"), appended as a `@teml.schedule(f)` function.

    /usr/bin/python3 tests/fuzz/schedules.py PROGRAM.py [SEED]   # prints the scheduled program

Loops are named by their `#! label:` (the generator writes one before every
loop) or, unlabelled, by `L<line>`; a split's outer loop by the handle it
returns. Steps are drawn from the loops' structure (read with Python's
`ast`): perfect pairs for interchange / reorder / merge / skew, neighbouring
loops for fuse, bodies of several statements for fission / swap, tensors
used in a loop for cache / cache_reduce / local / cache_zeroed. They are
not checked here: teml refuses what is illegal, and the runner drops a
refused step and tries again (`without`).
"""
import ast
import random
import re
import sys

PRIMITIVES = ["split", "split_nparts", "interchange", "reorder", "tile", "merge", "fuse", "fission", "swap",
              "unroll", "unroll_and_jam", "blend", "parallelize", "vectorize", "skew", "separate_tail",
              "cache", "cache_reduce", "local", "cache_zeroed", "distribute", "hoist_product", "factor_sum",
              "as_lib", "separate_interior"]
WEIGHTS = {"split": 8, "split_nparts": 2, "interchange": 5, "reorder": 3, "tile": 3, "merge": 2, "fuse": 3,
           "fission": 3, "swap": 2, "unroll": 4, "unroll_and_jam": 3, "blend": 1, "parallelize": 8,
           "vectorize": 6, "skew": 1, "separate_tail": 2, "cache": 3, "cache_reduce": 2, "local": 2,
           "cache_zeroed": 1, "distribute": 1, "hoist_product": 1, "factor_sum": 1, "as_lib": 1, "separate_interior": 2}
FACTORS = [2, 3, 4, 5, 7, 8, 16]
LABEL = re.compile(r"^\s*#!\s*label:\s*(\S+)")


class Loop:
    def __init__(self, node, name, parent):
        self.node, self.name, self.parent = node, name, parent
        self.children = []  # loops directly in the body (any statement position)
        self.tensors = set()

    @property
    def perfect_child(self):
        body = self.node.body
        if len(body) == 1 and isinstance(body[0], ast.For):
            return next(c for c in self.children if c.node is body[0])
        return None


def loops_of(text, entry="f"):
    """The loops of the entry, outermost first in program order, with their structure."""
    lines = text.splitlines()
    tree = ast.parse(text)
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry), None)
    if fn is None:
        fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and any(
            "transform" in ast.unparse(d) for d in n.decorator_list))
    out = []

    def name_of(node):
        prev = lines[node.lineno - 2] if node.lineno >= 2 else ""
        m = LABEL.match(prev)
        return m.group(1) if m else f"L{node.lineno}"

    def walk(stmts, parent):
        for s in stmts:
            if isinstance(s, ast.For):
                lp = Loop(s, name_of(s), parent)
                for n in ast.walk(s):
                    if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
                        lp.tensors.add(n.value.id)
                out.append(lp)
                if parent:
                    parent.children.append(lp)
                walk(s.body, lp)
            else:
                for field in ("body", "orelse"):
                    walk(getattr(s, field, []) or [], parent)

    walk(fn.body, None)
    return fn.name, out


def neighbours(text, entry="f"):
    """(first, second) loops that are neighbouring statements of one body, same range text."""
    _, loops = loops_of(text, entry)
    tree = ast.parse(text)
    out = []
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            v = getattr(node, field, None)
            if isinstance(v, list):
                for a, b in zip(v, v[1:]):
                    if isinstance(a, ast.For) and isinstance(b, ast.For):
                        la = next((lp for lp in loops if lp.node.lineno == a.lineno), None)
                        lb = next((lp for lp in loops if lp.node.lineno == b.lineno), None)
                        if la and lb and ast.unparse(a.iter) == ast.unparse(b.iter):
                            out.append((la, lb))
    return out


def draw(text, seed, n=None):
    """Step lines (Python statements on `s`) for the program's text."""
    rng = random.Random(seed * 7919 + 17)
    entry, loops = loops_of(text)
    if not loops:
        return entry, []
    fusable = neighbours(text, entry)
    n = n or rng.choice([1, 2, 2, 3, 3, 4, 5])
    refs = [(f'"{lp.name}"', lp) for lp in loops]  # (spelling, loop it stands for)
    steps = []
    handles = 0
    for _ in range(n):
        for _attempt in range(10):
            kind = rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
            ref, lp = rng.choice(refs)
            f = rng.choice(FACTORS)
            child = lp.perfect_child
            cref = f'"{child.name}"' if child else None
            tensors = sorted(lp.tensors)
            step = None
            if kind == "split":
                handles += 1
                o, i = f"o{handles}", f"i{handles}"
                step = f"{o}, {i} = s.split({ref}, {f})"
                refs.append((o, lp))
            elif kind == "split_nparts":
                handles += 1
                o, i = f"o{handles}", f"i{handles}"
                step = f"{o}, {i} = s.split({ref}, nparts={rng.choice([2, 3, 4])})"
                refs.append((o, lp))
            elif kind in ("interchange", "reorder", "merge", "skew") and child:
                if kind == "interchange":
                    step = f"s.interchange({ref}, {cref})"
                elif kind == "reorder":
                    step = f"s.reorder([{cref}, {ref}])"
                elif kind == "merge":
                    step = f"s.merge({ref}, {cref})"
                else:
                    step = f"s.skew({ref}, {cref}, {rng.choice([1, 2])})"
                    if rng.random() < 0.5:  # the skewed loop then outside
                        step += f"\n    s.interchange_skewed({ref}, {cref})"
            elif kind == "tile":
                step = f"s.tile({ref}, {f})"
            elif kind == "fuse" and fusable:
                a, b = rng.choice(fusable)
                step = f's.fuse("{a.name}", "{b.name}")'
            elif kind == "fission" and len(lp.node.body) > 1:
                step = f"s.fission({ref}, {rng.randint(1, len(lp.node.body) - 1)})"
            elif kind == "swap" and len(lp.node.body) > 1:
                a = rng.randint(1, len(lp.node.body) - 1)
                step = f"s.swap({ref}, {a}, {rng.randint(a + 1, len(lp.node.body))})"
            elif kind == "unroll":
                step = rng.choice([f"s.unroll({ref})", f"s.unroll({ref}, {f})"])
            elif kind == "unroll_and_jam" and lp.children:  # it jams into an inner loop
                step = f"s.unroll_and_jam({ref}, {f})"
            elif kind in ("blend", "vectorize", "separate_tail", "distribute", "hoist_product", "factor_sum",
                          "as_lib", "separate_interior"):
                step = f"s.{kind}({ref})"
            elif kind == "parallelize":
                step = rng.choice([f"s.parallelize({ref})", f"s.parallelize({ref})",
                                   f's.parallelize({ref}, "dynamic")'])
            elif kind in ("cache", "cache_reduce", "local", "cache_zeroed") and tensors:
                step = f's.{kind}({ref}, "{rng.choice(tensors)}")'
            if step:
                steps.append(step)
                break
    if rng.random() < 0.15:
        steps.append("s.auto_schedule()")
    return entry, steps


def render(text, entry, steps):
    """The program's text with the schedule function appended."""
    body = "".join(f"    {s}\n" for s in steps) or "    pass\n"
    return text.rstrip("\n") + f"\n\n\n@teml.schedule({entry})\ndef schedule(s):\n" + body


def step_lines(text):
    """{line number: index of the step} for a rendered text's schedule function."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("def schedule(s):"))
    return {start + 2 + k: k for k in range(len(lines) - start - 1)}


def main():
    text = open(sys.argv[1]).read()
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    entry, steps = draw(text, seed)
    print(render(text, entry, steps), end="")


if __name__ == "__main__":
    main()
