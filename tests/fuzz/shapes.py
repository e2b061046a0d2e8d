"""The `shapes` path: one transform called at several shapes in one process
(docs/python.md, "New shapes"), each call against the interpreter at that shape.

The program's sizes that some input's shape gives (`x: (N,)`, `ptr: (R + 1,)`)
stop being module constants: the text gets `from __future__ import
annotations` and loses their `N = 9` lines, so each call binds them from its
arguments. Sizes named only in outputs' shapes or in the body stay constants.
Calls, in one worker process: shape A, shape B, shape A again (its own
inputs again), where A makes one size at least 128 (so the first call probes
nearby sizes and compiles a kernel whose sizes are variables) and B changes
that size as the probes do (+256, +1, about twice) or as they do not (+16,
-1, anything), and now and then one more size, a small one (a kernel of its
own). The third call checks that a kernel serves A again after serving B.
"""
import ast
import os
import random
import re

import numpy as np

from program import Program

CALLS = ("A", "B", "A")


def free_sizes(prog):
    """Module constants named in some input's or inout's shape, in order of appearance."""
    tree = ast.parse(prog.text)
    entry = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == prog.entry)
    names = []
    for a in entry.args.args:
        if prog.param(a.arg).access not in ("input", "inout"):
            continue
        shape = a.annotation.slice.elts[0] if isinstance(a.annotation.slice, ast.Tuple) else a.annotation.slice
        for n in ast.walk(shape):
            if isinstance(n, ast.Name) and n.id in prog.constants and n.id not in names:
                names.append(n.id)
    return names


def with_sizes(text, sizes):
    """The program text with the module constants in `sizes` set to their new values."""
    for name, v in sizes.items():
        text = re.sub(rf"^{name} = \d+$", f"{name} = {v}", text, count=1, flags=re.M)
    return text


def symbolic(text, free):
    """The text whose sizes in `free` are bound from the arguments at each call."""
    lines = [ln for ln in text.splitlines() if not any(re.fullmatch(rf"{n} = \d+", ln) for n in free)]
    at = next(i for i, ln in enumerate(lines) if not ln.startswith("#"))  # after the header comment
    return "\n".join(lines[:at] + ["from __future__ import annotations"] + lines[at:]) + "\n"


def draw(prog, seed):
    """The size values of shapes A and B (dicts over the free sizes), or None."""
    free = free_sizes(prog)
    if not free:
        return None
    rng = random.Random(seed * 7 + 3)
    base = {n: int(prog.constants[n]) for n in free}
    big = rng.choice(free)
    a = dict(base)
    a[big] = 128 + base[big] + rng.choice([0, 0, 16, 64, 127])
    b = dict(a)
    b[big] = rng.choice([a[big] + 256, a[big] + 1, 2 * a[big] + 1, a[big] + 16, a[big] - 1,
                         rng.randrange(128, 450)])
    small = [n for n in free if n != big]
    if small and rng.random() < 0.3:
        n = rng.choice(small)
        b[n] = rng.choice([v for v in range(0, 20) if v != a[n]])
    return a, b


def variant(workdir, tag, text):
    f = os.path.join(workdir, f"shapes-{tag}.py")
    with open(f, "w") as out:
        out.write(text)
    return f


