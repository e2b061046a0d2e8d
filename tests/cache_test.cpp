// cache(l, r, t) and cache_reduce(l, r, t): every iteration of level r works
// on a local copy of the part of t it touches. The results must not change;
// copies at the edges of a tensor stay inside it.
#include <algorithm>

#include "backend/cpu/c_emitter.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const std::map<std::string, int64_t> kSizes = {{"N", 9}, {"M", 7}, {"K", 5}};

const std::string kProduct = "A = tensor([N, K])\nB = tensor([K, M])\nC = contract(A, B, [2, 1])\nl = build(C)\n";
const std::string kStencil = "inp = tensor([N + 2, M])\nout = tensor([N, M])\n"
                             "s1 = vadd(inp, inp, [[i, j], [i + 1, j]])\ns2 = vadd(s1, inp, [, [i + 2, j]])\n"
                             "out = eq(s2, -> [i, j])\nl = build(out)\n";

void expectKeepsResults(const std::string& schedule, const std::string& base) {
  expectKeepsResultsOf(base + schedule, base + "codegen(l)\n", kSizes);
}

void expectRefused(const std::string& src, int line, const std::string& fragment) {
  expectRefusedAt(src, kSizes, line, fragment);
}

}  // namespace

TEST(Cache, ReductionIntoARowOfTheResult) {
  // Row i of C accumulates in a local row, added into C after the row.
  expectKeepsResults("c = cache_reduce(l, 1, C)\nc = parallelize(c, 1)\ncodegen(c)\n", kProduct);
  auto p = compile(kProduct + "c = cache_reduce(l, 1, C)\ncodegen(c)\n", kSizes);
  EXPECT_NE(cSource(p).find("C_cache[1][7]"), std::string::npos) << cSource(p);
}

TEST(Cache, OverlappingInputWindowsPerIteration) {
  // Each row i reads rows i..i+2 of inp: the copies of neighbouring
  // iterations overlap, which a cache (refilled every iteration) allows.
  expectKeepsResults("c = cache(l, 1, inp)\nc = parallelize(c, 1)\ncodegen(c)\n", kStencil);
  expectKeepsResults("c = cache(l, 2, inp)\ncodegen(c)\n", kStencil);
}

TEST(Cache, WrittenTensorsAreCopiedBack) {
  const std::string inPlace = "a = tensor([N, M])\ntwo = scalar()\ninit(two, 2)\n"
                              "a = mul(a, two, [[i, j], ] -> [i, j])\nl = build(a)\n";
  expectKeepsResults("c = cache(l, 1, a)\ncodegen(c)\n", inPlace);
}

TEST(Cache, BlocksWithARemainderStayInBounds) {
  // Blocks of 4 rows over 9: the last block's copy is clamped to the tensor.
  expectKeepsResults("s = stripmine(l, 1, 4)\nc = cache(s, 1, inp)\nc = parallelize(c, 1)\ncodegen(c)\n", kStencil);
  expectKeepsResults("s = stripmine(l, 1, 4)\nc = cache_reduce(s, 1, C)\ncodegen(c)\n", kProduct);
}

TEST(Cache, PackedBlocksOfAMatrixProduct) {
  // mm's packing: the block of B one (j block, k block) iteration reads, with
  // j strip-mined twice (by 4 and then 2, so the inner block count varies in
  // the last block) and blocks larger than the whole tensor in one case.
  const std::string packed = "l1 = stripmine(l, 2, 4)\nl2 = stripmine(l1, 4, 3)\nl3 = interchange(l2, 3, 4)\n"
                             "l4 = interchange(l3, 1, 2)\nl5 = interchange(l4, 2, 3)\nl6 = stripmine(l5, 4, 3)\n"
                             "l7 = parallelize(l6, 1)\nc = cache(l7, 2, B)\ncodegen(c)\n";
  expectKeepsResults(packed, kProduct);
  expectKeepsResultsOf(kProduct + packed, kProduct + "codegen(l)\n", {{"N", 3}, {"M", 2}, {"K", 2}});
}

