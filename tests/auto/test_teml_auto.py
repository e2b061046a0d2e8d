"""--auto on TeML programs (docs/auto-schedule.md): each nest that no
transformation touched gets an automatic schedule, register blocks for
contractions chosen by measuring candidates, and the choice is kept in the
kernel cache. The results agree with the reference interpreter on 1, 2 and 4
threads at sizes that no block divides; -v prints the steps as TeML that
replays to the same program."""
import re

import pytest

from conftest import ROOT, sizes, teml, teml_steps

# Every kernel of the TeML paper at sizes that the blocks (8 columns, 6 rows,
# 128-element tiles) do not divide.
KERNELS = {
    "mm": sizes(N=67),
    "sddmm": sizes(N=70, K=19),
    "mttkrp": sizes(I=13, J=21, K=11, L=9),
    "gconv": sizes(NB=3, G=2, C=5, H=9, R=3),
    "bmm": sizes(NB=5, M=19, K=7),
    "interp": sizes(E=20, N=7),
    "helm": sizes(E=10, N=13),
    "blur": sizes(N=37),
    "coars": sizes(N=45),
}


def naive(kernel):
    return ROOT / "examples" / kernel / "naive.teml"


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_auto_scheduled_kernel_agrees_with_the_interpreter_on_1_2_and_4_threads(kernel, tmp_path):
    for threads in (1, 2, 4):
        # A small budget: the measured search runs, and so does the heuristic choice.
        for budget in ("0.05", "0"):
            run = teml("run", naive(kernel), *KERNELS[kernel], "--auto", "--tune-budget", budget, "--verify",
                       "--random", "1", "--threads", threads, "--cache-dir", tmp_path / "cache")
            assert run.returncode == 0, run.stderr
            assert "(ok)" in run.stdout, run.stdout


def test_mm_gets_mms_register_block_with_packed_tiles(tmp_path):
    run = teml("emit", naive("mm"), *sizes(N=512), "--auto", "--tune-budget", "0", "-v", "--emit", "ir",
               "--cache-dir", tmp_path)
    assert run.returncode == 0, run.stderr
    steps = "\n".join(teml_steps(run.stderr))
    assert "= stripmine(l, i2, 128)" in steps
    assert re.search(r"= unroll_and_jam\(l_\d+, i1, \d+\)", steps)
    assert re.search(r"= cache\(l_\d+, i3_o, B\)", steps)
    assert "local B_cache" in run.stdout and "vector" in run.stdout and "parallel" in run.stdout


@pytest.mark.parametrize("kernel", ["mm", "mttkrp", "bmm", "gconv", "blur", "interp", "helm"])
def test_v_prints_teml_that_replays_to_the_same_program(kernel, tmp_path):
    cache = ["--cache-dir", tmp_path / "cache"]
    auto = teml("emit", naive(kernel), *KERNELS[kernel], "--auto", "--tune-budget", "0.05", "-v", "--emit", "ir", *cache)
    assert auto.returncode == 0, auto.stderr
    source = naive(kernel).read_text()
    written = [line for line in source.splitlines() if not line.startswith("codegen")]
    replay = tmp_path / "replay.teml"
    replay.write_text("\n".join(written + teml_steps(auto.stderr)) + "\n")
    pasted = teml("emit", replay, *KERNELS[kernel], "--emit", "ir", *cache)
    assert pasted.returncode == 0, pasted.stderr + replay.read_text()
    strip = lambda text: re.sub(r"  # .*", "", text)  # provenance names lines, which differ
    assert strip(pasted.stdout) == strip(auto.stdout)


def test_a_codegen_list_is_fused_with_its_intermediates_local_unless_an_output_names_them(tmp_path):
    args = [naive("interp"), *KERNELS["interp"], "--auto", "--tune-budget", "0", "--cache-dir", tmp_path / "cache"]
    fused = teml("emit", *args, "-v", "--emit", "ir")
    assert fused.returncode == 0, fused.stderr
    steps = "\n".join(teml_steps(fused.stderr))
    assert "= fuse_outer(m1_auto, m2_auto, 1)" in steps and "= parallelize(" in steps
    assert "local t1" in fused.stdout and "local t2" in fused.stdout
    assert "local v :" not in fused.stdout  # the result: no nest reads it
    # Asked for, t1 stays in memory, with the values the interpreter gives.
    kept = teml("run", *args, "--verify", "--random", "1", "--output", f"t1={tmp_path / 't1.npy'}", "-v")
    assert kept.returncode == 0, kept.stderr
    assert "(ok)" in kept.stdout and "= local(m1_fused" in kept.stderr
    assert not re.search(r"= local\([^)]*, t1\)", kept.stderr)
    assert (tmp_path / "t1.npy").stat().st_size > 20 * 7 * 7 * 7 * 8
    # v's block starts as zeros, since v does; given contents, it is read.
    assert "= cache_zeroed(m1_fused" in steps
    given = teml("run", *args, "--verify", "--random", "1", "--input", f"v={tmp_path / 't1.npy'}", "-v")
    assert given.returncode == 0, given.stderr
    assert "(ok)" in given.stdout and "cache_zeroed" not in given.stderr


