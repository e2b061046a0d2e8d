"""--auto on TeIL programs: TeIL has no schedule language, so every nest is
scheduled automatically; -v prints the steps as TeML, one block per nest.
The results agree with the interpreter on 1, 2 and 4 threads."""
from conftest import ROOT, sizes, teml, teml_steps

TEIL = ROOT / "examples" / "teil"


def test_auto_scheduled_teil_programs_agree_with_the_interpreter(tmp_path):
    programs = {"matmul": sizes(l=37, m=29, n=23), "broadcast": sizes(k=3, m=13, n=17),
                "operator": sizes(E=9, n=5)}
    for name, shape in programs.items():
        for threads in (1, 2, 4):
            run = teml("run", TEIL / f"{name}.teil", *shape, "--auto", "--tune-budget", "0.05", "--verify",
                       "--random", "1", "--threads", threads, "--cache-dir", tmp_path)
            assert run.returncode == 0, run.stderr
            assert "(ok)" in run.stdout, name + run.stdout


def test_v_prints_each_nests_steps(tmp_path):
    run = teml("check", TEIL / "matmul.teil", *sizes(l=64, m=64, n=64), "--auto", "--tune-budget", "0", "-v",
               "--cache-dir", tmp_path)
    assert run.returncode == 0, run.stderr
    steps = teml_steps(run.stderr)
    assert steps[0].startswith("# nest1: ")
    assert any("vectorize(" in line for line in steps)
