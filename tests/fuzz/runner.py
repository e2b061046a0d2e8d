"""Takes one free-form program down every path and compares each with the
reference interpreter (docs/testing.md).

    /usr/bin/python3 tests/fuzz/runner.py PROGRAM.py [--paths run,auto,...] [--json] [--keep DIR]

Paths (`--paths`, default run..torchgrad; `all` adds sched, shapes, mpi1, mpi3, teml):
  run        teml run, as written (--no-auto)
  auto       teml run --auto
  python     the transform called with NumPy arrays (importlib on the file), twice: the second
             call reuses the first's outputs (out=), filled with garbage first
  torch      the same with PyTorch tensors
  emulate    teml run --target cuda --emulate (the automatic GPU schedule)
  mpi        mpirun -np 2 teml run --auto --threads 1 (mpi1, mpi3: -np 1, -np 3)
  sched      a random schedule from the primitive table appended as @teml.schedule(f)
             (schedules.py), teml run --no-auto; a refused step is dropped and the rest tried
  shapes     the transform with its sizes bound at each call (shapes.py), called at shapes
             A, B, A in one process (new shapes reuse kernels), each against the interpreter
  teml       a TeML program of the same seed (teml_generator.py) with random TeML steps,
             compiled with --verify, against the interpreter of the unscheduled program
  grad       teml grad, --tapes all / none / auto  (grad:all, grad:none, grad:auto)
  mpigrad    mpirun -np 2 teml grad --tapes auto --threads 1 (the automatic distribution of the
             gradient program)
  pygrad     teml.grad under each tapes setting
  torchgrad  teml.torch_function in a PyTorch loss, under each tapes setting
Forward paths are compared with `teml run --interp --no-auto`; gradient paths
(float64 programs only) with central finite differences of the compiled
forward as written. Outcomes per path: ok, refused(kind), mismatch, internal,
crash, hang, skipped.
"""
import argparse
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from program import Program  # noqa: E402
import schedules  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
TEML = os.environ.get("TEML_BINARY", os.path.join(ROOT, "build", "teml"))
PYTHONPATH = os.environ.get("TEML_PYTHONPATH", os.path.join(ROOT, "build", "python"))
PYTHON = "/usr/bin/python3"
TAPES = ["all", "none", "auto"]
FORWARD = ["run", "auto", "python", "torch", "emulate", "mpi"]
MPI_RANKS = {"mpi1": "1", "mpi": "2", "mpi3": "3"}
GRADIENT = ["grad", "pygrad", "torchgrad", "mpigrad"]
GRADIENT_TAPES = {"mpigrad": ["auto"]}  # under mpirun one setting: the others are the same passes split alike
CLI_GRADIENTS = ("grad:", "mpigrad:")  # gradients by `teml grad` (the others: the Python worker)
ALL_PATHS = FORWARD + GRADIENT
EVERY_PATH = FORWARD + ["mpi1", "mpi3", "sched", "shapes"] + GRADIENT + ["teml"]  # `--paths all`
SCHED_ATTEMPTS = 4
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_hwloc_base_binding_policy": "none"}
TOL = {"float64": 1e-9, "float32": 2e-4}
COMMAND_MEMORY = 6 << 30  # bytes a `teml` command (each MPI rank) may map
GRAD_RTOL = 1e-5
# Weights 2^-K times the drawn ones, K in turn: adjoints that overflow at the drawn weights (a
# product of many large factors) fit, and the gradient, linear in the weights, is scaled back
# exactly. Each K further risks adjoints that underflow instead.
WEIGHT_SCALE_EXPONENTS = (300, 600, 900, 1000)
# Forward paths that run JIT-compiled C, retried without FMA contraction (Runner.contraction_explains).
CONTRACTED_PATHS = ("run", "auto", "emulate", "mpi", "mpi1", "mpi3", "python", "torch", "shapes", "teml")
LOCATED = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.M)


def expand(paths):
    """`grad` -> grad:all, grad:none, grad:auto; `grad:none` stays."""
    out = []
    for p in paths:
        if p == "all":
            out += expand(EVERY_PATH)
        elif p in GRADIENT:
            out += [f"{p}:{t}" for t in GRADIENT_TAPES.get(p, TAPES)]
        else:
            out.append(p)
    return out


