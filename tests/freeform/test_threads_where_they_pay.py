"""The automatic schedule puts a nest on threads only when it does enough
work to pay for them (docs/auto-schedule.md, auto_parallelize): fewer than
16384 statements run on one thread. The test suite sets
TEML_THREADS_AT_ANY_SIZE=1 so that its small programs still test parallel
code; these tests choose for themselves."""
import os
import pathlib
import re
import subprocess

from conftest import TEML

PROGRAM = '''import teml


@teml.transform
def f(x: teml.Var[(N, 48), "int64"], y: teml.Var[(N,), "int64", "output"]):
    #! label: Li
    for i in range(N):
        #! label: Lj
        for j in range(48):
            y[i] += x[i, j] * (j + 1)
'''


def schedule(tmp_path, rows, any_size):
    path = tmp_path / "program.py"
    path.write_text(PROGRAM.replace("N", str(rows)))
    env = dict(os.environ)
    env.pop("TEML_THREADS_AT_ANY_SIZE", None)
    if any_size:
        env["TEML_THREADS_AT_ANY_SIZE"] = "1"
    r = subprocess.run([TEML, "check", str(path), "-v", "--threads", "2", "--cache-dir", str(tmp_path / "cache")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    return r.stderr


def test_a_small_nest_runs_on_one_thread(tmp_path):
    steps = schedule(tmp_path, 64, any_size=False)  # 3072 statements
    assert 's.vectorize("Lj")' in steps
    assert "parallelize" not in steps


# The rows, or their blocks of four where 256-bit vectors make the 48 columns
# a long row (auto_sums_in_registers: rows jammed four at a time).
ROWS_ON_THREADS = re.compile(r's\.parallelize\("Li(\.o)?"\)')


def test_a_large_nest_runs_on_threads(tmp_path):
    steps = schedule(tmp_path, 1024, any_size=False)  # 49152 statements
    assert ROWS_ON_THREADS.search(steps), steps


def test_the_test_suites_switch_keeps_small_nests_on_threads(tmp_path):
    steps = schedule(tmp_path, 64, any_size=True)
    assert ROWS_ON_THREADS.search(steps), steps


def scatter_schedule(tmp_path, rows, threads):
    """The automatic schedule of examples/distributed/scatter.py (its own
    schedule left out): a scatter-add through a graph's edges into rows x 16
    int64, then a loop over the rows."""
    example = pathlib.Path(__file__).resolve().parents[2] / "examples" / "distributed" / "scatter.py"
    r = subprocess.run([TEML, "check", str(example), "--no-schedule", "-v", "--threads", str(threads), "--set",
                        f"N={rows}", "--set", f"M={10 * rows}", "--set", "C=16", "--cache-dir", str(tmp_path / "cache")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stderr


def test_a_scatter_too_large_for_a_copy_per_thread_stays_on_one_thread(tmp_path):
    # 200,000 x 16 int64 is 25.6 MB, past a private copy's 16 MiB: on threads
    # every update would be atomic, about six plain ones each, so 2 threads
    # would be slower than one (bench: 126-152 ms against 13-20 ms).
    steps = scatter_schedule(tmp_path, 200_000, 2)
    assert 's.parallelize("Lpush' not in steps, steps
    assert 's.parallelize("Lnode")' in steps, steps


def test_a_large_scatter_on_enough_threads_takes_atomic_updates(tmp_path):
    steps = scatter_schedule(tmp_path, 200_000, 8)
    assert 's.parallelize("Lpush' in steps, steps
    assert "reduction into 'g' (line 17) by atomic updates" in steps, steps


def test_a_scatter_with_a_copy_per_thread_runs_on_threads(tmp_path):
    steps = scatter_schedule(tmp_path, 2_000, 2)
    assert 's.parallelize("Lpush' in steps, steps
    assert "atomic" not in steps, steps


RECURRENCE = '''import teml


@teml.transform
def f(x: teml.Var[(N, 64), "int64"], y: teml.Var[(N, 64), "int64", "inout"]):
    #! label: Lk
    for k in range(1, 64):
        #! label: Li
        for i in range(ROWS):
            y[i, k] = (y[i, k - 1] * 3 + x[i, k] + i * 7 + k) % 1000003
'''


def recurrence_schedule(tmp_path, rows, shift):
    """The automatic schedule of a recurrence along k in each row (k serial,
    the rows independent), checked against the interpreter; with `shift` 1
    row i reads row i + 1, so rows may not run ahead of each other."""
    path = tmp_path / "program.py"
    text = RECURRENCE.replace("ROWS", str(rows - shift)).replace("N", str(rows))
    path.write_text(text.replace("y[i, k - 1]", f"y[i + {shift}, k - 1]") if shift else text)
    r = subprocess.run([TEML, "run", str(path), "-v", "--threads", "2", "--random", "1", "--verify",
                        "--cache-dir", str(tmp_path / "cache")], capture_output=True, text=True,
                       env=dict(os.environ, TEML_THREADS_AT_ANY_SIZE="1"))
    assert r.returncode == 0, r.stderr
    assert "reference interpreter 0.00e+00 (ok)" in r.stdout, r.stdout
    assert "sum = 0 " not in r.stdout, r.stdout  # the recurrence did run
    return r.stderr


def test_rows_on_threads_move_outside_a_serial_loop_that_would_start_them_each_step(tmp_path):
    # 63 steps of k, each 256 rows: one start of the threads, not 63
    steps = recurrence_schedule(tmp_path, 256, 0)
    assert 's.reorder(["Li", "Lk"])' in steps and 's.parallelize("Li")' in steps, steps


def test_rows_that_read_their_neighbours_last_step_stay_inside_the_serial_loop(tmp_path):
    steps = recurrence_schedule(tmp_path, 256, 1)
    assert "reorder" not in steps and 's.parallelize("Li")' in steps, steps


def test_rows_with_enough_work_each_step_stay_inside_the_serial_loop(tmp_path):
    steps = recurrence_schedule(tmp_path, 20000, 0)  # 20,000 rows a step: each start of the threads pays
    assert "reorder" not in steps and 's.parallelize("Li")' in steps, steps
