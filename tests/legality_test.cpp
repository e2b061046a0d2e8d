// Dependence-checked transformations: legal ones keep the results, illegal
// ones are refused with the transformation's line and the dependence. The
// cases follow the FreeTensor paper's Figures 11-13 where TeML can express them.
#include "analysis/legality.hpp"
#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "schedule/transforms.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

// a[i + 3][j + 1] = a[i + 1][j + 2] + B[i][j]: the dependence (i, j) -> (i + 2, j - 1) (Figure 11).
const std::string kFigure11 = R"(
a = tensor([N + 3, M + 2])
B = tensor([N, M])
t = vadd(a, B, [[i + 1, j + 2], [i, j]])
a = eq(t, -> [i + 3, j + 1])
l = build(a)
)";

void expectRefused(const std::string& src, int line, const std::string& fragment) {
  expectRefusedAt(src, {{"N", 9}, {"M", 7}}, line, fragment);
}

void expectAcceptedAndEqual(const std::string& src, const std::string& baseline) {
  auto p = compile(src, {{"N", 9}, {"M", 7}});
  auto base = compile(baseline, {{"N", 9}, {"M", 7}});
  expectSameResults(p, base);
}

}  // namespace

TEST(Legality, Figure11InterchangeIsRefusedWithTheDependence) {
  expectRefused(kFigure11 + "s = interchange(l, 1, 2)\n", 7,
                "interchange would reverse the dependence (i, j) -> (i + 2, j - 1) on 'a'");
  expectRefused(kFigure11 + "s = tile(l, 3)\n", 7, "tile would reverse the dependence");
  expectRefused(kFigure11 + "s = unroll_and_jam(l, 1, 3)\n", 7, "unroll_and_jam would reverse");
  // Strip-mining and unrolling never reorder: accepted.
  expectAcceptedAndEqual(kFigure11 + "s = stripmine(l, 2, 3)\nu = unroll(s, 1, 2)\ncodegen(u)\n", kFigure11 + "codegen(l)\n");
}

TEST(Legality, RefusedTransformationsCanBeForcedWithoutChecks) {
  pipeline::TemlOptions o{{{"N", 9}, {"M", 7}}, false, ""};
  auto p = pipeline::compileTeml(kFigure11 + "s = interchange(l, 1, 2)\ncodegen(s)\n", o);
  EXPECT_EQ(p.nests.size(), 1u);
}

TEST(Legality, Figure12aIndependentNestCanBeInterchanged) {
  const std::string src = "a = tensor([N, M])\nb = tensor([N, M])\none = scalar()\ninit(one, 1)\n"
                          "a = add(b, one, [[i, j], ] -> [i, j])\nl = build(a)\n";
  expectAcceptedAndEqual(src + "s = interchange(l, 1, 2)\ncodegen(s)\n", src + "codegen(l)\n");
}

TEST(Legality, Figure12bRecurrenceCannotBeInterchanged) {
  // a = a * b[i][j] + 1 over i, j: every instance depends on the previous one.
  const std::string src = "a = scalar()\nb = tensor([N, M])\none = scalar()\ninit(one, 1)\n"
                          "t = vmul(a, b, [, [i, j]])\nu = vadd(t, one, [, ])\na = eq(u, -> [])\nl = build(a)\n";
  expectRefused(src + "s = interchange(l, 1, 2)\n", 9, "on 'a'");
}

TEST(Legality, Figure12cReductionsCommute) {
  const std::string src = "a = scalar()\nb = tensor([N, M])\na = add(a, b, [[], [i, j]] -> [])\nl = build(a)\n";
  expectAcceptedAndEqual(src + "s = interchange(l, 1, 2)\ncodegen(s)\n", src + "codegen(l)\n");
}

