"""Runs a test module's function in a process whose machine has 64-byte
vectors, run whole (TEML_WIDE_VECTORS=whole, 512-bit units) or as two
32-byte halves (halved, AMD Zen 4), whatever machine the tests run on: the
target is fixed once per process (src/target/target.cpp)."""
import json
import os
import pathlib
import subprocess
import sys
import textwrap


def result_on(tmp_path, module, function, wide_vectors):
    """`module.function()` (a test module beside this one) in such a process,
    its result passed back through JSON."""
    script = tmp_path / "check.py"
    script.write_text(textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
        import {module} as t
        print(json.dumps(t.{function}()))
    """))
    env = dict(os.environ, TEML_VECTOR_BYTES="64", TEML_WIDE_VECTORS=wide_vectors, XDG_CACHE_HOME=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])
