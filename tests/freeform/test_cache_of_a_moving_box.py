"""`cache` at a loop after skew and stripmine (fuzz seed 5353 made ill-formed
IR: an internal error; later a refusal, the box's start read `8 * j_o`).
Since skew and stripmine write their bounds as one sum, the elements of in1
that loop 'i' uses start where the row starts: the cache holds the row and
the result is the interpreter's. (A box that does move with a loop inside
the cached one is still refused at its step: schedule/cache.cpp.)"""
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


def test_a_cache_after_skew_and_stripmine_copies_the_row_it_uses(tmp_path):
    path = tmp_path / "program.teml"
    path.write_text(PROGRAM)
    for n in ("8", "13"):
        r = subprocess.run([TEML, "run", str(path), "--set", "N=" + n, "--random", "1", "--verify"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "(ok)" in r.stdout + r.stderr
    emitted = subprocess.run([TEML, "emit", str(path), "--set", "N=8", "--emit", "ir"], capture_output=True, text=True)
    assert "for c2 in [0, 8)" in emitted.stdout, emitted.stdout