TEST(Legality, FusionKeepsProducersBeforeConsumers) {
  // Nest 1 writes t[i + 1] at iteration i; u[i] reads t[i + 1] (same
  // iteration once fused: legal), r[i] reads t[i + 2] (written one iteration
  // later once fused: refused).
  const std::string src = "a = tensor([N])\nt = tensor([N + 2])\nz = tensor([N])\nu = tensor([N])\nr = tensor([N])\n"
                          "t = eq(a, [i] -> [i + 1])\nv = vadd(t, z, [[i + 1], [i]])\nu = eq(v, -> [i])\n"
                          "w = vadd(t, z, [[i + 2], [i]])\nr = eq(w, -> [i])\n"
                          "l1 = build(t)\nl2 = build(u)\nl3 = build(r)\n";
  expectAcceptedAndEqual(src + "f = fuse_outer(l1, l2, 1)\ncodegen(f, l3)\n", src + "codegen(l1, l2, l3)\n");
  auto g = compileError(src + "f = fuse_outer(l1, l3, 1)\n", {{"N", 9}});
  ASSERT_TRUE(g.failed);
  EXPECT_EQ(g.loc.line, 14);
  EXPECT_NE(g.message.find("fuse_outer would reverse"), std::string::npos) << g.message;
  EXPECT_NE(g.message.find("'t'"), std::string::npos) << g.message;
}

TEST(Legality, PaperSchedulesOfTheExamplesAreLegal) {
  // Every example compiles with checks on (examples_test runs them).
  auto p = compile(kFigure11 + "s = stripmine(l, 1, 2)\ncodegen(s)\n", {{"N", 9}, {"M", 7}});
  EXPECT_EQ(p.nests.size(), 1u);
}

TEST(Legality, FissionAndSwapRespectDependences) {
  // Fused: t[i + 1] = a[i] then u[i] = t[i + 1] + z[i] (same iteration) and r[i] = t[i + 2] + z[i].
  const std::string src = "a = tensor([N])\nt = tensor([N + 2])\nz = tensor([N])\nu = tensor([N])\n"
                          "t = eq(a, [i] -> [i + 1])\nv = vadd(t, z, [[i + 1], [i]])\nu = eq(v, -> [i])\n"
                          "l1 = build(t)\nl2 = build(u)\nf = fuse_outer(l1, l2, 1)\n";
  // Splitting back is legal; swapping puts the read of t[i + 1] before its write.
  expectAcceptedAndEqual(src + "g = fission(f, 1, 1)\ncodegen(g)\n", src + "codegen(f)\n");
  expectRefused(src + "g = swap(f, 1, 1, 2)\n", 11, "swap would reverse the dependence");
}

TEST(Legality, SkewingMakesADependenceCarriedByTheOuterLoop) {
  // Skewing never reorders; it is accepted and keeps the results.
  expectAcceptedAndEqual(kFigure11 + "s = skew(l, 1, 2, 1)\ncodegen(s)\n", kFigure11 + "codegen(l)\n");
}

TEST(Legality, BlendInterleavesOnlyWhenDependencesAllow) {
  // Fused: t[i + 1] = a[i] then u[i] = t[i + 1] + z[i]; all writes of t come
  // before all reads once blended, which keeps every value.
  const std::string src = "a = tensor([N])\nt = tensor([N + 2])\nz = tensor([N])\nu = tensor([N])\n"
                          "t = eq(a, [i] -> [i + 1])\nv = vadd(t, z, [[i + 1], [i]])\nu = eq(v, -> [i])\n"
                          "l1 = build(t)\nl2 = build(u)\nf = fuse_outer(l1, l2, 1)\n";
  expectAcceptedAndEqual(src + "g = blend(f, 1)\ncodegen(g)\n", src + "codegen(f)\n");
  // An illegally fused nest (fused with checks off) reads t[i + 1] after the
  // previous iteration wrote it; blending all reads before all writes would
  // change the values read, and the analysis says so.
  const std::string rev = "a = tensor([N])\nt = tensor([N + 2])\nz = tensor([N])\nr = tensor([N])\n"
                          "w = vadd(t, z, [[i + 1], [i]])\nr = eq(w, -> [i])\nt = eq(a, [i] -> [i + 2])\n"
                          "l1 = build(r)\nl2 = build(t)\nf = fuse_outer(l1, l2, 1)\ncodegen(f)\n";
  pipeline::TemlOptions o;
  o.sizes = {{"N", 9}};
  o.checkLegality = false;
  ir::StmtP fused = pipeline::compileTeml(rev, o).nests.at(0);
  auto verdict = analysis::checkReordering(fused, schedule::blend(fused, 1));
  EXPECT_FALSE(verdict.legal);
  EXPECT_NE(verdict.violation.find("'t'"), std::string::npos) << verdict.violation;
}

