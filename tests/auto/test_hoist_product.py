"""hoist_product(l, i): in loop i's statements, the factors of a product that
do not depend on i are multiplied first, so that their product is computed
once for all of i's iterations (docs/transformations.md). Results agree
with the interpreter; a loop with nothing to hoist is refused."""
from conftest import ROOT, sizes, teml

MTTKRP = (ROOT / "examples" / "mttkrp" / "naive.teml").read_text().replace("codegen(l)", "")


def test_the_factors_a_row_shares_are_multiplied_first(tmp_path):
    program = tmp_path / "hoisted.teml"
    program.write_text(MTTKRP + "h = hoist_product(l, i)\nu = unroll_and_jam(h, i, 3)\ncodegen(u)\n")
    shape = sizes(I=7, J=5, K=4, L=6)
    emitted = teml("emit", program, *shape, "--emit", "loops", "--cache-dir", tmp_path)
    assert emitted.returncode == 0, emitted.stderr
    assert "B[i][k][i4] * (D[i4][j] * C[k][j])" in emitted.stdout
    run = teml("run", program, *shape, "--verify", "--random", "2", "--cache-dir", tmp_path)
    assert run.returncode == 0 and "(ok)" in run.stdout, run.stdout + run.stderr


def test_a_loop_with_nothing_to_hoist_is_refused(tmp_path):
    program = tmp_path / "refused.teml"
    program.write_text(MTTKRP + "h = hoist_product(l, k)\ncodegen(h)\n")
    run = teml("run", program, *sizes(I=7, J=5, K=4, L=6), "--cache-dir", tmp_path)
    assert run.returncode == 1
    assert "hoist_product: no product in loop 'k'" in run.stderr
