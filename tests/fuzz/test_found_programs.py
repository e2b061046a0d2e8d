"""Every program the oracle found a bug with, reduced (tests/fuzz/found/),
passes the path it failed on: each file's second line names the path
("on path P")."""
import os
import pathlib
import re
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import runner  # noqa: E402

FOUND = sorted((HERE / "found").glob("*.py"))


@pytest.mark.parametrize("program", FOUND, ids=[p.stem for p in FOUND])
def test_the_reduced_program_passes_the_path_it_failed_on(program, tmp_path):
    path = re.search(r"on path (\w+)", program.read_text()).group(1)
    with open(tmp_path / "log", "w") as log:
        r = runner.Runner(str(program), [path], 0, str(tmp_path / "work"), 120, log=log).run()
    assert r["paths"][path]["outcome"] == "ok", r["paths"][path]["detail"]
