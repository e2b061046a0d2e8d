// Every loop transformation, applied alone and composed, gives the results of
// the untransformed program (JIT-compiled vs the reference interpreter),
// including extents that factors do not divide.
#include "ir/printer.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

// A 3-deep matrix product with non-divisible sizes, then `schedule` applied to l.
std::string mm(const std::string& schedule) {
  return R"(
A = tensor([M, K])
B = tensor([K, N])
C = contract(A, B, [2, 1])
l = build(C)
)" + schedule;
}

const std::map<std::string, int64_t> kOdd = {{"M", 13}, {"N", 11}, {"K", 7}};

void checkSchedule(const std::string& schedule) {
  SCOPED_TRACE(schedule);
  auto base = compile(mm("codegen(l)"), kOdd);
  auto p = compile(mm(schedule), kOdd);
  expectJitMatchesInterpreter(p);
  expectSameResults(p, base);
}

}  // namespace

TEST(Transformations, Stripmine) {
  checkSchedule("s = stripmine(l, 2, 4)\ncodegen(s)");
  checkSchedule("s = stripmine(l, 1, 13)\ncodegen(s)");
  checkSchedule("s = stripmine(l, 3, 3)\ns2 = stripmine(s, 4, 2)\ncodegen(s2)");
}

TEST(Transformations, StripmineKeepsTheIteratorAndAddsABlockLoop) {
  auto p = compile(mm("s = stripmine(l, 2, 4)\ncodegen(s)"), kOdd);
  EXPECT_NE(ir::toString(p.nests[0]).find("for i2_o in [0, 3)\n    for i2 in [4 * i2_o, min(4 * i2_o + 4, 11))"),
            std::string::npos)
      << ir::toString(p.nests[0]);
}

TEST(Transformations, Interchange) {
  checkSchedule("s = interchange(l, 1, 3)\ncodegen(s)");
  checkSchedule("s = interchange(l, [2, 3])\ncodegen(s)");
}

TEST(Transformations, InterchangeN) { checkSchedule("s = interchange_n(l, 1, 2)\ncodegen(s)"); }

TEST(Transformations, StripmineN) { checkSchedule("s = stripmine_n(l, 2, 4)\ncodegen(s)"); }

TEST(Transformations, TileWithRemainders) {
  checkSchedule("s = tile(l, 4)\ncodegen(s)");
  checkSchedule("s = tile(l, 32)\ncodegen(s)");
}

TEST(Transformations, UnrollFull) {
  checkSchedule("s = unroll(l, 3)\ncodegen(s)");
  checkSchedule("s = unroll(l, 1)\ncodegen(s)");
}

TEST(Transformations, UnrollOfAStripminedLoopKeepsTheLastPartialBlock) {
  checkSchedule("s = stripmine(l, 2, 4)\nu = unroll(s, 3)\ncodegen(u)");
}

TEST(Transformations, UnrollPartialWithRemainder) {
  checkSchedule("s = unroll(l, 2, 4)\ncodegen(s)");
  checkSchedule("s = unroll(l, 3, 7)\ncodegen(s)");
}

TEST(Transformations, UnrollAndJam) {
  checkSchedule("s = unroll_and_jam(l, 1, 4)\ncodegen(s)");
  checkSchedule("s = unroll_and_jam(l, 2, 3)\ncodegen(s)");
}

TEST(Transformations, ParallelizeAndVectorize) {
  checkSchedule("s = parallelize(l, 1)\ncodegen(s)");
  checkSchedule("s = vectorize(l, 2)\ncodegen(s)");
  checkSchedule("s = parallelize(l, 1)\nv = vectorize(s, 1)\ncodegen(v)");
}

