"""--no-check (docs/cli.md): the steps that reorder iterations are applied
without their dependence checks, and a warning on standard error names them;
race checks stay on (parallelize, vectorize, distribute, codegen), as Halide
and TVM's TensorIR refuse races, and the refusal says that --no-check does
not lift them."""
import subprocess

from conftest import TEML

PREFIX_SUM = '''import teml

@teml.transform
def prefix(x: teml.Var[(n, m), "float32", "inout"]):
    #! label: Li
    for i in range(1, n):
        #! label: Lj
        for j in range(m):
            x[i, j] = x[i, j] + x[i - 1, j]

@teml.schedule(prefix)
def schedule(s):
    STEP
'''

# TeML: a[i + 3, j + 1] = a[i + 1, j + 2] + B[i, j] carries (i, j) -> (i + 2, j - 1)
CARRIED = ("a = tensor([N + 3, M + 2])\nB = tensor([N, M])\nt = vadd(a, B, [[i + 1, j + 2], [i, j]])\n"
           "a = eq(t, -> [i + 3, j + 1])\nl = build(a)\nSTEP\n")


def teml(tmp_path, name, text, *args):
    program = tmp_path / name
    program.write_text(text)
    r = subprocess.run([TEML, "check", str(program), *args, "--cache-dir", str(tmp_path / "cache")],
                       capture_output=True, text=True)
    return program, r


def test_a_reordering_is_applied_unchecked_and_the_warning_names_it(tmp_path):
    text = PREFIX_SUM.replace("STEP", 's.reorder(["Lj", "Li"])\n    s.reorder(["Li", "Lj"])')
    _, checked = teml(tmp_path, "p.py", text, "--set", "n=8", "--set", "m=4")
    assert checked.returncode == 0, checked.stderr  # both orders are legal: no dependence is reversed
    text = PREFIX_SUM.replace("x[i - 1, j]", "x[i - 1, j + 1]").replace("range(m)", "range(m - 1)").replace(
        "STEP", 's.reorder(["Lj", "Li"])')
    program, refused = teml(tmp_path, "p.py", text, "--set", "n=8", "--set", "m=4")
    assert refused.returncode == 1
    assert f"{program}:13:5: error: reorder would reverse the dependence" in refused.stderr, refused.stderr
    _, forced = teml(tmp_path, "p.py", text, "--set", "n=8", "--set", "m=4", "--no-check")
    assert forced.returncode == 0, forced.stderr
    assert forced.stderr == ("teml: warning: --no-check: applied without their dependence checks: reorder; "
                             "races (parallelize, vectorize, distribute) are still checked\n")


def test_a_race_is_refused_under_no_check_saying_so(tmp_path):
    text = PREFIX_SUM.replace("STEP", 's.parallelize("Li")')
    program, r = teml(tmp_path, "p.py", text, "--set", "n=8", "--set", "m=4", "--no-check")
    assert r.returncode == 1
    assert r.stderr.startswith(f"{program}:13:5: error: parallelize: in a parallel loop over 'i', different iterations "
                               "may read x[i - 1][j] while another writes x[i][j] (tensor 'x')"), r.stderr
    assert ("(--no-check skips the dependence checks of steps that reorder iterations, not the race checks of "
            "parallelize, vectorize and distribute)") in r.stderr
    _, legal = teml(tmp_path, "p.py", PREFIX_SUM.replace("STEP", 's.parallelize("Lj")'), "--set", "n=8", "--set", "m=4",
                    "--no-check")
    assert legal.returncode == 0, legal.stderr
    assert "no step needed a dependence check" in legal.stderr


def test_teml_programs_alike(tmp_path):
    _, forced = teml(tmp_path, "c.teml", CARRIED.replace("STEP", "s = interchange(l, 1, 2)\ncodegen(s)"),
                     "--set", "N=6", "--set", "M=5", "--no-check")
    assert forced.returncode == 0, forced.stderr
    assert "teml: warning: --no-check" in forced.stderr
    program, race = teml(tmp_path, "c.teml", CARRIED.replace("STEP", "s = parallelize(l, 1)\ncodegen(s)"),
                         "--set", "N=6", "--set", "M=5", "--no-check")
    assert race.returncode == 1
    assert f"{program}:6:5: error: parallelize:" in race.stderr, race.stderr
    assert "--no-check skips the dependence checks of steps that reorder iterations, not the race checks" in race.stderr
