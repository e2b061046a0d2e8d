// Explicit vector code for vectorized loops: results equal the interpreter's
// for every shape of loop the planner accepts (remainders, several vectors
// jammed, reductions kept in registers, broadcasts, float), and loops it does
// not accept fall back to `omp simd`.
#include "backend/cpu/c_emitter.hpp"
#include "target/target.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

std::string mmKernel(int64_t jBlock, int64_t rows) {
  return R"(
A = tensor([M, K])
B = tensor([K, N])
C = contract(A, B, [2, 1])
l = build(C)
l1 = stripmine(l, 2, )" + std::to_string(jBlock) + R"()
l2 = vectorize(l1, 3)
l5 = unroll_and_jam(l2, 1, )" + std::to_string(rows) + R"()
codegen(l5)
)";
}

}  // namespace

TEST(VectorCodegen, RegisterBlockedProductMatchesTheInterpreter) {
  for (int64_t block : {8, 16, 24, 32, 40})
    for (int64_t rows : {1, 3, 4}) {
      SCOPED_TRACE("block " + std::to_string(block) + " rows " + std::to_string(rows));
      auto p = compile(mmKernel(block, rows), {{"M", 13}, {"K", 9}, {"N", 80}});
      std::string c = cSource(p);
      EXPECT_NE(c.find("teml_vd"), std::string::npos);
      expectJitMatchesInterpreter(p);
    }
}

TEST(VectorCodegen, ReductionTargetsLiveInRegistersAcrossTheInnerLoop) {
  auto p = compile(mmKernel(16, 4), {{"M", 8}, {"K", 7}, {"N", 32}});
  std::string c = cSource(p);
  EXPECT_NE(c.find("teml_vd vacc"), std::string::npos) << c;
  expectJitMatchesInterpreter(p);
}

TEST(VectorCodegen, RemainderAndBroadcastAndStores) {
  // out[i][j] = a[i][j] * s + b[j] * 2: a varying load, a broadcast scalar
  // tensor, a row broadcast; 37 columns leave a scalar remainder.
  auto p = compile(R"(
a = tensor([5, 37])
b = tensor([37])
s = scalar()
init(s, 1.5)
t = vmul(a, s, [[i, j], ])
u = vadd(t, b, [, [j]])
out = eq(u, -> [i, j])
l = build(out)
v = vectorize(l, 2)
codegen(v)
)");
  EXPECT_NE(cSource(p).find("teml_vd"), std::string::npos);
  expectJitMatchesInterpreter(p);
}

TEST(VectorCodegen, TheTailIsOneMaskedVector) {
  // Rows of 13 doubles (a vector and a part of one, at every vector width)
  // and of 37 floats, the sums kept in registers over k: the last lanes run
  // as one masked vector jammed with the others; lanes past the row are
  // neither read nor written (a stray write would land in the next row of C).
  for (const char* type : {"", "float, "}) {
    auto p = compile(std::string("A = tensor(") + type + "[M, K])\nB = tensor(" + type + "[K, N])\n"
                     "C = contract(A, B, [2, 1])\nl = build(C)\nl2 = vectorize(l, 2)\ncodegen(l2)\n",
                     {{"M", 5}, {"K", 4}, {"N", *type ? 37 : 13}});
    std::string c = cSource(p);
    EXPECT_NE(c.find(*type ? "teml_mstore_vf(&C" : "teml_mstore_vd(&C"), std::string::npos) << c;
    expectJitMatchesInterpreter(p);
  }
  // Updated in memory at every k, a masked tail would reload what it just
  // stored (no store forwarding): scalar iterations finish the row instead.
  auto p = compile("A = tensor([M, K])\nB = tensor([K, N])\nC = contract(A, B, [2, 1])\nl = build(C)\n"
                   "l1 = interchange(l, 2, 3)\nl2 = vectorize(l1, 3)\ncodegen(l2)\n",
                   {{"M", 5}, {"K", 4}, {"N", 13}});
  EXPECT_EQ(cSource(p).find("teml_mstore_vd(&C"), std::string::npos) << cSource(p);
  expectJitMatchesInterpreter(p);
}

TEST(VectorCodegen, SumsStartFromTheirInitialValueInRegisters) {
  // A local row reduced first starts at zero in the register (no store and
  // reload), for the full vectors and the masked tail.
  auto p = compile(R"(A = tensor([N, N])
B = tensor([N, N])
t = tensor([N, N])
out = tensor([N, N])
q = vmul(A, B, [[i, k], [k, j]])
t = add(t, q, [[i, j], ] -> [i, j])
out = eq(t, [i, j] -> [i, j])
l1 = build(t)
l2 = build(out)
l1 = vectorize(l1, 2)
f = fuse_outer(l1, l2, 1)
f = local(f, 1, t)
codegen(f)
)", {{"N", 13}});
  std::string c = cSource(p);
  EXPECT_NE(c.find("vacc = ((teml_vd){0} + 0.0);"), std::string::npos) << c;
  EXPECT_EQ(c.find("memset(t"), std::string::npos) << c;
  expectJitMatchesInterpreter(p);
}

TEST(VectorCodegen, FloatFillsAWholeRegister) {
  auto p = compile(R"(
A = tensor(float, [6, 100])
B = tensor(float, [6, 100])
C = entrywise_mul(A, B)
l = build(C)
v = vectorize(l, 2)
codegen(v)
)");
  std::string c = cSource(p);
  EXPECT_NE(c.find("teml_vf"), std::string::npos);
  EXPECT_NE(c.find("+= " + std::to_string(driver::machineTarget().vectorBytes / 4)), std::string::npos) << c;
  expectJitMatchesInterpreter(p);
}