TEST(Transformations, ReductionLoopsGetPrivateAccumulators) {
  // k carries the reduction into C[i][j]: both threads and SIMD lanes need an accumulator.
  checkSchedule("s = vectorize(l, 3)\ncodegen(s)");
  checkSchedule("s = interchange(l, 1, 3)\np = parallelize(s, 1)\ncodegen(p)");
  auto p = compile(mm("s = vectorize(l, 3)\ncodegen(s)"), kOdd);
  std::string c = cSource(p);
  EXPECT_NE(c.find("#pragma omp simd reduction(+:C_acc)"), std::string::npos) << c;
}

TEST(Transformations, ReductionWithVaryingTargetUsesAPrivateArrayOrAtomics) {
  // Parallel over k with i, j inside: several threads update the same C[i][j].
  // A small C is each thread's own array (OpenMP's clause), combined at the
  // end; a larger one too, on the heap, merged one thread at a time
  // (tests/parallel_reductions_test.cpp has more, and the atomic case).
  auto src = mm("s = interchange(l, 1, 3)\np = parallelize(s, 1)\ncodegen(p)");
  auto p = compile(src, kOdd);
  EXPECT_NE(cSource(p).find("reduction(+:C_acc)"), std::string::npos) << cSource(p);
  expectJitMatchesInterpreter(p);
  auto large = compile(src, {{"M", 70}, {"N", 90}, {"K", 5}});
  EXPECT_NE(cSource(large).find("#pragma omp critical"), std::string::npos);
  expectJitMatchesInterpreter(large);
}

TEST(Transformations, ComposedPaperStyleSchedule) {
  checkSchedule(R"(
l1 = interchange(l, 2, 3)
l2 = tile(l1, 4)
l3 = parallelize(l2, 1)
l4 = vectorize(l3, 6)
codegen(l4)
)");
  checkSchedule(R"(
l1 = interchange(l, 2, 3)
l2 = stripmine(l1, 3, 4)
l3 = interchange(l2, 2, 3)
l4 = interchange(l3, 1, 2)
l5 = vectorize(l4, 4)
l6 = parallelize(l5, 1)
l7 = unroll_and_jam(l6, 2, 3)
codegen(l7)
)");
}

TEST(Transformations, FuseOuterAndInner) {
  const std::string src = R"(
A = tensor([N, N])
B = tensor([N, N])
C = entrywise_add(A, A)
D = entrywise_mul(B, B)
l1 = build(C)
l2 = build(D)
)";
  auto base = compile(src + "codegen(l1, l2)", {{"N", 9}});
  auto outer = compile(src + "f = fuse_outer(l1, l2, 1)\ncodegen(f)", {{"N", 9}});
  auto both = compile(src + "f = fuse_outer(l1, l2, 1)\ng = fuse_inner(f, 2)\ncodegen(g)", {{"N", 9}});
  EXPECT_EQ(outer.nests.size(), 1u);
  EXPECT_EQ(ir::toString(both.nests[0]),
            "for i1 in [0, 9)\n  for i2 in [0, 9)\n    C[i1][i2] = A[i1][i2] + A[i1][i2]\n"
            "    D[i1][i2] = B[i1][i2] * B[i1][i2]\n");
  expectSameResults(outer, base);
  expectSameResults(both, base);
}

TEST(Transformations, TransformationsDoNotChangeTheirArgument) {
  auto p = compile(mm("s = interchange(l, 1, 2)\nt = tile(l, 4)\ncodegen(l)"), kOdd);
  EXPECT_EQ(ir::toString(p.nests[0]).substr(0, 16), "for i1 in [0, 13");
}

TEST(Transformations, SkewKeepsResults) {
  checkSchedule("s = skew(l, 1, 2, 2)\ncodegen(s)");
  checkSchedule("s = skew(l, 2, 3, 1)\nt = unroll(s, 1, 2)\ncodegen(t)");
}

TEST(Transformations, InterchangeSkewedKeepsResults) {
  // Matmul's loops skewed by 2 and by -1, then the skewed loop outside: JIT
  // and interpreter agree with the nest as written (M, N, K = 13, 11, 7).
  checkSchedule("s = skew(l, 1, 2, 2)\nt = interchange_skewed(s, 1, 2)\ncodegen(t)");
  checkSchedule("s = skew(l, 2, 3, -1)\nt = interchange_skewed(s, 2, 3)\ncodegen(t)");
}

