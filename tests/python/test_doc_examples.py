"""Every example in README.md and docs/*.md, run as written (issue 45).

Each fenced code block (```lang ... ```, also indented inside lists) and
each indented block of commands (`    ./build/teml run ...`) of README.md and
docs/*.md is one test, named `DOC:LINE`. What a block is decides its check:

- ```python
  - first line `# PATH (abridged)` or `# PATH (excerpt)`, PATH a file of the
    repository: an excerpt, checked against the file (below);
  - first line `# NAME.py` (not a file of the repository): the file NAME.py
    of the page, which its commands use (`teml run NAME.py ...`);
    `# NAME.py (continued)` adds to it. Checked by `teml check`, and by
    the commands of the page that name it;
  - a block that defines `@teml.transform` functions and calls none is
    free-form program text: `teml run --random 1`, sizes bound as needed;
  - any other block is a Python script: /usr/bin/python3 runs it and it
    must exit 0; a transform it defines must be called. ```python continued
    runs after the page's script blocks before it, in one process;
  - ```python excerpt: part of a program (a loop body, a statement); only
    its syntax is checked (`ast.parse`).
- ```teml, ```teil, ```til: program text (`teml run`, sizes bound as
  needed), or an excerpt of a file (`# PATH (abridged)` first).
- ```sh and indented command blocks: every command runs and must exit 0.
- ```console: `$ COMMAND` lines, each followed by the output it prints. The
  command runs; the output shown must be what it prints now: each run of
  lines between `...` lines is found, line after line, in its standard
  output or error (`...` inside a line stands for anything), leaving out
  the stage times of `-v` (`teml: parse  0.20 ms`) and the tuning progress
  lines (`teml: tuning: ...`, printed only while a measurement lasts). The
  commands run with TEML_VECTOR_BYTES=32: the pages show what an AVX2
  machine prints. Where `--auto` measures (TeML, no `--tune-budget 0`), the
  steps it prints are the fastest candidate on this machine, so instead of
  being compared they are pasted in place of the program's `codegen` and
  `teml check` must accept them (the pages say they can be pasted).
- ```cpp: compiled (`-fsyntax-only`) against include/teml/operators.hpp,
  its statements inside a `main`.

Commands run in a folder of the page's own that links every top-level
entry of the repository (so `examples/...` and `./build/teml` resolve) and
holds the page's files (`mesh.py`); `teml` is build/teml, `python3` is
/usr/bin/python3, and `--input T=FILE.npy` files the folder lacks are made
from the program's shapes (floats uniform in [-1, 1), integers 0, as
`--random` fills them). `[-o FILE]` in a command is optional syntax: it
runs without it. Commands that need a GPU (`run`, `bench` or `grad` with
`--target cuda` and no `--emulate`) run as `teml emit` with the same
program and target: this suite runs where there is no GPU, so it checks
that they compile, not that they run. MPI commands run with Open MPI's
settings for root and oversubscription.

Skipped, and why, in SKIPPED_BLOCKS and SKIPPED_COMMANDS below.
"""
from __future__ import annotations

import ast
import dataclasses
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PYTHON = "/usr/bin/python3"


def _teml_binary() -> pathlib.Path:
    if os.environ.get("TEML_BINARY"):
        return pathlib.Path(os.environ["TEML_BINARY"]).resolve()
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        path = pathlib.Path(entry) if entry else None
        if path and path.name == "python" and (path.parent / "teml").is_file():
            return (path.parent / "teml").resolve()
    return ROOT / "build" / "teml"


TEML = _teml_binary()
BUILD = TEML.parent

