// Malformed programs are refused with a diagnostic at the statement at fault.
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {
void expectError(const std::string& src, int line, const std::string& fragment,
                 std::map<std::string, int64_t> sizes = {}) {
  auto f = compileError(src, sizes);
  ASSERT_TRUE(f.failed) << src;
  EXPECT_EQ(f.loc.line, line) << f.message;
  EXPECT_NE(f.message.find(fragment), std::string::npos) << f.message;
}
}  // namespace

TEST(Diagnostics, SyntaxErrors) {
  expectError("A = tensor([3, 3]\n", 2, "expected ')'");
  expectError("A = tensor([3])\nB = $\n", 2, "unexpected character");
  expectError("A = tensor([3])\nB = vadd(build(A), A)\n", 2, "cannot be nested");
  expectError("= tensor([3])\n", 1, "expected an identifier");
}

TEST(Diagnostics, UndefinedNamesAndUnboundSizes) {
  expectError("A = tensor([3])\nB = eq(X, [i] -> [i])\n", 2, "'X' is not defined");
  expectError("A = tensor([N])\n", 1, "size parameter 'N' is not bound");
  expectError("A = tensor([3])\nB = frobnicate(A)\n", 2, "unknown built-in");
}

TEST(Diagnostics, ShapeErrors) {
  expectError("A = tensor([3, 4])\nB = tensor([5, 4])\nC = contract(A, B, [2, 1])\n", 3,
              "dimension 2 of 'A' has extent 4 but dimension 1 of 'B' has extent 5");
  expectError("A = tensor([3, 4])\nB = tensor([4, 3])\nC = entrywise_add(A, B)\n", 3, "has shape [4, 3]");
  expectError("A = tensor([3, 4])\nB = vadd(A, A, [[i], [i, j]])\n", 2, "has 2 dimensions but the iterator list has 1");
  expectError("A = tensor([3, 4])\nB = tensor([4, 4])\nC = vadd(A, B, [[i, j], [i, j]])\n", 3,
              "indexes dimensions of different extents");
  expectError("A = tensor([3])\nB = tensor([4, 4])\nB = eq(A, [i] -> [i, i])\n", 3, "leaves tensor 'A'");
  expectError("A = tensor([3])\nB = eq(A, -> [i])\n", 2, "has no iterators yet");
}

TEST(Diagnostics, OutOfBoundsAccessesAreRefusedAtCheckTime) {
  expectError("A = tensor([8])\nB = tensor([8])\nt = vadd(A, A, [[i], [i + 1]])\nB = eq(t, -> [i])\n", 4,
              "index i + 1 ranges over [1, 8] but dimension 1 has extent 8");
}

TEST(Diagnostics, MalformedTransformations) {
  const std::string mm = "A = tensor([4, 4])\nB = tensor([4, 4])\nC = contract(A, B, [2, 1])\nl = build(C)\n";
  expectError(mm + "s = stripmine(l, 4, 2)\n", 5, "level 4 does not exist");
  expectError(mm + "s = interchange(l, 0, 2)\n", 5, "levels count from 1");
  expectError(mm + "s = build(l)\n", 5, "is a loop nest");
  expectError(mm + "s = stripmine(l, 2, 0)\n", 5, "factor must be positive");
  // A block strip-mined again: its inner blocks' count moves with the outer block loop.
  expectError(mm + "s = stripmine(l, 2, 3)\nu = stripmine(s, 3, 2)\nt = interchange(u, 2, 3)\n", 7, "depend on iterator");
  expectError(mm + "s = unroll(l, 2, 3)\nu = stripmine(s, 3, 2)\n", 6, "not reachable");
  expectError(mm + "D = tensor([5, 5])\nE = entrywise_add(D, D)\nm = build(E)\nf = fuse_outer(l, m, 1)\n", 8,
              "different ranges");
  expectError(mm + "f = fuse_inner(l, 2)\n", 5, "single loop");
  expectError(mm + "codegen(A)\n", 5, "not a loop nest");
}

TEST(Diagnostics, NoInputCrashesTheCompiler) {
  // Fragments and odd inputs: each either compiles or gives a UserError.
  std::vector<std::string> inputs = {"", "\n\n", "A", "A =", "A = tensor(", "A = tensor([])", "A = tensor([0])",
                                     "A = tensor([-3])", "A = scalar()\nB = eq(A, -> [])\nl = build(B)\ncodegen(l)",
                                     "codegen()", "init(A, 1)", "A = tensor([3])\ninit(A, x)",
                                     std::string(500, '['), "A = tensor([99999999999999999999])",
                                     "A = tensor([3])\nB = vtranspose(A, [[1, 2]])",
                                     "A = tensor([3, 3])\nl = tile(A, 2)", "\xff\xfe"};
  for (auto& src : inputs) {
    try {
      compile(src, {});
    } catch (const UserError&) {
    }
  }
  SUCCEED();
}

TEST(Diagnostics, AMissingParenthesisPointsAlsoAtTheOneItWouldClose) {
  auto f = compileError("A = tensor([4, 4])\nB = tensor(double, [3, 4]\nl = build(B)\n");
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 3) << "the error stays where the parser noticed it";
  EXPECT_EQ(f.loc.col, 1);
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_EQ(f.notes[0].loc.line, 2);
  EXPECT_EQ(f.notes[0].loc.col, 11);
  EXPECT_EQ(f.notes[0].message, "to match this '('");
  EXPECT_EQ(formatDiagnostic("p.teml", UserError(f.loc, f.message, f.notes)),
            "p.teml:3:1: error: expected ')' to close the arguments of 'tensor', found 'l'\n"
            "p.teml:2:11: note: to match this '('");
  auto list = compileError("A = tensor([4, 4\nl = build(A)\n");
  ASSERT_EQ(list.notes.size(), 1u);
  EXPECT_EQ(list.notes[0].message, "to match this '['");
}

TEST(Diagnostics, AMissingLevelIsNamedAsWritten) {
  expectError("A = tensor([4, 4])\nB = tensor([4, 4])\nB = eq(A, [i, j] -> [i, j])\nl = build(B)\n"
              "m = interchange(l, 2, 7)\n",
              5, "level 7 does not exist: the loop nest has 2 levels");
}
