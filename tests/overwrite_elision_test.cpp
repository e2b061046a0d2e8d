// Work on elements that are overwritten anyway is skipped: a local tensor
// whose first use is a reduction starts each element at its initial value
// right before the element's reduction (no fill of the whole box), and a
// cache of a tensor the loop only stores, over its whole box, is not copied
// in. Where that cannot be shown the fill and the copy stay; either way the
// results are the interpreter's.
#include "backend/cpu/c_emitter.hpp"
#include "test_programs.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const std::map<std::string, int64_t> kSizes = {{"N", 9}, {"M", 7}, {"E", 5}};

// Interpolation's first two contractions fused over the elements e.
const std::string kInterp = R"(A = tensor([N, N])
u = tensor([E, N, N, N])
t1 = tensor([E, N, N, N])
v = tensor([E, N, N, N])
p1 = vmul(A, u, [[i, l], [e, l, j, k]])
t1 = add(t1, p1, [[e, i, j, k], ] -> [e, i, j, k])
p2 = vmul(A, t1, [[j, l], [e, i, l, k]])
v = add(v, p2, [[e, i, j, k], ] -> [e, i, j, k])
m1 = build(t1)
m2 = build(v)
)";
const std::string kFused = kInterp + "f = fuse_outer(m1, m2, 1)\n";

const std::string kStencil = "inp = tensor([N + 2, M])\nout = tensor([N, M])\n"
                             "s1 = vadd(inp, inp, [[i, j], [i + 1, j]])\ns2 = vadd(s1, inp, [, [i + 2, j]])\n"
                             "out = eq(s2, -> [i, j])\nl = build(out)\n";

std::string cOf(const std::string& src) { return cSource(compile(src, kSizes)); }

bool has(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

}  // namespace

TEST(OverwriteElision, LocalReducedFirstIsNotFilled) {
  const std::string src = kFused + "g = local(f, 1, t1)\ng = parallelize(g, 1)\ncodegen(g)\n";
  expectKeepsResultsOf(src, kFused + "codegen(f)\n", kSizes);
  std::string c = cOf(src);
  EXPECT_FALSE(has(c, "memset(t1")) << c;
  EXPECT_TRUE(has(c, "t1[0][i][j][k] = 0.0;")) << c;
}

TEST(OverwriteElision, VectorAccumulatorsStartAtZero) {
  // interp's best shape: elements in the lanes, rows jammed (N accumulators).
  const std::string src = kInterp + R"(m1 = stripmine(m1, 1, VLEN)
m1 = interchange_n(m1, 2, 3)
m1 = vectorize(m1, 5)
m1 = unroll_and_jam(m1, 2, N)
m2 = stripmine(m2, 1, VLEN)
f = fuse_outer(m1, m2, 1)
f = local(f, 1, t1)
f = var_reorder(f, t1, [2, 3, 4, 1])
f = cache(f, 1, u)
f = var_reorder(f, u_cache, [2, 3, 4, 1])
codegen(f)
)";
  const std::map<std::string, int64_t> sizes = {{"N", 7}, {"E", 16}};
  expectKeepsResultsOf(src, kFused + "codegen(f)\n", sizes);
  std::string c = cSource(compile(src, sizes));
  EXPECT_FALSE(has(c, "memset(t1")) << c;
  EXPECT_TRUE(has(c, "vacc_7")) << c;
}

TEST(OverwriteElision, MainNestAndRemainderTogetherSetTheBox) {
  // Rows jammed by 2 over 9: the main nest sets rows 0..7, the remainder
  // nest row 8; together the whole box, each row once.
  const std::string src = kInterp + "m1 = unroll_and_jam(m1, 2, 2)\nf = fuse_outer(m1, m2, 1)\n"
                                    "g = local(f, 1, t1)\ncodegen(g)\n";
  expectKeepsResultsOf(src, kFused + "codegen(f)\n", kSizes);
  EXPECT_FALSE(has(cOf(src), "memset(t1")) << cOf(src);
  // The same with the jam one level down (a main and a remainder loop in one nest).
  const std::string inner = kInterp + "m1 = unroll_and_jam(m1, 3, 2)\nf = fuse_outer(m1, m2, 1)\n"
                                      "g = local(f, 1, t1)\ncodegen(g)\n";
  expectKeepsResultsOf(inner, kFused + "codegen(f)\n", kSizes);
  EXPECT_FALSE(has(cOf(inner), "memset(t1")) << cOf(inner);
}