TEST(Cache, LoopTransformationsMayFollow) {
  // Each iteration's copy stays that iteration's: strip-mining the loop that
  // owns it, tiling inside it, unrolling and parallelizing around it.
  expectKeepsResults("c = cache_reduce(l, 1, C)\nd = stripmine(c, 1, 4)\nd = parallelize(d, 1)\ncodegen(d)\n", kProduct);
  expectKeepsResults("c = cache(l, 3, B)\nd = tile(c, 2)\ncodegen(d)\n", kProduct);
  expectKeepsResults("c = cache(l, 2, inp)\nd = unroll(c, 1, 2)\ncodegen(d)\n", kStencil);
}

TEST(Cache, TransformationsThatWouldShareOrSplitACopyAreRefused) {
  // Fission would fill row i's copy in one loop and read a fresh, empty one in the other.
  expectRefused(kStencil + "c = cache(l, 1, out)\nd = fission(c, 1, 1)\n", 8, "share one copy of 'out_cache'");
  // Interchange takes the copy out to the outer loop: one copy for several iterations.
  expectRefused(kProduct + "c = cache(l, 2, C)\nd = interchange(c, 1, 2)\n", 6, "share one copy of 'C_cache'");
  // Unrolling would give two iterations one copy.
  expectRefused(kProduct + "c = cache_reduce(l, 1, C)\nd = unroll(c, 1, 2)\n", 6, "owns 'C_cache', a cache's copy");
}

TEST(Cache, RefusedWhereItWouldBeWrongOrUnchecked) {
  expectRefused(kStencil + "c = cache_reduce(l, 1, inp)\n", 7, "must only update 'inp'");
  expectRefused(kProduct + "c = cache(l, 1, l)\n", 5, "not a declared tensor");
}

// cache_zeroed(l, r, t): a cache whose copy starts as zeros instead of
// reading t, for a tensor that still holds its starting zeros there.
namespace {

// C accumulates over k from its starting contents (zeros unless given).
std::string accumulate(const std::string& init = "") {
  return "A = tensor([N, K])\nB = tensor([K, M])\nC = tensor([N, M])\n" + init +
         "t = vmul(A, B, [[i, k], [k, j]])\nC = add(C, t, [[i, j], ] -> [i, j])\nl = build(C)\n";
}

int nextLine(const std::string& source) { return static_cast<int>(std::count(source.begin(), source.end(), '\n')) + 1; }

}  // namespace

TEST(Cache, ZeroedCopiesStartAsZerosWhereTheTensorStillHoldsThem) {
  // Blocks of 4 rows of C (the last one short), each its own block: the
  // copies start as zeros and C is never read.
  expectKeepsResults("s = stripmine(l, 1, 4)\nc = cache_zeroed(s, 1, C)\nc = parallelize(c, 1)\ncodegen(c)\n",
                     accumulate());
  auto p = compile(accumulate() + "c = cache_zeroed(l, 1, C)\ncodegen(c)\n", kSizes);
  EXPECT_EQ(cSource(p).find("= C["), std::string::npos) << cSource(p);
  EXPECT_NE(cSource(p).find("C_cache"), std::string::npos) << cSource(p);
}

TEST(Cache, ZeroedCopiesAreRefusedWhereTheTensorMayHoldAnythingElse) {
  const std::string initialized = accumulate("init(C, 1)\n");
  expectRefused(initialized + "c = cache_zeroed(l, 1, C)\n", nextLine(initialized), "does not start as zeros");
  // An earlier nest wrote C, before the transformation or before the nest runs.
  const std::string twice = accumulate() + "codegen(l)\n";
  expectRefused(twice + "c = cache_zeroed(l, 1, C)\n", nextLine(twice), "an earlier nest writes 'C'");
  const std::string both = accumulate() + "c = cache_zeroed(l, 1, C)\n";
  expectRefused(both + "codegen(l, c)\n", nextLine(both), "an earlier nest writes 'C'");
  // Only where nothing of the nest came before; only blocks of their own.
  expectRefused(accumulate() + "c = cache_zeroed(l, 2, C)\n", nextLine(accumulate()), "outermost loop");
  const std::string sumOutside = accumulate() + "m = interchange(l, 1, 3)\n";
  expectRefused(sumOutside + "c = cache_zeroed(m, 1, C)\n", nextLine(sumOutside), "share elements of 'C'");
}