namespace {

// Two loops write a row's entries in place, a third reads them in a loop
// over features; the checks of the rows wrap the loops, so the feature
// loop's body is a sequence inside a check inside the node loop's sequence.
const char* kRowsThenFeatures = R"(import teml
@teml.transform
def f(ptr: teml.Var[(9,), "int32"], x: teml.Var[(20,), "float64"], y: teml.Var[(8, 4), "float64", "output"]):
    edge = teml.empty((20,), "float64")
    #! label: Li
    for i in range(8):
        for k in range(ptr[i], ptr[i + 1]):
            edge[k] = x[k] * 2
        for k in range(ptr[i], ptr[i + 1]):
            edge[k] = edge[k] + 1
        #! label: Lj
        for j in range(4):
            y[i, j] = 0
            for k in range(ptr[i], ptr[i + 1]):
                y[i, j] += edge[k] * (j + 1)
)";

ir::Program withSchedule(const std::string& steps) {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.autoSchedule = false;
  std::string schedule = steps.empty() ? "" : "@teml.schedule(f)\ndef s(s):\n" + steps;
  return pipeline::compileFreeform(kRowsThenFeatures + schedule, o).program;
}

}  // namespace

TEST(Legality, AStatementInASequenceInsideACheckKeepsItsPlace) {
  // The sequence inside the check once took the outer sequence's position:
  // the feature loop's statements seemed to run with the first row loop's,
  // and splitting the feature loop was refused as reversing a dependence.
  ir::Program split = withSchedule("    s.fission(\"Lj\", 1)\n");
  runtime::BufferMap in = runtime::allocateBuffers(split);
  std::vector<int> ptr = {0, 3, 3, 7, 9, 14, 15, 15, 20};
  for (int k = 0; k < 9; ++k) in.at("ptr").setInt(k, ptr[k]);
  for (int k = 0; k < 20; ++k) in.at("x").set(k, k * 0.5);
  auto want = runInterpreter(withSchedule(""), in);
  auto got = runJit(split, in);
  for (int64_t k = 0; k < 32; ++k) EXPECT_EQ(got.at("y").get(k), want.at("y").get(k)) << k;
  // Reading the entries before the loop that last writes them stays refused.
  try {
    withSchedule("    s.swap(\"Li\", 2, 3)\n");
    ADD_FAILURE() << "the swap should be refused";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("swap would reverse a dependence"), std::string::npos) << e.what();
  }
}

TEST(Legality, AStepInsideALoopIsCheckedWithTheOuterIteratorsFixed) {
  // Only the loops the step rewrites are asked about, the loops around
  // them fixed (isl parameters): a dependence within one iteration of the
  // outer loop still refuses the step, one that only crosses its
  // iterations does not.
  auto program = [](const std::string& body, const std::string& steps) {
    freeform::FreeformOptions o = hostFreeformOptions();
    o.autoSchedule = false;
    return pipeline::compileFreeform(R"(import teml
@teml.transform
def f(a: teml.Var[(16, 9), "int64", "inout"]):
    for i in range(8):
        #! label: Lj
        for j in range(1, 8):
            #! label: Lk
            for k in range(8):
)" + body + (steps.empty() ? "" : "@teml.schedule(f)\ndef s(s):\n" + steps),
                                     o)
        .program;
  };
  try {
    program("                a[i + j, k] = a[i + j - 1, k + 1] * 3 + i\n", "    s.reorder([\"Lk\", \"Lj\"])\n");
    ADD_FAILURE() << "the reorder should be refused: (j, k) -> (j + 1, k - 1) within one i";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("reorder would reverse"), std::string::npos) << e.what();
  }
  // Within one i, each k sums into a[i + 8, k] along j, and the order
  // along j is all that matters: the loops may trade places.
  ir::Program swapped = program("                a[i + 8, k] = a[i + 8, k] + a[i, k] * j\n", "    s.reorder([\"Lk\", \"Lj\"])\n");
  runtime::BufferMap in = runtime::allocateBuffers(swapped);
  for (int64_t k = 0; k < in.at("a").size(); ++k) in.at("a").setInt(k, (k * 7) % 11 - 5);
  auto want = runInterpreter(program("                a[i + 8, k] = a[i + 8, k] + a[i, k] * j\n", ""), in);
  auto got = runJit(swapped, in);
  for (int64_t k = 0; k < want.at("a").size(); ++k) ASSERT_EQ(got.at("a").getInt(k), want.at("a").getInt(k)) << k;
}
