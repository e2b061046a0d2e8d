"""Shrinks a failing program to a small one that fails the same way.

    /usr/bin/python3 tests/fuzz/reducer.py PROGRAM.py --path run [--outcome mismatch] [-o OUT.py]

The predicate: the runner, on the failing path alone (and the reference),
gives the same outcome class (crash, hang, internal, mismatch) on the same
path. Edits work on Python's `ast` of the text (the `# fuzz:` header is kept
as it is), greedily, until no edit is accepted (a fixpoint):

1. delete a statement (a body left empty gets `pass`); delete a helper;
2. replace a loop by its body (the iterator becomes the range's start),
   a branch by its body or its `else`, drop an `elif`/`else`;
3. turn `+=`, `-=`, `*=`, `/=` into `=`;
4. replace an expression by one of its operands, or by a constant;
5. shrink a size (module constant) to 1, 2, half, or one less;
6. drop a parameter the entry no longer names.

Written beside the log: OUT.py (default PROGRAM.reduced.py).
"""
import argparse
import ast
import copy
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import runner  # noqa: E402


def split_header(text):
    head = [line for line in text.splitlines() if line.startswith("# fuzz")]
    return "\n".join(head) + ("\n" if head else "")


def render(header, tree):
    return header + ast.unparse(tree) + "\n"


def stmt_lists(tree):
    """Every (owner, field) whose value is a list of statements, in a fixed order."""
    out = []
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            v = getattr(node, field, None)
            if isinstance(v, list) and v and isinstance(v[0], ast.stmt):
                out.append((node, field))
    return out


def value_exprs(tree):
    """The expressions a statement computes (not annotations, not decorators), outermost first."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Return)) and node.value is not None:
            out.append((node, "value"))
        elif isinstance(node, ast.If):
            out.append((node, "test"))
    exprs = []
    for owner, field in out:
        root = getattr(owner, field)
        for e in ast.walk(root):
            exprs.append(e)
    return exprs


def entry(tree):
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            return node
    return None


class Subst(ast.NodeTransformer):
    def __init__(self, name, value):
        self.name, self.value = name, value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return copy.deepcopy(self.value)
        return node


def edits(tree, float_program):
    """Every edit of the tree as (description, function(tree) -> changed?), largest first.
    Each function finds its site again in a fresh copy by position."""
    out = []
    lists = stmt_lists(tree)
    for li, (owner, field) in enumerate(lists):
        for si, st in enumerate(getattr(owner, field)):
            def site(t, li=li, si=si, field=field):
                o, f = stmt_lists(t)[li]
                return getattr(o, f), si
            protected = isinstance(owner, ast.Module) and (
                isinstance(st, (ast.Import, ast.ImportFrom)) or (isinstance(st, ast.FunctionDef) and st.decorator_list))
            if not protected:
                def delete(t, site=site):
                    body, i = site(t)
                    del body[i]
                    if not body:
                        body.append(ast.Pass())
                    return True
                out.append((f"delete statement {li}.{si}", delete))
            if isinstance(st, ast.For):
                def unwrap_for(t, site=site):
                    body, i = site(t)
                    loop = body[i]
                    args = loop.iter.args
                    start = args[0] if len(args) > 1 else ast.Constant(0)
                    inner = [Subst(loop.target.id, start).visit(s) for s in loop.body]
                    body[i:i + 1] = inner
                    return True
                out.append((f"unwrap loop {li}.{si}", unwrap_for))
            if isinstance(st, ast.If):
                def take(t, site=site, which="body"):
                    body, i = site(t)
                    branch = getattr(body[i], which)
                    if not branch:
                        return False
                    body[i:i + 1] = branch
                    return True
                out.append((f"branch body {li}.{si}", take))
                out.append((f"branch else {li}.{si}", lambda t, site=site: take(t, site, "orelse")))

                def drop_else(t, site=site):
                    body, i = site(t)
                    if not body[i].orelse:
                        return False
                    body[i].orelse = []
                    return True
                out.append((f"drop else {li}.{si}", drop_else))
            if isinstance(st, ast.AugAssign):
                def plain(t, site=site):
                    body, i = site(t)
                    a = body[i]
                    body[i] = ast.Assign(targets=[a.target], value=a.value, lineno=a.lineno)
                    return True
                out.append((f"plain assignment {li}.{si}", plain))
    # sizes
    for i, node in enumerate(tree.body):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, int) and node.value.value > 1):
            v = node.value.value
            for smaller in sorted({1, 2, v // 2, v - 1}):
                if 0 < smaller < v:
                    def shrink(t, i=i, smaller=smaller):
                        t.body[i].value = ast.Constant(smaller)
                        return True
                    out.append((f"size {node.targets[0].id} = {smaller}", shrink))
    # expressions
    n_exprs = len(value_exprs(tree))
    const = ast.Constant(1.0) if float_program else ast.Constant(1)
    for ei in range(n_exprs):
        e = value_exprs(tree)[ei]
        subs = []
        if isinstance(e, ast.BinOp):
            subs = ["left", "right"]
        elif isinstance(e, ast.UnaryOp):
            subs = ["operand"]
        elif isinstance(e, ast.IfExp):
            subs = ["body", "orelse"]
        elif isinstance(e, ast.Call):
            subs = [("args", k) for k in range(len(e.args))]
        elif isinstance(e, ast.BoolOp):
            subs = [("values", k) for k in range(len(e.values))]
        alternatives = subs + (["const"] if isinstance(e, (ast.BinOp, ast.Call, ast.IfExp, ast.Subscript,
                                                           ast.UnaryOp)) else [])
        for alt in alternatives:
            def replace(t, ei=ei, alt=alt):
                target = value_exprs(t)[ei]
                if alt == "const":
                    new = copy.deepcopy(const)
                elif isinstance(alt, tuple):
                    new = getattr(target, alt[0])[alt[1]]
                else:
                    new = getattr(target, alt)
                if isinstance(target, ast.Subscript) and isinstance(target.ctx, ast.Store):
                    return False
                for parent in ast.walk(t):
                    for field, value in ast.iter_fields(parent):
                        if value is target:
                            setattr(parent, field, new)
                            return True
                        if isinstance(value, list):
                            for k, item in enumerate(value):
                                if item is target:
                                    value[k] = new
                                    return True
                return False
            out.append((f"expression {ei} -> {alt}", replace))
    # unused parameters and helpers
    f = entry(tree)
    if f is not None:
        names = {n.id for n in ast.walk(ast.Module(body=f.body, type_ignores=[])) if isinstance(n, ast.Name)}
        for k, a in enumerate(f.args.args):
            if a.arg not in names:
                def drop(t, name=a.arg):
                    g = entry(t)
                    g.args.args = [x for x in g.args.args if x.arg != name]
                    return True
                out.append((f"drop parameter {a.arg}", drop))
    return out


class Reducer:
    def __init__(self, text, predicate, log=None, max_seconds=1800):
        self.header = split_header(text)
        self.text = render(self.header, ast.parse(text))
        self.predicate = predicate
        self.log = log or (lambda s: None)
        self.tests = 0
        self.deadline = time.time() + max_seconds
        self.seen = {}

    def check(self, text):
        if text not in self.seen:
            self.tests += 1
            self.seen[text] = self.predicate(text)
        return self.seen[text]

    def reduce(self):
        float_program = "'float" in self.text
        changed = True
        while changed and time.time() < self.deadline:
            changed = False
            pos = 0
            while time.time() < self.deadline:
                tree = ast.parse(self.text)
                es = edits(tree, float_program)
                if pos >= len(es):
                    break
                desc, fn = es[pos]
                t = ast.parse(self.text)
                try:
                    ok = fn(t)
                    cand = render(self.header, ast.fix_missing_locations(t)) if ok else None
                except Exception:
                    cand = None
                if cand and cand != self.text and self.check(cand):
                    self.log(f"accepted: {desc} ({len(cand.splitlines())} lines)")
                    self.text = cand
                    changed = True
                    # the edit list changed: the same position now names the next site
                else:
                    pos += 1
        return self.text


def runner_predicate(path, outcome, paths, timeout=60, input_seed=0, env=None):
    """True when the runner gives `outcome` on `path` for a program's text."""
    category = None

    def pred(text):
        with tempfile.TemporaryDirectory(prefix="teml-reduce-") as d:
            f = os.path.join(d, "candidate.py")
            with open(f, "w") as out:
                out.write(text)
            try:
                r = runner.Runner(f, paths, input_seed, os.path.join(d, "work"), timeout, env=env).run()
            except Exception:
                return False
        res = r["paths"].get(path)
        if res is None or res["outcome"] != outcome:
            return False
        return category is None or detail_category(res["detail"], outcome) == category

    def set_category(detail):
        nonlocal category
        category = detail_category(detail, outcome)

    pred.set_category = set_category
    return pred


