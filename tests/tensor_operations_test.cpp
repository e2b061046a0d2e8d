// TeML's tensor operations (Section 4.2) compute what NumPy computes; the
// references below are written out as plain loops.
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {
double at(const runtime::Buffer& b, std::initializer_list<int64_t> idx) {
  int64_t off = 0;
  size_t d = 0;
  for (int64_t i : idx) off = off * b.shape()[d++] + i;
  return b.get(off);
}
}  // namespace

TEST(TensorOperations, EntrywiseWithThreeOperands) {
  auto p = compile(R"(
A = tensor([4, 5])
B = tensor([4, 5])
C = tensor([4, 5])
D = entrywise_mul(A, B, C)
E = entrywise_sub(A, B)
F = entrywise_div(A, B)
codegen(D, E, F)
)");
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int k = 0; k < 20; ++k) {
    double a = in.at("A").get(k), b = in.at("B").get(k), c = in.at("C").get(k);
    EXPECT_DOUBLE_EQ(out.at("D").get(k), a * b * c);
    EXPECT_DOUBLE_EQ(out.at("E").get(k), a - b);
    EXPECT_DOUBLE_EQ(out.at("F").get(k), a / b);
  }
}

TEST(TensorOperations, TransposeOfThreeDimensions) {
  auto p = compile(R"(
A = tensor([2, 3, 4])
B = transpose(A, [[1, 3]])
codegen(B)
)");
  ASSERT_EQ(p.find("B")->shape, (std::vector<int64_t>{4, 3, 2}));
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(at(out.at("B"), {k, j, i}), at(in.at("A"), {i, j, k}));
}

TEST(TensorOperations, ContractOnePair) {
  auto p = compile(R"(
A = tensor([3, 4])
B = tensor([5, 4])
C = contract(A, B, [2, 2])
codegen(C)
)");
  ASSERT_EQ(p.find("C")->shape, (std::vector<int64_t>{3, 5}));
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += at(in.at("A"), {i, k}) * at(in.at("B"), {j, k});
      EXPECT_NEAR(at(out.at("C"), {i, j}), s, 1e-12);
    }
}

TEST(TensorOperations, ContractSeveralPairs) {
  // C[i][l] = sum_{j,k} A[i][j][k] B[k][l][j]  (numpy.tensordot(A, B, axes=([1, 2], [2, 0])))
  auto p = compile(R"(
A = tensor([3, 4, 5])
B = tensor([5, 6, 4])
C = contract(A, B, [[2, 3], [3, 1]])
codegen(C)
)");
  ASSERT_EQ(p.find("C")->shape, (std::vector<int64_t>{3, 6}));
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 3; ++i)
    for (int l = 0; l < 6; ++l) {
      double s = 0;
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 5; ++k) s += at(in.at("A"), {i, j, k}) * at(in.at("B"), {k, l, j});
      EXPECT_NEAR(at(out.at("C"), {i, l}), s, 1e-12);
    }
}

TEST(TensorOperations, OuterProductOfThree) {
  auto p = compile(R"(
a = tensor([2])
b = tensor([3])
c = tensor([4, 2])
T = outerproduct(a, b, c)
codegen(T)
)");
  ASSERT_EQ(p.find("T")->shape, (std::vector<int64_t>{2, 3, 4, 2}));
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        for (int l = 0; l < 2; ++l)
          EXPECT_DOUBLE_EQ(at(out.at("T"), {i, j, k, l}),
                           in.at("a").get(i) * (in.at("b").get(j) * at(in.at("c"), {k, l})));
}

TEST(TensorOperations, VirtualContractionInsideEntrywise) {
  // SDDMM: R = S .* (A B)
  auto p = compile(R"(
S = tensor([4, 5])
A = tensor([4, 3])
B = tensor([3, 5])
t = vcontract(A, B, [2, 1])
R = entrywise_mul(S, t)
codegen(R)
)");
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += at(in.at("A"), {i, k}) * at(in.at("B"), {k, j});
      EXPECT_NEAR(at(out.at("R"), {i, j}), at(in.at("S"), {i, j}) * s, 1e-12);
    }
}

TEST(TensorOperations, TwoUsesOfOneContractionSumIndependently) {
  // (sum_k a[k] b[k])^2 must not become sum_k (a[k] b[k])^2.
  auto p = compile(R"(
a = tensor([5])
b = tensor([5])
d = vcontract(a, b, [1, 1])
s = scalar()
s = mul(d, d, [, ] -> [])
codegen(s)
)");
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  double dot = 0;
  for (int k = 0; k < 5; ++k) dot += in.at("a").get(k) * in.at("b").get(k);
  EXPECT_NEAR(out.at("s").get(0), dot * dot, 1e-12);
}

TEST(TensorOperations, AffineIndicesForAStencil) {
  auto p = compile(R"(
inp = tensor([N])
out = tensor([N - 2])
third = scalar()
init(third, 0.5)
s1 = vadd(inp, inp, [[i], [i + 2]])
out = mul(s1, third, [, ] -> [i])
codegen(out)
)", {{"N", 9}});
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 7; ++i)
    EXPECT_DOUBLE_EQ(out.at("out").get(i), (in.at("inp").get(i) + in.at("inp").get(i + 2)) * 0.5);
}

TEST(TensorOperations, FloatTensors) {
  auto p = compile(R"(
A = tensor(float, [8, 8])
B = tensor(float, [8, 8])
C = contract(A, B, [2, 1])
l = build(C)
l1 = vectorize(l, 3)
codegen(l1)
)");
  EXPECT_EQ(p.find("C")->dtype, ir::DType::F32);
  expectJitMatchesInterpreter(p);
}

TEST(TensorOperations, StridedIndex) {
  auto p = compile(R"(
A = tensor([9])
B2 = tensor([4])
B2 = eq(A, [2 * i + 1] -> [i])
codegen(B2)
)");
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out.at("B2").get(i), in.at("A").get(2 * i + 1));
}