def refusal_kind(message):
    """A refusal's message without positions, numbers and names: what kind it is."""
    m = LOCATED.search(message)
    msg = m.group("msg") if m else "unlocated: " + (message.strip().splitlines() or [""])[-1]
    msg = re.sub(r"'[^']*'", "'_'", msg)
    msg = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "N", msg)
    return msg[:90]


class Result(dict):
    """One path's outcome: {"path", "outcome", "detail", ...}."""

    def __init__(self, path, outcome, detail="", **kw):
        super().__init__(path=path, outcome=outcome, detail=detail[:2000], **kw)


def classify_process(path, rc, out, err, timed_out):
    text = (out or "") + (err or "")
    if timed_out:
        return Result(path, "hang", text[-500:])
    if rc == 0:
        return None
    if rc in (1, 2):
        # From the last located error on, whole: a long message cut at its start loses its location.
        located = list(LOCATED.finditer(text))
        detail = text[located[-1].start():][:4000] if located else text[-1000:]
        return Result(path, "refused", detail, kind=("usage: " if rc == 2 else "") + refusal_kind(err or out))
    if rc == 3:
        return Result(path, "internal", text[-1500:])
    if rc == 4:
        return Result(path, "skipped", "unavailable: " + text[-300:])
    return Result(path, "crash", f"exit {rc}: " + text[-1500:])


def limit_memory(nbytes):
    """For Popen's preexec_fn: the process and its children (MPI ranks) may map at most `nbytes`
    each; more fails an allocation (a crash of that path) instead of waking the kernel's OOM
    killer, which on a shared machine kills whatever it picks (seed 4665: three ranks of 8 GB)."""
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
    return apply


def run_process(cmd, timeout, env=None, memory=None):
    e = dict(os.environ)
    e.update(env or {})
    for attempt in range(30):  # teml may be relinked by a build meanwhile (missing, busy): wait for it
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e,
                                 start_new_session=True, preexec_fn=limit_memory(memory) if memory else None)
            break
        except OSError:
            if attempt == 29:
                raise
            time.sleep(5)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return p.returncode, out, err, True


def compare(ref, got, dtype, terms=1):
    """None if got equals ref (integers exactly; floats within TOL scaled by the
    tensor's magnitude, or within `terms` units of roundoff where a sum of that many
    terms may have been reordered), else a description of the largest difference."""
    ref, got = np.asarray(ref), np.asarray(got)
    if ref.shape != got.shape:
        return f"shape {got.shape} instead of {ref.shape}"
    if not dtype.startswith("float"):
        bad = np.flatnonzero(ref.reshape(-1) != got.reshape(-1))
        if bad.size:
            k = bad[0]
            return f"element {np.unravel_index(k, ref.shape)}: {got.reshape(-1)[k]} instead of {ref.reshape(-1)[k]}"
        return None
    r, g = ref.astype(np.float64).reshape(-1), got.astype(np.float64).reshape(-1)
    nan_r, nan_g = np.isnan(r), np.isnan(g)
    if (nan_r != nan_g).any():
        k = np.flatnonzero(nan_r != nan_g)[0]
        return f"element {np.unravel_index(k, ref.shape)}: {g[k]} instead of {r[k]}"
    fin = np.isfinite(r) & np.isfinite(g)
    inf_bad = ~fin & ~nan_r & (r != g)
    if inf_bad.any():
        k = np.flatnonzero(inf_bad)[0]
        return f"element {np.unravel_index(k, ref.shape)}: {g[k]} instead of {r[k]}"
    if not fin.any():
        return None
    scale = np.max(np.abs(r[fin]))
    rtol = max(TOL[dtype], terms * float(np.finfo(dtype).eps) / 2)
    tol = rtol * (np.abs(r) + scale) + rtol * 1e-3
    with np.errstate(invalid="ignore"):
        err = np.where(fin, np.abs(r - g), 0.0)
    if (err > tol).any():
        k = int(np.argmax(err - tol))
        return (f"element {np.unravel_index(k, ref.shape)}: {g[k]!r} instead of {r[k]!r} "
                f"(tolerance {tol[k]:.3g}, tensor scale {scale:.3g})")
    return None