def test_a_second_run_takes_the_stored_choice_and_a_damaged_one_is_measured_again(tmp_path):
    cache = tmp_path / "cache"
    args = ["emit", naive("mm"), *sizes(N=67), "--auto", "--emit", "ir", "--tune-budget", "10", "--cache-dir", cache]
    first = teml(*args)
    assert first.returncode == 0, first.stderr
    stored = list((cache / "tuning").iterdir())
    assert len(stored) == 1 and stored[0].read_text().startswith("choice ")
    assert teml(*args).stdout == first.stdout
    for damage in ("choice 9999\n", "garbage", ""):
        stored[0].write_text(damage)
        again = teml(*args)
        assert again.returncode == 0, again.stderr
        assert again.stdout == first.stdout or "B_cache" not in first.stdout
        assert stored[0].read_text().startswith("choice ")
    # A directory where the choice should be, a file where the tuning directory should be.
    stored[0].unlink()
    stored[0].mkdir()
    assert teml(*args).returncode == 0
    stored[0].rmdir()
    assert list((cache / "tuning").iterdir()) == []  # no temporary file left behind
    (cache / "tuning").rmdir()
    (cache / "tuning").write_text("not a directory")
    assert teml(*args).returncode == 0


def test_no_budget_measures_nothing(tmp_path):
    run = teml("run", naive("mm"), *sizes(N=67), "--auto", "--tune-budget", "0", "--cache-dir", tmp_path)
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "tuning").exists()


def test_nests_a_schedule_touched_are_left_as_they_are(tmp_path):
    best = ROOT / "examples" / "mm" / "best.teml"
    plain = teml("emit", best, *sizes(N=256), "--emit", "ir", "--cache-dir", tmp_path)
    auto = teml("emit", best, *sizes(N=256), "--emit", "ir", "--auto", "--cache-dir", tmp_path)
    assert plain.returncode == 0 and auto.returncode == 0
    assert auto.stdout == plain.stdout


def test_a_bad_budget_is_a_usage_error():
    run = teml("run", naive("mm"), *sizes(N=8), "--auto", "--tune-budget", "soon")
    assert run.returncode == 2
    assert "--tune-budget" in run.stderr


def test_auto_schedule_in_teml_schedules_what_the_steps_before_left_alone(tmp_path):
    # The user puts the rows on threads; auto_schedule adds the rest and
    # keeps that mark. -v prints its steps, the last value named as the
    # program names it.
    source = naive("mm").read_text().replace(
        "codegen(l)", "p = parallelize(l, i1)\na = auto_schedule(p)\ncodegen(a)")
    program = tmp_path / "partial.teml"
    program.write_text(source)
    shape = sizes(N=37)
    run = teml("emit", program, *shape, "--emit", "ir", "--tune-budget", "0", "-v", "--cache-dir", tmp_path)
    assert run.returncode == 0, run.stderr
    steps = teml_steps(run.stderr)
    assert steps[0].startswith("# p: ") and steps[-1].startswith("a = ")
    assert "parallel  @L1.1" in run.stdout and "vector" in run.stdout
    replay = tmp_path / "replay.teml"
    replay.write_text(source.replace("a = auto_schedule(p)", "\n".join(steps)))
    pasted = teml("emit", replay, *shape, "--emit", "ir", "--cache-dir", tmp_path)
    strip = lambda text: re.sub(r"  # .*", "", text)
    assert pasted.returncode == 0 and strip(pasted.stdout) == strip(run.stdout), pasted.stderr
    for threads in (1, 2, 4):
        check = teml("run", program, *shape, "--verify", "--random", "3", "--threads", threads, "--cache-dir", tmp_path)
        assert check.returncode == 0 and "(ok)" in check.stdout, check.stdout + check.stderr
