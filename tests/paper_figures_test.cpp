// The TeML paper's worked examples (Figures 4-6) give the loop nests and
// values the paper prints.
#include "ir/printer.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

TEST(PaperFigures, Figure4TransposeWithEq) {
  auto p = compile(R"(
A = tensor([N1, N2])
B = eq(A, [i1, i2] -> [i2, i1])
l = build(B)
codegen(l)
)", {{"N1", 3}, {"N2", 5}});
  EXPECT_EQ(ir::toString(p.nests[0]), "for i1 in [0, 3)\n  for i2 in [0, 5)\n    B[i2][i1] = A[i1][i2]\n");
  ASSERT_EQ(p.find("B")->shape, (std::vector<int64_t>{5, 3}));
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(out.at("B").get(j * 3 + i), in.at("A").get(i * 5 + j));
}

TEST(PaperFigures, Figure5NamedTarget) {
  auto p = compile(R"(
A = tensor([N, N])
B = tensor([N, N])
C = tensor([N, N])
D = @C: add(A, B, [[i1, i2], [i1, i2]] -> [i2, i1])
l = build(D)
codegen(l)
)", {{"N", 4}});
  EXPECT_EQ(ir::toString(p.nests[0]),
            "for i1 in [0, 4)\n  for i2 in [0, 4)\n    C[i2][i1] = A[i1][i2] + B[i1][i2]\n");
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_DOUBLE_EQ(out.at("C").get(j * 4 + i), in.at("A").get(i * 4 + j) + in.at("B").get(i * 4 + j));
}

TEST(PaperFigures, Figure6VirtualThenReal) {
  auto p = compile(R"(
A = tensor([N, N])
B = tensor([N, N])
C = tensor([N, N])
D = vadd(A, B, [[i1, i2], [i1, i2]])
E = mul(C, D, [[i1, i2], ] -> [i1, i2])
l = build(E)
codegen(l)
)", {{"N", 6}});
  EXPECT_EQ(ir::toString(p.nests[0]),
            "for i1 in [0, 6)\n  for i2 in [0, 6)\n    E[i1][i2] = C[i1][i2] * (A[i1][i2] + B[i1][i2])\n");
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int k = 0; k < 36; ++k)
    EXPECT_DOUBLE_EQ(out.at("E").get(k), in.at("C").get(k) * (in.at("A").get(k) + in.at("B").get(k)));
}

TEST(PaperFigures, InterpListingLoopOrder) {
  // Section 5.3: t[i1][i2][i3] += A[i1][i4] * u[i4][i2][i3] in loop order i1, i2, i3, i4.
  auto p = compile(R"(
A = tensor([N, N])
u = tensor([N, N, N])
t = contract(A, u, [2, 1])
l = build(t)
codegen(l)
)", {{"N", 3}});
  EXPECT_EQ(ir::toString(p.nests[0]),
            "for i1 in [0, 3)\n  for i2 in [0, 3)\n    for i3 in [0, 3)\n      for i4 in [0, 3)\n"
            "        t[i1][i2][i3] += A[i1][i4] * u[i4][i2][i3]\n");
}

TEST(PaperFigures, TilingFigure10Order) {
  auto p = compile(R"(
A = tensor([N, N, N])
B = eq(A, [i, j, k] -> [i, j, k])
l = build(B)
t = tile(l, 4)
codegen(t)
)", {{"N", 8}});
  std::string s = ir::toString(p.nests[0]);
  EXPECT_NE(s.find("for i_o in [0, 2)\n  for j_o in [0, 2)\n    for k_o in [0, 2)\n      for i in [4 * i_o, 4 * i_o + 4)\n"
                   "        for j in [4 * j_o, 4 * j_o + 4)\n          for k in [4 * k_o, 4 * k_o + 4)"),
            std::string::npos)
      << s;
  expectJitMatchesInterpreter(p);
}
