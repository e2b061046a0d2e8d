"""A program the gradient stage refuses (tests/fuzz/refused/) is refused at
the line of the statement at fault, `file:line:col: error:` (found by the
fuzz oracle: seed 1053 was refused with no position, first when isl gave
up, then when a value it must store needed a tape over a CSR row)."""
import os
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
TEML = os.environ.get("TEML_BINARY", str(HERE.parents[1] / "build" / "teml"))
PROGRAM = HERE / "refused" / "gradient_tape_over_a_row_loop.py"


def test_the_refusal_names_its_statements_line(tmp_path):
    expected = int(re.search(r"the statement of 't3' \((\d+)\)", PROGRAM.read_text()).group(1))
    run = subprocess.run([TEML, "grad", str(PROGRAM), "--wrt", "x,val", "--of", "y,Y,s", "--cache-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stderr
    assert re.search(rf"{re.escape(str(PROGRAM))}:{expected}:\d+: error: gradient: 't3' .*cannot be stored",
                     run.stderr), run.stderr