class Runner:
    def __init__(self, path, paths=None, seed=0, workdir=None, timeout=120, tune_budget=0.0, threads=2,
                 log=None, env=None):
        self.prog = Program(path)
        self.path = os.path.abspath(path)
        self.paths = expand(paths or ALL_PATHS)
        self.seed = seed
        self.timeout = timeout
        self.tune_budget = tune_budget
        self.threads = threads
        self.own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="teml-fuzz-")
        os.makedirs(self.workdir, exist_ok=True)
        self.log = log
        self.env = dict(env or {})  # for every command and the worker (TEML_PLANTED_BUG, XDG_CACHE_HOME)
        self.inputs = self.prog.draw_inputs(seed)
        for n, v in self.inputs.items():
            np.save(self.file(f"in_{n}"), v)
        self.problem = self.prog.differentiable
        self.weights = "w_"  # the stem of the weights' files: ws_ when scaled (overflowing_adjoints)
        if self.problem:
            for n, v in self.prog.draw_weights(seed, self.problem[1]).items():
                np.save(self.file(f"w_{n}"), v)

    def file(self, stem):
        return os.path.join(self.workdir, stem + ".npy")

    def io_args(self, tag):
        args = []
        for p in self.prog.inputs:
            args += ["--input", f"{p.name}={self.file('in_' + p.name)}"]
        for p in self.prog.written:
            args += ["--output", f"{p.name}={self.file(tag + '.' + p.name)}"]
        return args

    def cli(self, path, args, tag, env=None, prefix=()):
        cmd = list(prefix) + [TEML] + args
        t0 = time.time()
        rc, out, err, hung = run_process(cmd, self.timeout, {**self.env, **(env or {})}, COMMAND_MEMORY)
        if self.log:
            self.log.write(f"$ {' '.join(cmd)}\n(rc {rc}, {time.time() - t0:.1f} s)\n{out}{err}\n")
        return classify_process(path, rc, out, err, hung)

    def forward_cli(self, path):
        base = ["run", self.path, "--threads", str(self.threads)]
        tb = ["--tune-budget", str(self.tune_budget)]
        if path == "ref":
            return self.cli(path, base + ["--no-auto", "--interp"] + self.io_args(path), path)
        if path == "run":
            return self.cli(path, base + ["--no-auto"] + self.io_args(path), path)
        if path == "auto":
            return self.cli(path, base + ["--auto"] + tb + self.io_args(path), path)
        if path == "emulate":
            return self.cli(path, base + ["--target", "cuda", "--emulate"] + self.io_args(path), path)
        if path in MPI_RANKS:
            b = ["run", self.path, "--threads", "1", "--auto"] + tb
            return self.cli(path, b + self.io_args(path), path, env=MPI_ENV,
                            prefix=["mpirun", "-np", MPI_RANKS[path]])
        raise ValueError(path)

    def sched_cli(self, path):
        """The program with a random schedule (schedules.py). A refused step (exit 1 or 2
        at a line of the schedule) is dropped and the rest run again, up to SCHED_ATTEMPTS
        times; None when a schedule ran (its outputs then compared), else the Result."""
        with open(self.path) as f:
            text = f.read()
        entry, steps = schedules.draw(text, self.seed)
        if not steps:
            return Result(path, "skipped", "no loops to schedule")
        refusals = []
        for _ in range(SCHED_ATTEMPTS):
            sched_text = schedules.render(text, entry, steps)
            f = os.path.join(self.workdir, "sched.py")
            with open(f, "w") as out:
                out.write(sched_text)
            self.schedule = list(steps)
            r = self.cli(path, ["run", f, "--no-auto", "--threads", str(self.threads)] + self.io_args(path), path)
            if r is None:
                self.sched_refusals = refusals
                return None
            r["schedule"] = list(steps)
            r["refusals"] = refusals
            if r["outcome"] != "refused":
                return r
            m = LOCATED.search(r["detail"])
            if not m:
                return Result(path, "internal", "refused without file:line:col: " + r["detail"], schedule=list(steps),
                              refusals=refusals)
            refusals.append(r["kind"])
            idx = schedules.step_lines(sched_text).get(int(m.group("line")), len(steps) - 1)
            steps = steps[:idx] + steps[idx + 1:]
            if not steps:
                break
        return Result(path, "refused", r["detail"], kind=refusals[0], schedule=self.schedule, refusals=refusals)

    def grad_cli(self, path):
        tapes = path.split(":")[1]
        wrt, of = self.problem
        mpi = path.startswith("mpigrad")
        args = ["grad", self.path, "--wrt", ",".join(wrt), "--of", ",".join(of), "--tapes", tapes,
                "--threads", "1" if mpi else str(self.threads)]
        for p in self.prog.inputs:
            args += ["--input", f"{p.name}={self.file('in_' + p.name)}"]
        for n in of:
            args += ["--input", f"{n}.grad={self.file(self.weights + n)}"]
        for n in wrt:
            args += ["--output", f"{n}.grad={self.file(path + '.' + n)}"]
        if mpi:
            return self.cli(path, args, path, env=MPI_ENV, prefix=["mpirun", "-np", "2"])
        return self.cli(path, args, path)

    def python_jobs(self, jobs):
        """Runs the Python paths in one worker process; {job: Result or None}. A module
        being relinked by a build meanwhile (`file too short`, missing) is waited for."""
        for _ in range(12):
            results = self.python_jobs_once(jobs)
            first = next(iter(results.values()), None) if results else None
            if not (first and first["outcome"] == "internal" and "_teml" in first["detail"]
                    and ("file too short" in first["detail"] or "No module named" in first["detail"]
                         or "cannot open shared object" in first["detail"])):
                return results
            time.sleep(10)
        return results

    def python_jobs_once(self, jobs):
        env = {**self.env, "PYTHONPATH": PYTHONPATH + os.pathsep + os.environ.get("PYTHONPATH", ""),
               "FUZZ_WEIGHTS": self.weights}
        cmd = [PYTHON, os.path.join(HERE, "pyworker.py"), self.path, self.workdir] + jobs
        t0 = time.time()
        rc, out, err, hung = run_process(cmd, self.timeout * max(1, len(jobs)) // 2 + 60, env)
        if self.log:
            self.log.write(f"$ {' '.join(cmd)}\n(rc {rc}, {time.time() - t0:.1f} s)\n{out}{err}\n")
        results, started = {}, None
        for line in out.splitlines():
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "start" in msg:
                started = msg["start"]
                continue
            job = msg["job"]
            if job == "load":
                for j in jobs:
                    results[j] = Result(j, "internal", msg["message"])
                return results
            started = None
            if msg["status"] == "ok":
                results[job] = None
            elif msg["status"] == "refused":
                results[job] = Result(job, "refused", msg["message"], kind=refusal_kind(msg["message"]))
            else:
                results[job] = Result(job, "internal", msg["message"])
        for j in jobs:
            if j not in results:
                if j == started or (started is None and not results):
                    outcome = "hang" if hung else "crash"
                    results[j] = Result(j, outcome, f"worker exit {rc}: {err[-1500:]}")
                else:
                    results[j] = Result(j, "skipped", "worker ended before this job")
        return results

    def compare_forward(self, path, ref_written):
        for p in self.prog.written:
            f = self.file(path + "." + p.name)
            if not os.path.exists(f):
                return Result(path, "mismatch", f"no output '{p.name}' written")
            d = compare(np.load(self.file("ref." + p.name)), np.load(f), p.dtype, self.prog.longest_accumulation())
            if d:
                return Result(path, "mismatch", f"'{p.name}' {d}")
        return Result(path, "ok")

    def compare_gradient(self, path, excuse_overflow=False):
        """`excuse_overflow`: elements not finite where the differences are exactly 0 are left
        unjudged (see overflowing_adjoints); the rest must match."""
        wrt, _ = self.problem
        unjudged = 0
        for n in wrt:
            f = self.file(path + "." + n)
            if not os.path.exists(f):
                return Result(path, "mismatch", f"no gradient of '{n}'")
            g = np.load(f).astype(np.float64).reshape(-1)
            fd = np.load(self.file("fd." + n)).reshape(-1)
            smooth = np.load(self.file("fd_smooth." + n)).reshape(-1)
            if g.shape != fd.shape:
                return Result(path, "mismatch", f"'{n}.grad' shape {g.shape} instead of {fd.shape}")
            if excuse_overflow:
                overflowed = smooth & ~np.isfinite(g) & (fd == 0.0)
                unjudged += int(overflowed.sum())
                smooth = smooth & ~overflowed
            if not np.isfinite(g[smooth]).all():
                return Result(path, "mismatch", f"'{n}.grad' not finite where differences are smooth")
            scale = np.max(np.abs(fd[smooth])) if smooth.any() else 0.0
            err_file = self.file("fd_err." + n)  # the differences' own error
            fd_err = np.load(err_file).reshape(-1) if os.path.exists(err_file) else np.zeros_like(fd)
            tol = GRAD_RTOL * (np.abs(fd) + scale + 1e-3) + 2 * fd_err
            err = np.where(smooth, np.abs(g - fd), 0.0)
            if (err > tol).any():
                k = int(np.argmax(err - tol))
                shape = self.prog.param(n).shape
                return Result(path, "mismatch",
                              f"'{n}.grad' element {np.unravel_index(k, shape) if shape else ()}: {g[k]!r} "
                              f"instead of {fd[k]!r} (finite differences; tolerance {tol[k]:.3g}; "
                              f"{int(smooth.sum())} of {smooth.size} elements smooth)")
        if unjudged:
            return Result(path, "ok", f"adjoints overflow past every weight scale: {unjudged} elements not "
                          "finite where the differences are exactly 0 (inf * 0) left unjudged; the rest match")
        return Result(path, "ok")

    def run(self):
        t0 = time.time()
        results = {}
        ref = self.forward_cli("ref")
        results["ref"] = ref or Result("ref", "ok")
        wanted = [p for p in self.paths if p != "ref"]
        py_jobs = [p for p in wanted if p.split(":")[0] in ("python", "torch", "pygrad", "torchgrad")]
        grad_paths = [p for p in wanted if p.split(":")[0] in GRADIENT]
        if grad_paths and not self.problem:
            for p in grad_paths:
                results[p] = Result(p, "skipped", "not a float64 program with float inputs and outputs")
            py_jobs = [j for j in py_jobs if j not in grad_paths]
            grad_paths = []
        if grad_paths and ref is None:
            py_jobs = ["fd"] + py_jobs
        py = self.python_jobs(py_jobs) if py_jobs else {}
        fd_ok = grad_paths and ref is None and py.get("fd") is None
        if grad_paths and ref is None and not fd_ok:
            results["fd"] = py["fd"]
        for p in wanted:
            kind = p.split(":")[0]
            if p in results:
                continue
            if kind in ("python", "torch", "pygrad", "torchgrad"):
                r = py[p]
            elif kind in ("grad", "mpigrad"):
                r = self.grad_cli(p)
            elif kind == "teml":
                import teml_programs  # noqa: E402 (it uses this module's helpers)
                results[p] = teml_programs.run_path(self.seed, self.workdir, self.timeout, self.threads, self.env,
                                                    self.log)
                continue
            elif kind == "shapes":
                import shapes  # noqa: E402 (it uses this module's helpers)
                results[p] = shapes.run_path(self)
                continue
            elif kind == "sched":
                if ref is not None:
                    results[p] = Result(p, "skipped", "the reference refused")
                    continue
                r = self.sched_cli(p)
            else:
                r = self.forward_cli(p)
            if r is not None:
                results[p] = r
                continue
            if kind in GRADIENT:
                results[p] = self.compare_gradient(p) if fd_ok else Result(p, "skipped", "no reference gradient")
            elif ref is None:
                results[p] = self.compare_forward(p, True)
                if kind == "sched":
                    results[p].update(schedule=self.schedule, refusals=self.sched_refusals)
            else:
                results[p] = Result(p, "mismatch", "ran where the reference refused: " + ref.get("kind", ""))
        self.contraction_explains(results)
        self.overflowing_adjoints(results)
        self.check_refusals(results)
        outcome = self.outcome(results)
        if self.own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
        return {"program": self.path, "input_seed": self.seed, "outcome": outcome["outcome"],
                "failing_path": outcome.get("path"), "kind": outcome.get("kind"),
                "uses": self.prog.header.get("uses", []), "seconds": round(time.time() - t0, 2),
                "paths": {p: dict(r) for p, r in results.items()}}

    def contraction_explains(self, results):
        """A forward path that disagrees is run again with the C compiler's contraction of
        a * b + c into one rounding (FMA, GCC's default for C) turned off
        (TEML_EXTRA_CFLAGS=-ffp-contract=off; the interpreter rounds each operation). Where
        it then matches, the difference was contraction's rounding, which a program whose
        branches meet its own roundoff turns into any difference at all (seed 7745: a
        running product compared with a threshold): the path is ok, with a note. Random
        schedules (sched) draw again when run again and are not retried."""
        retried = [p for p, r in results.items() if r["outcome"] == "mismatch" and p in CONTRACTED_PATHS]
        if not retried:
            return
        self.env["TEML_EXTRA_CFLAGS"] = "-ffp-contract=off"
        try:
            py = [p for p in retried if p in ("python", "torch")]
            again = self.python_jobs(py) if py else {}
            for p in retried:
                if p == "shapes":
                    import shapes  # noqa: E402 (it uses this module's helpers)
                    r = shapes.run_path(self)
                elif p == "teml":  # seed 8956: a float32 contraction's FMA rounding, carried into a float64 one
                    import teml_programs  # noqa: E402 (it uses this module's helpers)
                    r = teml_programs.run_path(self.seed, self.workdir, self.timeout, self.threads, self.env, self.log)
                else:
                    r = again.get(p) if p in py else self.forward_cli(p)
                    r = r or self.compare_forward(p, True)
                if r["outcome"] == "ok":
                    results[p] = Result(p, "ok", "differs from the reference by FMA contraction only (with "
                                        "-ffp-contract=off it matches): " + results[p]["detail"])
        finally:
            del self.env["TEML_EXTRA_CFLAGS"]

    def overflowing_adjoints(self, results):
        """A gradient that is not finite where the differences are smooth is taken again with
        the weights 2^-K times smaller (K from WEIGHT_SCALE_EXPONENTS, in turn): where adjoints
        overflowed (inf * 0 in the chain rule, as PyTorch's autograd gives too) the gradient then
        comes out finite and, scaled back (exactly: a power of two), must match the differences.
        Past every scale: adjoints_past_every_scale."""
        drawn = {}  # the gradients at the drawn weights, judged again at the end
        for p, r in results.items():
            if r["outcome"] == "mismatch" and "not finite" in r["detail"]:
                for n in self.problem[0]:
                    f = self.file(p + "." + n)
                    if os.path.exists(f):
                        drawn[f] = np.load(f)
        for k in WEIGHT_SCALE_EXPONENTS:
            bad = [p for p, r in results.items() if r["outcome"] == "mismatch" and "not finite" in r["detail"]]
            if not bad:
                return
            scale = 2.0 ** -k
            for n in self.problem[1]:
                np.save(self.file("ws_" + n), np.load(self.file("w_" + n)) * scale)
            self.weights = "ws_"
            py = self.python_jobs([p for p in bad if not p.startswith(CLI_GRADIENTS)])
            for p in bad:
                r = self.grad_cli(p) if p.startswith(CLI_GRADIENTS) else py.get(p)
                if r is not None:
                    continue
                for n in self.problem[0]:
                    f = self.file(p + "." + n)
                    if os.path.exists(f):
                        np.save(f, np.load(f) / scale)
                if self.compare_gradient(p)["outcome"] == "ok":
                    results[p] = Result(p, "ok", f"adjoints overflow at the drawn weights; at weights 2^-{k} "
                                        "as large the gradient matches")
            self.weights = "w_"
        self.adjoints_past_every_scale(results, drawn)

    def adjoints_past_every_scale(self, results, drawn):
        """Past every scale (an adjoint of 10^800, say) no float64 reverse mode, PyTorch's
        included, gives a finite partial where a zero factor meets an infinite adjoint. The
        gradient is then taken output by output (the others' weights 0), each against its own
        differences: elements not finite where that output's differences are exactly 0 are
        left unjudged; every other element still has to match."""
        bad = [p for p, r in results.items() if r["outcome"] == "mismatch" and "not finite" in r["detail"]]
        if not bad:
            return
        wrt, of = self.problem
        kept = {f: np.load(f) for n in wrt for f in (self.file("fd." + n), self.file("fd_smooth." + n),
                                                      self.file("fd_err." + n)) if os.path.exists(f)}
        unjudged = {p: [] for p in bad}
        self.weights = "ws_"
        for o in of:
            for n in of:
                w = np.load(self.file("w_" + n))
                np.save(self.file("ws_" + n), w if n == o else np.zeros_like(w))
            if self.python_jobs(["fd"]).get("fd") is not None:
                break
            py = self.python_jobs([p for p in bad if not p.startswith(CLI_GRADIENTS)])
            for p in list(unjudged):
                r = self.grad_cli(p) if p.startswith(CLI_GRADIENTS) else py.get(p)
                judged = r or self.compare_gradient(p, excuse_overflow=True)
                if judged["outcome"] == "ok":
                    unjudged[p].append(f"{o}: {judged['detail'] or 'matches'}")
                else:
                    del unjudged[p]
        else:
            for p, said in unjudged.items():
                results[p] = Result(p, "ok", "adjoints overflow past every weight scale; output by output "
                                    "(unjudged: not finite where its differences are exactly 0): " + "; ".join(said))
        self.weights = "w_"
        for f, v in {**kept, **drawn}.items():
            np.save(f, v)

    def check_refusals(self, results):
        """A refusal is fine when it is the same on every path that should agree:
        forward paths with the reference, gradient paths with each other."""
        ref = results["ref"]
        for p, r in list(results.items()):
            if p == "ref" or r["outcome"] != "refused":
                continue
            kind = p.split(":")[0]
            if kind in GRADIENT or kind in ("sched", "teml", "shapes"):  # a schedule's step may be refused; TeML: its own
                continue
            if ref["outcome"] != "refused":
                results[p] = Result(p, "mismatch", "refused where the reference ran: " + r["kind"], kind=r["kind"])
        grads = {p: r for p, r in results.items() if p.split(":")[0] in GRADIENT and r["outcome"] in ("refused", "ok")}
        for tapes in TAPES:
            same = {p: r for p, r in grads.items() if p.endswith(":" + tapes)}
            refused = {p for p, r in same.items() if r["outcome"] == "refused"}
            if refused and len(refused) != len(same):
                for p in same:
                    if p not in refused:
                        results[p] = Result(p, "mismatch", "ran where another gradient path refused: "
                                            + same[sorted(refused)[0]]["kind"])

    @staticmethod
    def outcome(results):
        order = ["crash", "hang", "internal", "mismatch"]
        for o in order:
            bad = [p for p, r in results.items() if r["outcome"] == o]
            if bad:
                return {"outcome": o, "path": bad[0], "kind": results[bad[0]].get("kind")}
        if results["ref"]["outcome"] == "refused":
            return {"outcome": "refused", "kind": results["ref"]["kind"]}
        return {"outcome": "ok"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("--paths", default=",".join(ALL_PATHS))
    ap.add_argument("--input-seed", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--tune-budget", type=float, default=0.0)
    ap.add_argument("--keep", help="keep inputs and outputs in this folder")
    ap.add_argument("--log", help="append every command and its output to this file")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.log:  # the log may go in the --keep folder, which the runner makes later
        os.makedirs(os.path.dirname(os.path.abspath(a.log)), exist_ok=True)
    log = open(a.log, "a") if a.log else None
    r = Runner(a.program, a.paths.split(","), a.input_seed, a.keep, a.timeout, a.tune_budget, log=log).run()
    if a.json:
        print(json.dumps(r))
    else:
        for p, x in r["paths"].items():
            print(f"{p:16} {x['outcome']:9} {x.get('kind') or ''} {x['detail'][:300] if x['outcome'] != 'ok' else ''}")
        print(f"outcome: {r['outcome']} {r.get('failing_path') or ''} ({r['seconds']} s)")
    sys.exit(0 if r["outcome"] in ("ok", "refused") else 1)


if __name__ == "__main__":
    main()
