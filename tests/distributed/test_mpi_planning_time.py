"""Exchange planning for several ranks (lowering/distributed/exchanges.cpp)
takes time about linear in the accesses of a step (docs/testing.md, second
campaign, bug 5): a CSR row loop reading y[col[k]] eight times plans in well
under a second of CPU. Each read came with its index check, a constraint on
loaded values alone; isl multiplied the checks' disjunctions out (0.43 s,
1.32 s, 4.05 s for 2, 3, 4 reads; eight: minutes). The plan is still right:
under mpirun the ranks write what one process writes."""
import os
import pathlib
import resource
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEML = os.environ.get("TEML_BINARY", str(ROOT / "build" / "teml"))
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_hwloc_base_binding_policy="none",
           OMP_NUM_THREADS="1")


def row_loop(reads, target="t[()] = ", extra=""):
    total = " + ".join(["y[col[k]]"] * reads)
    return f'''import teml
R = 8

@teml.transform
def f(ptr: teml.Var[(R + 1,), 'int32'], col: teml.Var[(8,), 'int64'],
      y: teml.Var[(33,), 'int32', 'output']{extra}):
    for i in range(R):
        t = teml.empty((), 'int32')
        for k in range(ptr[i], ptr[i + 1]):
            {target}{total}
'''


def cpu_seconds(args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert result.returncode == 0, result.stderr
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, result


@pytest.mark.parametrize("ranks", [2, 3])
def test_eight_indirect_reads_in_a_row_loop_plan_in_well_under_a_second(tmp_path, ranks):
    path = tmp_path / "rows.py"
    path.write_text(row_loop(8))
    seconds, result = cpu_seconds([TEML, "emit", str(path), "--ranks", str(ranks), "--emit", "lowered"])
    assert " distributed" in result.stdout, result.stdout
    assert seconds < 1.0, f"{seconds:.2f} s of CPU to plan {ranks} ranks"


def test_eight_indirect_reads_under_mpirun_write_what_one_process_writes(tmp_path):
    path = tmp_path / "rows.py"
    path.write_text(row_loop(8, "z[i] += ", ", z: teml.Var[(R,), 'int64', 'output']"))
    rng = np.random.default_rng(5)
    counts = rng.multinomial(8, np.ones(8) / 8)
    inputs = {"ptr": np.concatenate([[0], np.cumsum(counts)]).astype(np.int32),
              "col": rng.integers(0, 33, 8).astype(np.int64), "y": rng.integers(-9, 9, 33).astype(np.int32)}
    args = [TEML, "run", str(path), "--cache-dir", str(tmp_path / "cache")]
    for name, value in inputs.items():
        np.save(tmp_path / f"{name}.npy", value)
        args += ["--input", f"{name}={tmp_path / f'{name}.npy'}"]
    results = {}
    for ranks in (None, 3):
        out = tmp_path / f"z{ranks}.npy"
        launch = ["mpirun", "-np", str(ranks)] if ranks else []
        _, result = cpu_seconds(launch + args + ["--output", f"z={out}"])
        results[ranks] = np.load(out)
    expected = [8 * inputs["y"][inputs["col"][inputs["ptr"][i]:inputs["ptr"][i + 1]]].sum() for i in range(8)]
    np.testing.assert_array_equal(results[None], expected)
    np.testing.assert_array_equal(results[3], expected)