TEST(VectorCodegen, UnsuitableLoopsFallBackToOmpSimd) {
  // A strided access (2*j) and a loop shorter than a vector.
  auto strided = compile(R"(
A = tensor([40])
B = tensor([20])
B = eq(A, [2 * j] -> [j])
l = build(B)
v = vectorize(l, 1)
codegen(v)
)");
  std::string c = cSource(strided);
  EXPECT_EQ(c.find("teml_vd *"), std::string::npos) << c;
  EXPECT_NE(c.find("#pragma omp simd"), std::string::npos);
  expectJitMatchesInterpreter(strided);
  auto shortLoop = compile("A = tensor([3, 1])\nB = entrywise_add(A, A)\nl = build(B)\nv = vectorize(l, 2)\ncodegen(v)\n");
  EXPECT_NE(cSource(shortLoop).find("#pragma omp simd"), std::string::npos);
  expectJitMatchesInterpreter(shortLoop);
}

TEST(VectorCodegen, StencilWithOffsetsInTheVectorDimension) {
  auto p = compile(R"(
inp = tensor([N, N])
out = tensor([N, N - 2])
s1 = vadd(inp, inp, [[i, j], [i, j + 1]])
s2 = vadd(s1, inp, [, [i, j + 2]])
out = eq(s2, -> [i, j])
l = build(out)
v = vectorize(l, 2)
p = parallelize(v, 1)
codegen(p)
)", {{"N", 29}});
  EXPECT_NE(cSource(p).find("teml_vd"), std::string::npos);
  expectJitMatchesInterpreter(p);
}

TEST(VectorCodegen, LargeWriteOnlyTensorsBypassTheCaches) {
  // C (over 64 MiB, rows not a whole number of vectors) is only stored: its
  // vector loop aligns itself, then writes with non-temporal stores.
  auto p = compile("A = tensor([N, M])\nB = tensor([N, M])\nC = entrywise_mul(A, B)\nl = build(C)\n"
                   "v = vectorize(l, 2)\np = parallelize(v, 1)\ncodegen(p)\n",
                   {{"N", 2049}, {"M", 4099}});
  std::string c = cSource(p);
  EXPECT_NE(c.find("teml_stream_vd(&C"), std::string::npos) << c;
  EXPECT_NE(c.find("teml_store_fence();"), std::string::npos);
  expectJitMatchesInterpreter(p);
  // A small result stays in the cache.
  auto small = compile("A = tensor([N, M])\nB = tensor([N, M])\nC = entrywise_mul(A, B)\nl = build(C)\n"
                       "v = vectorize(l, 2)\ncodegen(v)\n",
                       {{"N", 20}, {"M", 99}});
  EXPECT_EQ(cSource(small).find("teml_stream_vd(&C"), std::string::npos);
}

TEST(VectorCodegen, MergedLoopsAreOneUnitStrideDimension) {
  // Merging j and k (7 x 7) gives one 49-long loop indexing [m / 7][m mod 7]:
  // explicit vectors over the flattened rows, for program and local tensors.
  const std::string src = R"(A = tensor([N, N])
u = tensor([E, N, N, N])
t = tensor([E, N, N, N])
v = tensor([E, N, N, N])
p = vmul(A, u, [[i, l], [e, l, j, k]])
t = add(t, p, [[e, i, j, k], ] -> [e, i, j, k])
q = vmul(A, t, [[k, l], [e, i, j, l]])
v = add(v, q, [[e, i, j, k], ] -> [e, i, j, k])
m1 = build(t)
m1 = interchange(m1, 4, 5)
m1 = interchange(m1, 3, 4)
m1 = merge(m1, 4)
m1 = vectorize(m1, 4)
m2 = build(v)
)";
  auto global = compile(src + "codegen(m1, m2)\n", {{"N", 7}, {"E", 3}});
  std::string c = cSource(global);
  EXPECT_NE(c.find("*(teml_vd *)&((double *)t[e][i])[j_k]"), std::string::npos) << c;
  expectJitMatchesInterpreter(global);
  auto local = compile(src + "f = fuse_outer(m1, m2, 1)\nf = local(f, 1, t)\ncodegen(f)\n", {{"N", 7}, {"E", 3}});
  EXPECT_NE(cSource(local).find("((double *)t[0][i])[j_k]"), std::string::npos) << cSource(local);
  expectJitMatchesInterpreter(local);
  expectSameResults(local, global);
}

TEST(VectorCodegen, AnUnrolledLoopsRemainderKeepsItsOwnSums) {
  // unroll leaves a remainder loop beside the unrolled one; both keep the
  // row's sums in registers, each in a block of its own (fuzz seed 8758: the
  // remainder declared `vacc` again and the C compiler rejected the kernel).
  auto p = compile("in3 = tensor([N, N])\nin4 = tensor([N, K])\nC5 = contract(in3, in4, [2, 1])\nl1 = build(C5)\n"
                   "s1_0 = unroll(l1, 3, 4)\ns1_1 = vectorize(s1_0, 2)\ncodegen(s1_1)\n",
                   {{"N", 9}, {"K", 7}});
  expectJitMatchesInterpreter(p);
}
