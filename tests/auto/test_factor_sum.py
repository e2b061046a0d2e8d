"""factor_sum(l, k): sums over loop k whose terms share a factor add up only
the rest in their registers and multiply by the shared factor once after the
loop (docs/transformations.md). Results agree with the interpreter; the
lowered program names the sums it factors; a loop whose sums share no factor
is refused."""
from conftest import ROOT, sizes, teml

SDDMM = (ROOT / "examples" / "sddmm" / "naive.teml").read_text().replace("codegen(l)", "")
# Register blocks of 3 rows x 8 columns (whole blocks apart: their vectors
# have a constant length), sums over a block of k inside: each block adds
# its factored sum to what the blocks before left in R.
BLOCKED = """b0 = stripmine(l, i3, 8)
b1 = stripmine(b0, i2, 8)
b2 = reorder(b1, [i2_o, i3_o, i1, i2, i3])
b3 = vectorize(b2, i2)
b4 = unroll_and_jam(b3, i1, 3)
b5 = separate_tail(b4, i2_o)
"""
SHAPE = sizes(N=37, K=23)  # neither 3 rows nor blocks of 8 divide them


def write(tmp_path, schedule):
    program = tmp_path / "sddmm.teml"
    program.write_text(SDDMM + BLOCKED + schedule)
    return program


def test_registers_sum_the_varying_part_and_multiply_once(tmp_path):
    program = write(tmp_path, "f = factor_sum(b5, i3)\ncodegen(f)\n")
    lowered = teml("emit", program, *SHAPE, "--emit", "lowered", "--cache-dir", tmp_path)
    assert lowered.returncode == 0, lowered.stderr
    assert "factor-sums" in lowered.stdout and "factored(" in lowered.stdout, lowered.stdout
    c = teml("emit", program, *SHAPE, "--cache-dir", tmp_path).stdout
    assert "vacc = ((teml_vd){0} + 0.0);" in c, c
    # A's rows for the jammed rows of S through one pointer (docs/lowering.md, scalar rows)
    assert "*srow = &A[" in c and "vacc += (srow[" in c and "((*(teml_vd *)&S[" in c, c
    for threads in (1, 2, 4):
        run = teml("run", program, *SHAPE, "--verify", "--random", "3", "--threads", threads, "--cache-dir", tmp_path)
        assert run.returncode == 0 and "(ok)" in run.stdout, run.stdout + run.stderr


def test_without_it_every_term_carries_the_shared_factor(tmp_path):
    program = write(tmp_path, "codegen(b5)\n")
    lowered = teml("emit", program, *SHAPE, "--emit", "lowered", "--cache-dir", tmp_path)
    assert "register-sums(" in lowered.stdout and "factored(" not in lowered.stdout, lowered.stdout
    c = teml("emit", program, *SHAPE, "--cache-dir", tmp_path).stdout
    assert "vacc = ((teml_vd){0} + 0.0);" not in c


def test_a_loop_whose_sums_share_no_factor_is_refused(tmp_path):
    program = write(tmp_path, "f = factor_sum(b5, i1)\ncodegen(f)\n")
    run = teml("run", program, *SHAPE, "--cache-dir", tmp_path)
    assert run.returncode == 1
    assert "factor_sum: no sum over loop 'i1' has terms that share a factor" in run.stderr, run.stderr