# Pages whose examples are not run, and why.
SKIPPED_PAGES = {
    "docs/install.md": "installing: apt-get, pip into a fresh venv, CMake builds of the whole library; "
                       "tests/packaging/test_pip_install.py (ctest PipInstall) runs them",
}
# Block kinds that are not run, and why.
SKIPPED_BLOCKS = {
    "text": "diagrams, grammar and usage synopses, pseudo-code, error messages and -v lines "
            "of programs the page does not show: nothing to run",
}
# Commands that are not run (matched at the start of a command, or anywhere for fuzz.sh), and why.
SKIPPED_COMMANDS = {
    r"bash scripts/setup\.sh": "installs Debian packages and builds teml: CI's own setup, not a test",
    r"bash scripts/test\.sh": "the whole test suite, this test among it",
    r".*scripts/fuzz\.sh": "a fuzzing campaign: minutes to hours (tests/fuzz/test_fuzz_sample.py runs a sample)",
    r"srun ": "Slurm is not installed where the tests run",
    r"(sudo )?apt-get ": "installs Debian packages",
    r"cmake ": "builds teml (CI builds it before the tests)",
    r"python3 -m venv |.*\bpip3? (install|wheel|uninstall)\b|~/":
        "installs into (or runs from) a virtual environment in the user's home: "
        "tests/packaging/test_pip_install.py (ctest PipInstall) installs from the build tree into fresh venvs",
}
MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_MCA_hwloc_base_binding_policy": "none",
}
TIMEOUT = 180
SIZE_WHEN_UNBOUND = 24  # a size the example leaves to the user (program text, shapes of generated inputs)


# ---------------------------------------------------------------------------
# Reading the pages


@dataclasses.dataclass
class Block:
    doc: str        # the page, relative to the repository
    line: int       # the line of its opening fence (or its first command)
    lang: str       # "" for an indented command block
    attrs: list     # the further words of the fence's info string
    text: str       # its lines, without the fence and the indentation
    fenced: bool

    @property
    def name(self):
        return f"{self.doc}:{self.line}"

    @property
    def first_line(self):
        lines = self.text.splitlines()
        return lines[0].strip() if lines else ""


FENCE_OPEN = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
COMMAND = re.compile(r"^(\./build/teml|teml|python3|/usr/bin/python3|mpirun|srun|bash|scripts/|[A-Z_]+=\S+ )(\s|$)")


def read_blocks(doc: pathlib.Path):
    rel = str(doc.relative_to(ROOT))
    lines = doc.read_text().split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE_OPEN.match(lines[i])
        if m:
            indent, fence = len(m["indent"]), m["fence"]
            info = m["info"].split()
            close = re.compile(r"^ *" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
            j = i + 1
            while j < len(lines) and not close.match(lines[j]):
                j += 1
            body = [ln[indent:] if ln[:indent].strip() == "" else ln.lstrip() for ln in lines[i + 1:j]]
            blocks.append(Block(rel, i + 1, info[0] if info else "", info[1:], "\n".join(body) + "\n", True))
            i = j + 1
            continue
        m = re.match(r"^( {4,})(\S.*)$", lines[i])
        if m and (i == 0 or not lines[i - 1].strip()) and COMMAND.match(m[2]):
            indent = len(m[1])
            j = i
            while j < len(lines) and lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) >= indent:
                j += 1
            blocks.append(Block(rel, i + 1, "", [], "\n".join(ln[indent:] for ln in lines[i:j]) + "\n", False))
            i = j
            continue
        i += 1
    return blocks