TEST(Transformations, MergeKeepsResults) {
  checkSchedule("s = merge(l, 1)\ncodegen(s)");
  checkSchedule("s = merge(l, 2)\nu = unroll(s, 2, 3)\ncodegen(u)");
}

TEST(Transformations, SeparateTailSplitsFullBlocksFromTheRest) {
  checkSchedule("s = stripmine(l, 2, 4)\nt = separate_tail(s, 2)\ncodegen(t)");
  auto p = compile(mm("s = stripmine(l, 2, 4)\nt = separate_tail(s, 2)\ncodegen(t)"), kOdd);
  std::string loops = ir::toString(p.nests[0]);
  EXPECT_NE(loops.find("for i2_o in [0, 2)\n    for i2 in [4 * i2_o, 4 * i2_o + 4)"), std::string::npos) << loops;
  EXPECT_NE(loops.find("for i2_o in [2, 3)\n    for i2 in [4 * i2_o, 11)"), std::string::npos) << loops;
}

TEST(Transformations, FissionAndSwap) {
  const std::string src = R"(
A = tensor([N, N])
B = tensor([N, N])
C = entrywise_add(A, A)
D = entrywise_mul(B, B)
l1 = build(C)
l2 = build(D)
f = fuse_outer(l1, l2, 2)
)";
  auto base = compile(src + "codegen(l1, l2)", {{"N", 9}});
  auto fis = compile(src + "g = fission(f, 2, 1)\ncodegen(g)", {{"N", 9}});
  auto swp = compile(src + "g = swap(f, 2, 1, 2)\ncodegen(g)", {{"N", 9}});
  EXPECT_EQ(ir::toString(fis.nests[0]),
            "for i1 in [0, 9)\n  for i2 in [0, 9)\n    C[i1][i2] = A[i1][i2] + A[i1][i2]\n"
            "  for i2 in [0, 9)\n    D[i1][i2] = B[i1][i2] * B[i1][i2]\n");
  expectSameResults(fis, base);
  expectSameResults(swp, base);
}

TEST(Transformations, NestedAccumulatorsShareTheOuterOne) {
  // k is strip-mined: threads reduce over blocks of k, SIMD lanes within a block;
  // the inner accumulator starts from and returns to the outer one.
  checkSchedule("s = stripmine(l, 3, 4)\nv = vectorize(s, 4)\np = parallelize(v, 3)\ncodegen(p)");
  checkSchedule("s = stripmine(l, 3, 4)\nv = vectorize(s, 4)\np = parallelize(v, 3)\nu = unroll(p, 4, 5)\ncodegen(u)");
}

TEST(Transformations, ParallelizeWithAThreadSchedule) {
  // OpenMP's schedule clause: static (the default), dynamic or guided.
  for (const char* s : {"static", "dynamic", "guided"}) {
    std::string schedule = std::string("p = parallelize(l, 1, ") + s + ")\ncodegen(p)";
    checkSchedule(schedule);
    EXPECT_NE(cSource(compile(mm(schedule), kOdd)).find(std::string("schedule(") + s + ")"), std::string::npos);
  }
  expectRefusedAt(mm("p = parallelize(l, 1, sometimes)\n"), kOdd, 6, "static, dynamic or guided");
}

TEST(Transformations, UnrolledCopiesOfAParallelReductionEachHaveTheirAccumulator) {
  // blend copies the block loop's body; the copies share their unchanged
  // reduction statement, and each parallel reduction over k must start from
  // its own element of C (generated C once reused the first copy's accumulator).
  checkSchedule("s0 = stripmine(l, 2, 2)\ns1 = parallelize(s0, 4)\ns2 = blend(s1, 2)\ncodegen(s2)");
}
