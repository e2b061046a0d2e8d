// parallelize and vectorize refuse loops whose iterations could race, and
// accept reductions only with a correct implementation.
#include "backend/cpu/c_emitter.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

TEST(Concurrency, WritesToTheSameElementAreRefused) {
  // B[i] is overwritten for every k: running k on threads would race.
  auto f = compileError(R"(
A = tensor([4, 5])
B = tensor([4])
B = eq(A, [i, k] -> [i])
l = build(B)
p = parallelize(l, 2)
codegen(p)
)");
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 6);
  EXPECT_NE(f.message.find("parallelize"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("'B'"), std::string::npos) << f.message;
}

TEST(Concurrency, ReadingWhatAnotherIterationWritesIsRefused) {
  // Iteration i writes X[2i + 2], which iteration i + 1 reads as X[2i].
  auto g = compileError(R"(
X = tensor([9])
Z = tensor([4])
t = vadd(X, Z, [[2 * i], [i]])
X = eq(t, -> [2 * i + 2])
l = build(X)
v = vectorize(l, 1)
)");
  ASSERT_TRUE(g.failed);
  EXPECT_EQ(g.loc.line, 7);
  EXPECT_NE(g.message.find("'X'"), std::string::npos) << g.message;
}

TEST(Concurrency, VectorizingAReductionWithAVaryingTargetIsRefused) {
  auto f = compileError(R"(
A = tensor([6, 5])
B = tensor([5])
B = add(B, A, [[j], [i, j]] -> [j])
l = build(B)
s = interchange(l, 1, 2)
v = vectorize(s, 1)
)");
  ASSERT_TRUE(f.failed);
  EXPECT_NE(f.message.find("vectorize"), std::string::npos) << f.message;
}

TEST(Concurrency, ParallelReductionIntoAScalar) {
  auto p = compile(R"(
a = tensor([1000])
b = tensor([1000])
s = contract(a, b, [1, 1])
l = build(s)
p = parallelize(l, 1)
codegen(p)
)");
  expectJitMatchesInterpreter(p);
}

TEST(Concurrency, TransformingAfterParallelizeIsRechecked) {
  // Interchanging after parallelize makes the parallel loop carry the reduction's
  // varying target; codegen still implements it correctly (atomics).
  auto p = compile(R"(
A = tensor([7, 6])
B = tensor([6])
B = add(B, A, [[j], [i, j]] -> [j])
l = build(B)
p = parallelize(l, 1)
q = interchange(p, 1, 2)
codegen(q)
)");
  expectJitMatchesInterpreter(p);
}

TEST(Concurrency, IslProvesMergedLoopsIndependent) {
  // i and j merged into one loop with / and mod: the affine test gives up, isl decides.
  const std::string mm = "A = tensor([7, 5])\nB = tensor([5, 6])\nC = contract(A, B, [2, 1])\nl = build(C)\n";
  auto p = compile(mm + "s = merge(l, 1)\nq = parallelize(s, 1)\ncodegen(q)\n");
  expectJitMatchesInterpreter(p);
  // j and k merged: iterations with the same j and different k update one C[i][j]:
  // threads each sum into a private copy of C (its box, through / and mod,
  // is taken as the whole tensor), SIMD lanes are refused.
  auto privateCopy = compile(mm + "s = merge(l, 2)\nq = parallelize(s, 2)\ncodegen(q)\n");
  EXPECT_NE(cSource(privateCopy).find("reduction(+:C_acc)"), std::string::npos) << cSource(privateCopy);
  expectJitMatchesInterpreter(privateCopy);
  auto f = compileError(mm + "s = merge(l, 2)\nq = vectorize(s, 2)\n");
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 6);
  EXPECT_NE(f.message.find("vectorize"), std::string::npos) << f.message;
}

TEST(Concurrency, RepeatedStripminingKeepsLoopIdsDistinct) {
  // Found by the randomized test: three strip-minings of one loop gave three
  // loops one id, and the independence proof looked at the wrong one.
  auto f = compileError(R"(
a = tensor([N + 2, M + 2])
B = tensor([N, M])
t = vadd(a, B, [[i + 1, j + 1], [i, j]])
a = eq(t, -> [i + 2, j + 2])
l1 = build(a)
s0 = tile(l1, 4)
s1 = stripmine(s0, 4, 5)
s2 = stripmine(s1, 5, 5)
s3 = parallelize(s2, 2)
)", {{"N", 7}, {"M", 6}});
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 10);
}
