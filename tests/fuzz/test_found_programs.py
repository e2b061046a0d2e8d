"""Every program the oracle found a bug with, reduced (tests/fuzz/found/),
passes the path it failed on: each file's second line names the path
("on path P") and, where the inputs matter, their seed ("input seed S")."""
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
    text = program.read_text()
    path = re.search(r"on path (\w+)", text).group(1)
    seed = re.search(r"input seed (\d+)", text)  # the inputs it failed with, where they matter
    with open(tmp_path / "log", "w") as log:
        r = runner.Runner(str(program), [path], int(seed.group(1)) if seed else 0, str(tmp_path / "work"), 120,
                          log=log).run()
    taken = [k for k in r["paths"] if k == path or k.startswith(path + ":")]  # pygrad: pygrad:all, ...
    assert taken
    for k in taken:
        assert r["paths"][k]["outcome"] == "ok", r["paths"][k]["detail"]