TEST(OverwriteElision, StripMinedAndSkewedLoopsSetTheBox) {
  // Columns strip-mined by 3 over 9 (the inner range moves with the block),
  // rows by 4 over 9 (the last block's range clamped by a min at the box's
  // end), and a skewed inner loop (j runs from i, the index is j - i): each
  // reaches every element once.
  for (const char* step : {"m1 = stripmine(m1, 3, 3)\n", "m1 = stripmine(m1, 2, 4)\n", "m1 = skew(m1, 2, 3, 1)\n"}) {
    const std::string src = kInterp + step + "f = fuse_outer(m1, m2, 1)\ng = local(f, 1, t1)\ncodegen(g)\n";
    expectKeepsResultsOf(src, kFused + "codegen(f)\n", kSizes);
    EXPECT_FALSE(has(cOf(src), "memset(t1")) << cOf(src);
  }
}

TEST(OverwriteElision, UnprovenCoverageKeepsTheFill) {
  // Rows strip-mined by 4 over 9, then each block by 3: the innermost
  // range is clamped by a min of mins, which the proof does not follow, so
  // the fill stays.
  const std::string src = kInterp + "m1 = stripmine(m1, 2, 4)\nm1 = stripmine(m1, 3, 3)\nf = fuse_outer(m1, m2, 1)\n"
                                    "g = local(f, 1, t1)\ncodegen(g)\n";
  expectKeepsResultsOf(src, kFused + "codegen(f)\n", kSizes);
  EXPECT_TRUE(has(cOf(src), "memset(t1")) << cOf(src);
}

TEST(OverwriteElision, LocalReadBeforeItsReductionKeepsItsFill) {
  // t starts at 1 and row i of out reads t right after reducing it: the
  // first statement touching t also reads it, so the fill stays.
  const std::string& src = kInitialValueRow;
  expectKeepsResultsOf(src + "g = local(f, 1, t)\ncodegen(g)\n", src + "codegen(f)\n", kSizes);
  EXPECT_TRUE(has(cOf(src + "g = local(f, 1, t)\ncodegen(g)\n"), "= 1.0;")) << "the fill with t's initial value";
  // Local to j instead, t[i][j] starts at 1 right before its reduction over k.
  expectKeepsResultsOf(src + "g = local(f, 2, t)\ncodegen(g)\n", src + "codegen(f)\n", kSizes);
}

TEST(OverwriteElision, WriteOnlyCacheIsNotCopiedIn) {
  const std::string src = kStencil + "c = cache(l, 1, out)\nc = parallelize(c, 1)\ncodegen(c)\n";
  expectKeepsResultsOf(src, kStencil + "codegen(l)\n", kSizes);
  std::string c = cOf(src);
  EXPECT_FALSE(has(c, "= out[") || has(c, "from = &out[")) << c;
  EXPECT_FALSE(has(c, "memset(out_cache")) << c;
}

TEST(OverwriteElision, PartlyWrittenCacheIsCopiedIn) {
  // Columns unrolled by 2 over 7: two stores, each writing every other column,
  // and a remainder store; no single store writes the whole row.
  const std::string src = kStencil + "u = unroll(l, 2, 2)\nc = cache(u, 1, out)\ncodegen(c)\n";
  expectKeepsResultsOf(src, kStencil + "codegen(l)\n", kSizes);
  EXPECT_TRUE(has(cOf(src), "from = &out[")) << cOf(src);
}
