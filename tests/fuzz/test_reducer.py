"""The reducer on a planted bug: with TEML_PLANTED_BUG=flip_sub the C back end
emits a float subtraction as an addition (src/codegen/c_expr.cpp). A generated
program that the planted bug makes fail on the `run` path is reduced to at
most 15 lines that still fail with the bug, and pass without it. Kernels
go to a private cache directory (the planted C hashes to other kernels
anyway: runtime/jit.cpp keys the cache by the C text)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generator  # noqa: E402
import reducer  # noqa: E402
import runner  # noqa: E402

pytestmark = pytest.mark.skipif(not os.path.exists(runner.TEML), reason="teml is not built")


def fails(path, env, text=None):
    r = runner.Runner(path, ["run"], 0, None, 60, env=env).run()
    return r["paths"]["run"]


def test_reducer_shrinks_a_program_the_planted_bug_breaks(tmp_path):
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    planted = {**cache, "TEML_PLANTED_BUG": "flip_sub"}
    found = None
    for seed in range(40):
        text = generator.generate(seed)
        if " - " not in text:
            continue
        path = tmp_path / f"seed-{seed}.py"
        path.write_text(text)
        res = fails(str(path), planted)
        if res["outcome"] == "mismatch":
            assert fails(str(path), cache)["outcome"] == "ok", f"seed {seed} fails without the planted bug"
            found = (seed, text, res)
            break
    assert found, "no program among seeds 0-39 fails with the planted bug"
    seed, text, res = found
    pred = reducer.runner_predicate("run", "mismatch", ["run"], 60, 0, env=planted)
    pred.set_category(res["detail"])
    small = reducer.Reducer(text, pred, max_seconds=600).reduce()
    out = tmp_path / f"seed-{seed}.reduced.py"
    out.write_text(small)
    print(small)
    assert len(small.splitlines()) <= 15, small
    assert len(small.splitlines()) < len(text.splitlines())
    assert fails(str(out), planted)["outcome"] == "mismatch"
    assert fails(str(out), cache)["outcome"] == "ok"