DOCS = [d for d in [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
        if str(d.relative_to(ROOT)) not in SKIPPED_PAGES]
BLOCKS = [b for doc in DOCS for b in read_blocks(doc)]
BY_DOC = {}
for _b in BLOCKS:
    BY_DOC.setdefault(_b.doc, []).append(_b)

HEADER = re.compile(r"^#\s*(?P<path>[\w./-]+\.\w+)\s*(?:\((?P<note>[^)]*)\))?\s*:?\s*$")


def header(block):
    """(path, note) of a first line `# PATH (NOTE)`, or (None, None)."""
    m = HEADER.match(block.first_line)
    return (m["path"], m["note"] or "") if m else (None, None)


def is_excerpt_of_file(block):
    path, note = header(block)
    return path is not None and (ROOT / path).is_file() and ("abridged" in note or "excerpt" in note)


def page_file(block):
    """The name of the page's own file this block is (or adds to), else None."""
    path, note = header(block)
    if path is None or (ROOT / path).exists() or "/" in path:
        return None
    return path


def transforms_defined_and_called(text):
    tree = ast.parse(text)
    defined = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                d = d.func if isinstance(d, ast.Call) else d
                if (isinstance(d, ast.Attribute) and d.attr == "transform") or \
                        (isinstance(d, ast.Name) and d.id == "transform"):
                    defined.add(node.name)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            f = node.value.func
            if isinstance(f, ast.Attribute) and f.attr == "transform":
                defined |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    called = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            while isinstance(f, ast.Attribute):  # f.python(...), f.ir()
                f = f.value
            if isinstance(f, ast.Name):
                called.add(f.id)
    return defined, called & defined


def kind_of(block):
    if not block.fenced:
        return "commands"
    lang = block.lang
    if lang == "":
        return "untagged"
    if lang == "text":
        return "text"
    if lang in ("sh", "shell", "bash"):
        return "commands"
    if lang == "console":
        return "console"
    if lang == "cpp":
        return "cpp"
    if lang in ("python", "teml", "teil", "til"):
        if is_excerpt_of_file(block):
            return "file excerpt"
        if page_file(block):
            return "page file"
        if lang != "python":
            return "program"
        if "excerpt" in block.attrs:
            return "python excerpt"
        defined, called = transforms_defined_and_called(block.text)
        if defined and not called:
            return "program"
        return "python script"
    return "unknown language"


# ---------------------------------------------------------------------------
# A page's folder


_FOLDERS = {}


def folder_for(doc, tmp_path_factory):
    if doc not in _FOLDERS:
        d = tmp_path_factory.mktemp(re.sub(r"\W", "_", doc))
        for entry in ROOT.iterdir():
            if entry.name.startswith(".") or entry.name in ("build", "fuzz-out"):
                continue
            (d / entry.name).symlink_to(entry)
        (d / "build").symlink_to(BUILD)
        (d / "bin").mkdir()
        (d / "bin" / "teml").symlink_to(TEML)
        (d / "bin" / "python3").symlink_to(PYTHON)
        _FOLDERS[doc] = d
    return _FOLDERS[doc]


def write_page_files(block, folder):
    """The page's files as they stand at this block (the blocks of the page before it, and it)."""
    contents = {}
    for b in BY_DOC[block.doc]:
        if b.line > block.line:
            break
        name = page_file(b) if b.fenced else None
        if name:
            _, note = header(b)
            if "continued" in note and name in contents:
                contents[name] += "\n" + b.text
            else:
                contents[name] = b.text
    for name, text in contents.items():
        (folder / name).write_text(text)
    return contents


def environment(folder, vector_bytes=None):
    env = dict(os.environ)
    env["PATH"] = f"{folder / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(BUILD / "python")
    env.update(MPI_ENV)
    if vector_bytes:
        env["TEML_VECTOR_BYTES"] = str(vector_bytes)
    return env


def run(args, folder, env, shell=False, stdin=None):
    return subprocess.run(args, cwd=folder, env=env, shell=shell, input=stdin, capture_output=True,
                          text=True, timeout=TIMEOUT, executable="/bin/bash" if shell else None)


def explain(what, r):
    return f"{what}: exit {r.returncode}\n--- stdout\n{r.stdout[-4000:]}\n--- stderr\n{r.stderr[-4000:]}"


UNBOUND = re.compile(r"'(\w+)' is not a size bound|size parameter '(\w+)' is not bound|size '(\w+)'[^\n]* is not bound")


def teml_binding_sizes(command, program, options, folder, env):
    """`teml COMMAND PROGRAM OPTIONS`, binding the sizes it says are unbound; the last result."""
    options = list(options)
    for _ in range(12):
        r = run([str(TEML), command, program] + options, folder, env)
        m = UNBOUND.search(r.stderr)
        if r.returncode == 0 or not m:
            return r
        options += ["--set", f"{next(g for g in m.groups() if g)}={SIZE_WHEN_UNBOUND}"]
    return r


# ---------------------------------------------------------------------------
# Commands


def split_commands(text):
    """Commands of a block: continuation lines joined, blank lines and comments dropped."""
    commands, current = [], ""
    for line in text.splitlines():
        if current:
            current += " " + line.strip()
        elif line.strip() and not line.lstrip().startswith("#"):
            current = line.strip()
        if current.endswith("\\"):
            current = current[:-1].rstrip()
            continue
        if current:
            commands.append(current)
        current = ""
    if current:
        commands.append(current)
    return commands


def skipped_reason(command):
    for pattern, reason in SKIPPED_COMMANDS.items():
        if re.match(pattern, command):
            return reason
    return None


TEML_CALL = re.compile(r"(?:^|\s)(?:\./build/teml|teml)\s+(run|emit|check|bench|grad)\s+(\S+)")
RUN_ONLY = {"--verify": 0, "--random": 1, "--output": 1, "--json": 0, "--runs": 1, "--interp": 0}


def words_without_comment(command):
    lexer = shlex.shlex(command, posix=True, punctuation_chars=False)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return list(lexer)


def for_this_machine(command):
    """The command as the suite runs it: optional `[...]` parts left out; GPU runs made `emit`."""
    command = re.sub(r"\s\[-[^\]]*\]", "", command)
    words = words_without_comment(command)
    if "--target" in words and words[words.index("--target") + 1] == "cuda" and "--emulate" not in words:
        for k, w in enumerate(words):
            if w in ("run", "bench", "grad") and k > 0 and words[k - 1].endswith("teml"):
                # No GPU here: check that it compiles for one (teml emit), not that it runs.
                words[k] = "emit"
                out, skip = [], 0
                for w2 in words:
                    if skip:
                        skip -= 1
                    elif w2 in RUN_ONLY:
                        skip = RUN_ONLY[w2]
                    else:
                        out.append(w2)
                return shlex.join(out)
    return command


def option_values(words, name):
    return [words[k + 1] for k, w in enumerate(words) if w == name and k + 1 < len(words)]


DTYPES = {"double": np.float64, "float": np.float32, "int32": np.int32, "int64": np.int64, "bool": np.bool_}


def make_missing_inputs(command, folder, env):
    """The `--input T=FILE.npy` files the folder lacks, of the program's shapes."""
    words = words_without_comment(command)
    m = TEML_CALL.search(" ".join(words))
    if not m:
        return
    inputs = [v.split("=", 1) for v in option_values(words, "--input")]
    missing = [(t, f) for t, f in inputs if not (folder / f).exists()]
    if not missing:
        return
    sets = [x for v in option_values(words, "--set") for x in ("--set", v)]
    present = [x for t, f in inputs if (folder / f).exists() for x in ("--input", f"{t}={f}")]
    r = teml_binding_sizes("emit", m[2], sets + present + ["--emit", "loops"], folder, env)
    assert r.returncode == 0, explain(f"the shapes of {m[2]}'s inputs", r)
    shapes = {}
    for name, dtype, dims in re.findall(r"^tensor (\S+) : (\w+)\[([^\]]*)\]", r.stdout, re.M):
        shapes[name] = (DTYPES[dtype], tuple(int(d) for d in dims.split(",") if d.strip()))
    rng = np.random.default_rng(1)
    for tensor, file in missing:
        dtype, shape = shapes[tensor[:-5] if tensor.endswith(".grad") else tensor]
        if np.issubdtype(dtype, np.floating):
            data = rng.uniform(-1, 1, shape).astype(dtype)
        else:
            data = np.zeros(shape, dtype)
        np.save(folder / file, data)


def run_command(command, folder, env):
    parts = []
    for part in command.split(" && "):
        if skipped_reason(part.strip()) is None:
            parts.append(part)
    if not parts:
        return None
    command = for_this_machine(" && ".join(parts))
    if command.split()[0] == "mpirun" and shutil.which("mpirun") is None:
        pytest.skip("mpirun is not installed here")
    make_missing_inputs(command, folder, env)
    r = run(command, folder, env, shell=True)
    assert r.returncode == 0, explain(f"`{command}`", r)
    return r


# ---------------------------------------------------------------------------
# Output shown by the pages


STAGE_TIME = re.compile(r"^teml: [\w() -]+?\s+\d+(\.\d+)? ms$")
TUNING = re.compile(r"^teml: tuning: ")
TEML_STEP = re.compile(r"^(\w+ = \w+\(.*\)|codegen\(.*\)|# \w+: .*steps?)$")


def line_pattern(line):
    parts = [r"\s+".join(re.escape(w) for w in part.split()) for part in line.split("...")]
    return re.compile(r"\s*" + r".*".join(parts) + r"\s*")


def runs_of_lines(expected):
    runs, current = [], []
    for line in expected:
        if line.strip() == "...":
            if current:
                runs.append(current)
            current = []
        else:
            current.append(line)
    if current:
        runs.append(current)
    return runs


def find_run(run_lines, actual, start):
    patterns = [line_pattern(x) for x in run_lines]
    for k in range(start, len(actual) - len(patterns) + 1):
        if all(p.fullmatch(actual[k + n]) for n, p in enumerate(patterns)):
            return k + len(patterns)
    return None


def check_output(expected, stdout, stderr, what):
    streams = [[ln for ln in s.splitlines() if not STAGE_TIME.match(ln) and not TUNING.match(ln)]
               for s in (stdout, stderr)]
    positions = [0, 0]
    for run_lines in runs_of_lines(expected):
        for k, actual in enumerate(streams):
            end = find_run(run_lines, actual, positions[k])
            if end is not None:
                positions[k] = end
                break
        else:
            pytest.fail(f"{what} no longer prints\n  " + "\n  ".join(run_lines) +
                        "\n--- it prints (stdout)\n" + "\n".join(streams[0]) +
                        "\n--- (stderr)\n" + "\n".join(streams[1]))


def paste_steps(command, steps, folder, env):
    """Steps -v printed for a TeML program, put in place of its last codegen: teml check accepts them."""
    words = words_without_comment(command)
    program = TEML_CALL.search(" ".join(words))[2]
    lines = (folder / program).read_text().splitlines()
    last = max(k for k, ln in enumerate(lines) if ln.lstrip().startswith("codegen("))
    pasted = folder / "pasted_steps.teml"
    pasted.write_text("\n".join(lines[:last] + steps + lines[last + 1:]) + "\n")
    sets = [x for v in option_values(words, "--set") for x in ("--set", v)]
    r = run([str(TEML), "check", str(pasted)] + sets, folder, env)
    assert r.returncode == 0, explain("the steps shown, pasted in place of codegen", r)


def check_console(block, folder):
    env = environment(folder, vector_bytes=32)
    sessions, current = [], None
    for line in block.text.splitlines():
        if line.startswith("$ "):
            current = [line[2:], []]
            sessions.append(current)
        elif current is not None and current[0].endswith("\\") and not current[1]:
            current[0] = current[0][:-1].rstrip() + " " + line.strip()
        elif current is not None:
            current[1].append(line)
        elif line.strip():
            pytest.fail(f"{block.name}: a console block starts with `$ COMMAND`")
    assert sessions, f"{block.name}: a console block without `$ COMMAND`"
    for command, expected in sessions:
        while expected and not expected[-1].strip():
            expected.pop()
        expected = [x for x in expected if not TUNING.match(x)]
        r = run_command(command, folder, env)
        assert r is not None, f"{block.name}: `{command}` is skipped, its output cannot be shown"
        words = words_without_comment(command)
        measured = "--auto" in words and "0" not in option_values(words, "--tune-budget") and \
            re.search(r"\.(teml|til)\b", command)
        if measured:
            steps = [x for x in expected if TEML_STEP.match(x.strip())]
            expected = [x for x in expected if not TEML_STEP.match(x.strip())]
            if steps and "..." not in steps:
                paste_steps(command, [x for x in steps if not x.startswith("#")], folder, env)
        check_output(expected, r.stdout, r.stderr, f"`{command}`")


# ---------------------------------------------------------------------------
# Program text, files, scripts


def comment_free(line, lang):
    if lang in ("python", "teml", "teil", "til"):
        line = line.split("#", 1)[0]
        if lang == "teml":
            line = line.split("//", 1)[0]
    return " ".join(line.split())


def check_file_excerpt(block):
    path, _ = header(block)
    want = [comment_free(x, block.lang) for x in block.text.splitlines()[1:]]
    want = [x for x in want if x and x != "..."]
    have = [comment_free(x, block.lang) for x in (ROOT / path).read_text().splitlines()]
    k = 0
    for line in want:
        while k < len(have) and have[k] != line:
            k += 1
        assert k < len(have), f"{block.name}: `{line}` is not in {path} (or not in this order)"
        k += 1


def check_program(block, folder, name=None):
    env = environment(folder)
    if name is None:
        name = "program_" + str(block.line) + {"python": ".py"}.get(block.lang, "." + block.lang)
        (folder / name).write_text(block.text)
        r = teml_binding_sizes("run", name, ["--random", "1"], folder, env)
    else:
        r = teml_binding_sizes("check", name, [], folder, env)
    assert r.returncode == 0, explain(f"teml on {name}", r)


def script_text(block):
    chain = [block]
    if "continued" in block.attrs:
        for b in reversed([b for b in BY_DOC[block.doc] if b.line < block.line]):
            if b.fenced and kind_of(b) == "python script":
                chain.insert(0, b)
                if "continued" not in b.attrs:
                    break
    return "\n".join(b.text for b in chain)


def check_script(block, folder):
    text = script_text(block)
    defined, called = transforms_defined_and_called(text)
    assert defined <= called, f"{block.name}: defines {sorted(defined - called)} and never calls it"
    script = folder / f"script_{block.line}.py"
    script.write_text(text)
    r = run([PYTHON, script.name], folder, environment(folder))
    assert r.returncode == 0, explain(f"{PYTHON} {block.name}", r)


def check_cpp(block, folder):
    top, body = [], []
    for line in block.text.splitlines():
        (top if line.startswith(("#include", "using ")) else body).append(line)
    source = folder / f"block_{block.line}.cpp"
    source.write_text("\n".join(top) + "\nint main() {\n" + "\n".join(body) + "\n}\n")
    compiler = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    r = run([compiler, "-std=c++20", "-fsyntax-only", f"-I{ROOT / 'include'}", source.name], folder, os.environ)
    assert r.returncode == 0, explain(f"the C++ of {block.name}", r)


# ---------------------------------------------------------------------------


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_doc_example(block, tmp_path_factory):
    kind = kind_of(block)
    if kind in SKIPPED_BLOCKS:
        pytest.skip(SKIPPED_BLOCKS[kind])
    assert kind != "untagged", (f"{block.name}: the block names no language: tag it (```python, ```teml, "
                                "```console, ```sh, ```text for what is not run, ...)")
    assert kind != "unknown language", f"{block.name}: no check for ```{block.lang}"
    folder = folder_for(block.doc, tmp_path_factory)
    write_page_files(block, folder)
    if kind == "file excerpt":
        check_file_excerpt(block)
    elif kind == "page file":
        check_program(block, folder, name=page_file(block))
    elif kind == "program":
        check_program(block, folder)
    elif kind == "python excerpt":
        ast.parse(block.text)
    elif kind == "python script":
        check_script(block, folder)
    elif kind == "commands":
        env = environment(folder)
        ran = [c for c in split_commands(block.text) if run_command(c, folder, env) is not None]
        if not ran:
            pytest.skip("; ".join(dict.fromkeys(skipped_reason(c) or "" for c in split_commands(block.text))))
    elif kind == "console":
        check_console(block, folder)
    elif kind == "cpp":
        check_cpp(block, folder)


def test_the_pages_have_examples():
    """The reader above finds the pages' blocks (a broken reader would pass every page)."""
    assert len(BLOCKS) >= 40
    kinds = {kind_of(b) for b in BLOCKS}
    assert {"commands", "python script", "console"} <= kinds, kinds