def detail_category(detail, outcome="mismatch"):
    """What must stay the same while reducing: for an internal error or a crash,
    its message without numbers and names (another bug is not this one); for a
    mismatch, whether it was of values (finite or not) or of a refusal."""
    if outcome in ("internal", "crash"):
        lines = [l for l in detail.splitlines() if "error" in l or "signal" in l or "exit" in l] or detail.splitlines()
        return runner.refusal_kind(lines[0] if lines else "")
    for prefix in ("refused where", "ran where", "no output", "no gradient"):
        if detail.startswith(prefix):
            return prefix
    # A gradient that is not finite is another failure than a finite wrong one (seed 5070's
    # wrong value reduced to a NaN adjoint of sqrt(a * a) at 0).
    return "not finite" if "not finite" in detail else "value"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("--path", required=True, help="the failing path (run, auto, grad:all, ...)")
    ap.add_argument("--outcome", help="the failure class (default: the one the runner gives now)")
    ap.add_argument("--paths", help="paths the predicate runs (default: the failing path)")
    ap.add_argument("--input-seed", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--max-seconds", type=int, default=1800)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    text = open(a.program).read()
    paths = (a.paths or a.path).split(",")
    first = runner.Runner(a.program, paths, a.input_seed, None, a.timeout).run()
    res = first["paths"].get(a.path)
    if res is None or res["outcome"] in ("ok", "refused", "skipped") or (a.outcome and res["outcome"] != a.outcome):
        print(f"{a.program}: path {a.path} does not fail ({res and res['outcome']}); nothing to reduce")
        sys.exit(2)
    pred = runner_predicate(a.path, res["outcome"], paths, a.timeout, a.input_seed)
    pred.set_category(res["detail"])
    red = Reducer(text, pred, log=lambda s: print(s, flush=True), max_seconds=a.max_seconds)
    out = red.reduce()
    dest = a.output or os.path.splitext(a.program)[0] + ".reduced.py"
    with open(dest, "w") as f:
        f.write(out)
    print(f"{dest}: {len(out.splitlines())} lines after {red.tests} tests ({res['outcome']} on {a.path})")
    print(out)


if __name__ == "__main__":
    main()
