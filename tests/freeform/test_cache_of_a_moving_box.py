"""`cache` at a loop whose elements of the tensor start at an iterator of a
loop inside it (after skew and stripmine) is refused at its step, naming
the start and that loop (fuzz seed 5353 made ill-formed IR: an internal
error)."""
import subprocess

from conftest import TEML

PROGRAM = '''in1 = tensor([N, N])
in2 = tensor([N, N])
P3 = tensor([N, N])
P3 = sub(in1, in2, [[i, j], [j, i]] -> [i, j])
l0 = build(P3)
s0 = skew(l0, 1, 2, 1)
s1 = stripmine(s0, 2, 8)
s2 = cache(s1, 1, in1)
codegen(s2)
'''


def test_a_cache_whose_box_moves_with_an_inner_loop_is_refused_at_its_step(tmp_path):
    path = tmp_path / "program.teml"
    path.write_text(PROGRAM)
    r = subprocess.run([TEML, "run", str(path), "--set", "N=8", "--random", "1"], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert ("program.teml:8:6: error: cache: the elements of 'in1' that loop 'i' uses start at 8 * j_o, which moves "
            "with loop 'j_o' inside it; cache at that loop instead") in r.stderr, r.stderr
    assert "internal error" not in r.stderr
