"""Helpers for the tests of `--auto` on TeML programs: run the CLI on an
example kernel with its sizes, and read what -v prints."""
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEML = os.environ.get("TEML_BINARY", str(ROOT / "build" / "teml"))


def teml(*args):
    """Runs the CLI and returns the finished process."""
    return subprocess.run([TEML, *map(str, args)], capture_output=True, text=True)


def sizes(**values):
    out = []
    for name, value in values.items():
        out += ["--set", f"{name}={value}"]
    return out


def teml_steps(stderr):
    """The automatic schedule that -v prints, as TeML lines."""
    text = stderr[stderr.index("in TeML"):]
    return [line for line in text.splitlines()[1:] if not line.startswith("teml: ")]