def run_path(r):
    """The `shapes` path for a runner.Runner `r`: a runner.Result."""
    import runner
    R = runner.Result
    drawn = draw(r.prog, r.seed)
    if drawn is None:
        return R("shapes", "skipped", "no input's shape names a size")
    text = r.prog.text
    free = free_sizes(r.prog)
    files = {tag: variant(r.workdir, tag, with_sizes(text, sizes)) for tag, sizes in zip("AB", drawn)}
    variant(r.workdir, "sym", symbolic(text, free))
    refs = {}
    for k, tag in enumerate("AB"):
        prog = Program(files[tag])
        for n, v in prog.draw_inputs(r.seed + k).items():
            np.save(os.path.join(r.workdir, f"shapes-{tag}.in_{n}.npy"), v)
        args = ["run", files[tag], "--no-auto", "--interp", "--threads", "1"] + io_args(r.workdir, prog, tag, "ref")
        refs[tag] = r.cli("shapes", args, "shapes")
        if refs[tag] is not None and refs[tag]["outcome"] == "hang":
            return R("shapes", "skipped", f"the interpreter took too long at sizes {drawn['AB'.index(tag)]}")
        if refs[tag] is not None and refs[tag]["outcome"] != "refused":
            return refs[tag]
    grads = {}
    if r.problem:  # gradients at each shape: teml grad of the program with that shape's constants
        wrt, of = r.problem
        for k, tag in enumerate("AB"):
            prog = Program(files[tag])
            for n, v in prog.draw_weights(r.seed + k, of).items():
                np.save(os.path.join(r.workdir, f"shapes-{tag}.w_{n}.npy"), v)
            args = ["grad", files[tag], "--wrt", ",".join(wrt), "--of", ",".join(of), "--tapes", "auto",
                    "--threads", "1"] + io_args(r.workdir, prog, tag, None)
            for n in of:
                args += ["--input", f"{n}.grad={os.path.join(r.workdir, f'shapes-{tag}.w_{n}.npy')}"]
            for n in wrt:
                args += ["--output", f"{n}.grad={os.path.join(r.workdir, f'shapes-{tag}.gref.{n}.npy')}"]
            grads[tag] = r.cli("shapes", args, "shapes")
            if grads[tag] is not None and grads[tag]["outcome"] != "refused":
                return grads[tag]
    got = r.python_jobs(["shapes"])["shapes"]
    if got is not None:
        return got
    sizes = dict(zip("AB", drawn))
    for k, tag in enumerate(CALLS):
        if tag not in grads:
            continue
        where = f"teml.grad, call {k + 1} of {len(CALLS)} (sizes {sizes[tag]})"
        refused = os.path.join(r.workdir, f"shapes{k}.grad_refused")
        if (grads[tag] is not None) != os.path.exists(refused):
            return R("shapes", "mismatch", f"{where} " + ("ran where `teml grad` refused: " + grads[tag]["kind"]
                                                          if grads[tag] is not None else
                                                          "refused where `teml grad` ran: " + open(refused).read()[:800]))
        if grads[tag] is not None:
            continue
        for n in r.problem[0]:
            f = os.path.join(r.workdir, f"shapes{k}.grad.{n}.npy")
            if not os.path.exists(f):
                return R("shapes", "mismatch", f"{where}: no gradient of '{n}'")
            d = runner.compare(np.load(os.path.join(r.workdir, f"shapes-{tag}.gref.{n}.npy")), np.load(f), "float64")
            if d:
                return R("shapes", "mismatch", f"{where}: '{n}.grad' {d} (against `teml grad` at that shape)")
    for k, tag in enumerate(CALLS):
        prog = Program(files[tag])
        where = f"call {k + 1} of {len(CALLS)} (sizes {sizes[tag]})"
        status = os.path.join(r.workdir, f"shapes{k}.refused")
        if refs[tag] is not None:
            if not os.path.exists(status):
                return R("shapes", "mismatch", f"{where} ran where the reference refused: " + refs[tag]["kind"])
            continue
        if os.path.exists(status):
            return R("shapes", "mismatch", f"{where} refused where the reference ran: " + open(status).read()[:800])
        for p in prog.written:
            ref = np.load(os.path.join(r.workdir, f"shapes-{tag}.ref.{p.name}.npy"))
            f = os.path.join(r.workdir, f"shapes{k}.{p.name}.npy")
            if not os.path.exists(f):
                return R("shapes", "mismatch", f"{where}: no output '{p.name}' written")
            d = runner.compare(ref, np.load(f), p.dtype, prog.longest_accumulation())
            if d:
                return R("shapes", "mismatch", f"{where}: '{p.name}' {d}")
    return R("shapes", "ok", f"sizes {sizes['A']}, then {sizes['B']}")


def io_args(workdir, prog, tag, out):
    args = []
    for p in prog.inputs:
        args += ["--input", f"{p.name}={os.path.join(workdir, f'shapes-{tag}.in_{p.name}.npy')}"]
    for p in prog.written if out else []:
        args += ["--output", f"{p.name}={os.path.join(workdir, f'shapes-{tag}.{out}.{p.name}.npy')}"]
    return args
