// The TeIL front end: the paper's figures give the expected values, and
// ill-typed programs are refused at the right line with the rule's name.
#include <random>

#include "frontend/teil/teil.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

ir::Program compileTeil(const std::string& src, const std::map<std::string, int64_t>& sizes = {}) {
  teil::TeilProgram p = teil::parseTeil(src, sizes);
  teil::checkTeil(p);
  return teil::buildTeil(p);
}

Failure teilError(const std::string& src, const std::map<std::string, int64_t>& sizes = {}) {
  Failure f;
  try {
    compileTeil(src, sizes);
  } catch (const UserError& e) {
    f.failed = true;
    f.loc = e.loc();
    f.message = e.what();
  }
  return f;
}

void expectRefused(const std::string& src, int line, const std::string& fragment,
                   const std::map<std::string, int64_t>& sizes = {}) {
  auto f = teilError(src, sizes);
  ASSERT_TRUE(f.failed) << src;
  EXPECT_EQ(f.loc.line, line) << f.message;
  EXPECT_NE(f.message.find(fragment), std::string::npos) << f.message;
}

// Element (i, j) of a row-major matrix with `cols` columns.
double at(const runtime::Buffer& b, int64_t i, int64_t j, int64_t cols) { return b.get(i * cols + j); }

}  // namespace

TEST(Teil, Figure7MatrixProduct) {
  auto p = compileTeil("alloc A : [l, m]\nalloc B : [m, n]\nalloc C : [l, n]\nC = red+ 2 (diag 2 3 (prod A B))\n",
                       {{"l", 5}, {"m", 4}, {"n", 3}});
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += at(in.at("A"), i, k, 4) * at(in.at("B"), k, j, 3);
      EXPECT_NEAR(at(out.at("C"), i, j, 3), s, 1e-12);
    }
  expectJitMatchesInterpreter(p);
}

TEST(Teil, Figure10TransposedProductAndTheKernelTeilRefuses) {
  // (b): C = A^T B with A : [h, m], B : [h, n].
  const std::map<std::string, int64_t> sizes = {{"h", 6}, {"m", 4}, {"n", 3}};
  auto p = compileTeil("alloc A : [h, m]\nalloc B : [h, n]\nalloc C : [m, n]\nC = contr 1 3 (prod A B)\n", sizes);
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 6; ++k) s += at(in.at("A"), k, i, 4) * at(in.at("B"), k, j, 3);
      EXPECT_NEAR(at(out.at("C"), i, j, 3), s, 1e-12);
    }
  // TVM's Figure 3a: the sizes of A and B swapped; the contracted dimensions differ.
  expectRefused("alloc A : [m, h]\nalloc B : [n, h]\nalloc C : [m, n]\nC = contr 1 3 (prod A B)\n", 4,
                "T-Diag: contr 1 3 of an expression of shape [4, 6, 3, 6]", sizes);
}

TEST(Teil, Figure10cStatementsRunInOrder) {
  auto p = compileTeil("alloc A : [m]\nalloc B : [m]\nalloc C : [m]\nA = B\nA = add A C\n", {{"m", 7}});
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int i = 0; i < 7; ++i) EXPECT_NEAR(out.at("A").get(i), in.at("B").get(i) + in.at("C").get(i), 1e-15);
}

TEST(Teil, Figure11ProjectionAndExpansion) {
  const std::map<std::string, int64_t> sizes = {{"k", 3}, {"m", 4}, {"n", 5}};
  auto p = compileTeil("alloc A : [m, n]\nalloc B : [k, m, n]\nalloc C : [m, n]\nalloc D : [k, m, n]\n"
                       "C = add A (proj 1 2 B)\nD = add B (expa 1 k A)\n",
                       sizes);
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  for (int q = 0; q < 3; ++q)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 5; ++j) {
        EXPECT_NEAR(out.at("D").get((q * 4 + i) * 5 + j), in.at("B").get((q * 4 + i) * 5 + j) + in.at("A").get(i * 5 + j), 1e-15);
        if (q == 0) EXPECT_NEAR(out.at("C").get(i * 5 + j), in.at("A").get(i * 5 + j) + in.at("B").get((4 + i) * 5 + j), 1e-15);
      }
}

TEST(Teil, AssignmentReadsTheOldValueOfItsTarget) {
  // A = A + A^T: every element uses the old A, not the half-updated one.
  auto p = compileTeil("alloc A : [n, n]\nA = add A (transp 1 2 A)\n", {{"n", 6}});
  auto in = randomInputs(p);
  for (int64_t i = 0; i < 36; ++i) in.at("A").set(i, static_cast<double>(i));
  auto out = runJit(p, in);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_EQ(at(out.at("A"), i, j, 6), (i * 6 + j) + (j * 6 + i));
  expectJitMatchesInterpreter(p);
}

TEST(Teil, OtherReductionsScalarsAndNesting) {
  // s = max over a row sums; y = s * (product over columns); nested reductions.
  auto p = compileTeil("alloc X : [r, c]\nalloc s : []\nalloc t : [r]\nalloc y : [r]\nalloc w : [c]\n"
                       "s = redmax 1 (red+ 2 X)\nt = red* 2 X\ny = mul s t\nw = redmin 1 X\n",
                       {{"r", 4}, {"c", 3}});
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  double best = -1e300;
  for (int i = 0; i < 4; ++i) {
    double sum = 0, prod = 1;
    for (int j = 0; j < 3; ++j) {
      sum += at(in.at("X"), i, j, 3);
      prod *= at(in.at("X"), i, j, 3);
    }
    best = std::max(best, sum);
    EXPECT_NEAR(out.at("t").get(i), prod, 1e-14);
  }
  EXPECT_NEAR(out.at("s").get(0), best, 1e-14);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(out.at("y").get(i), best * out.at("t").get(i), 1e-13);
  for (int j = 0; j < 3; ++j) {
    double lo = 1e300;
    for (int i = 0; i < 4; ++i) lo = std::min(lo, at(in.at("X"), i, j, 3));
    EXPECT_EQ(out.at("w").get(j), lo);
  }
  expectJitMatchesInterpreter(p);
}

TEST(Teil, IllTypedProgramsNameTheRule) {
  expectRefused("alloc A : [2, 3]\nalloc B : [3, 2]\nalloc C : [2, 3]\nC = add A B\n", 4,
                "T-Add: add needs operands of one shape, not [2, 3] and [3, 2]");
  expectRefused("alloc A : [2, 3]\nalloc C : [3]\nC = proj 1 3 A\n", 3, "T-Proj");
  expectRefused("alloc A : [2, 3]\nalloc C : [2]\nC = red+ 3 A\n", 3, "T-Red");
  expectRefused("alloc A : [2, 3]\nalloc C : [3, 2]\nC = A\n", 3, "OK-Stmt: 'C' has shape [3, 2]");
  expectRefused("alloc A : [2]\nalloc A : [3]\n", 2, "OK-Prog");
  expectRefused("alloc A : [2]\nA = B\n", 2, "T-Var: 'B' is not allocated");
  expectRefused("alloc A : [2, 2]\nalloc C : [2]\nC = diag 2 1 A\n", 3, "first position must come before");
  expectRefused("alloc A : [2, 2]\nalloc C : [2, 2, 2]\nC = expa 4 2 A\n", 3, "T-Expa");
  expectRefused("alloc A : [x]\n", 1, "not a size bound with --set");
  expectRefused("alloc A : [2]\nA = add A\n", 3, "expected a tensor expression");
  expectRefused("alloc A : [0]\n", 1, "natural numbers");
}

TEST(Teil, MutatedProgramsAreRefusedOrRunInBounds) {
  // Type safety: whatever a mutation produces is either refused with a
  // diagnostic or lowered to loops that the interpreter (which checks every
  // access) runs without leaving a tensor.
  const std::string base = "alloc A : [3, 4]\nalloc B : [2, 3, 4]\nalloc C : [3, 4]\nalloc D : [2, 3, 4]\n"
                           "alloc s : []\nC = add A (proj 1 2 B)\nD = add B (expa 1 2 A)\n"
                           "s = red+ 1 (red+ 1 (contr 2 3 (prod A (transp 1 2 A))))\nC = mul s (add C A)\n";
  const std::vector<std::string> pieces = {"1", "2", "3", "4", "A", "B", "C", "D", "s", "add", "mul", "prod", "red+",
                                           "redmax", "transp", "diag", "expa", "proj", "contr", "(", ")", "=", "[", "]"};
  std::mt19937 rng(11);
  int accepted = 0;
  for (int n = 0; n < 400; ++n) {
    // Split into words and parentheses, replace or drop a few.
    std::vector<std::string> words;
    std::string cur;
    for (char c : base) {
      if (c == ' ' || c == '(' || c == ')' || c == '\n') {
        if (!cur.empty()) words.push_back(cur);
        cur.clear();
        if (c != ' ') words.push_back(std::string(1, c));
      } else {
        cur += c;
      }
    }
    for (int k = 0; k < 3; ++k) {
      size_t at = rng() % words.size();
      if (words[at] == "\n") continue;
      if (rng() % 4 == 0) words.erase(words.begin() + at);
      else words[at] = pieces[rng() % pieces.size()];
    }
    std::string src;
    for (auto& w : words) src += w == "\n" ? "\n" : w + " ";
    try {
      ir::Program p = compileTeil(src);
      ++accepted;
      runInterpreter(p, randomInputs(p));
    } catch (const UserError&) {
    }
  }
  EXPECT_GT(accepted, 0);
}

TEST(Teil, ContractionLiftingKeepsTheOperatorsValue) {
  // v[e] = (A x B x C)(u[e]): three single contractions instead of one sum
  // over the nine-dimensional outer product.
  const std::string src = "alloc A : [n, n]\nalloc B : [n, n]\nalloc C : [n, n]\nalloc u : [E, n, n, n]\n"
                          "alloc v : [E, n, n, n]\n"
                          "v = transp 1 4 (transp 1 3 (transp 1 2 (contr 4 6 (contr 3 7 (contr 2 8 "
                          "(prod A (prod B (prod C u))))))))\n";
  const std::map<std::string, int64_t> sizes = {{"n", 4}, {"E", 3}};
  teil::TeilProgram p = teil::parseTeil(src, sizes);
  teil::checkTeil(p);
  teil::TeilProgram lifted = teil::liftContractions(p);
  teil::checkTeil(lifted);
  EXPECT_EQ(lifted.statements.size(), 4u);  // three contractions and the final order
  auto naive = teil::buildTeil(p), fast = teil::buildTeil(lifted);
  expectSameResults(fast, naive);
  // Against the definition, for one element.
  auto in = randomInputs(fast);
  auto out = runJit(fast, in);
  auto m = [&](const char* t, int i, int j) { return in.at(t).get(i * 4 + j); };
  for (int i1 = 0; i1 < 4; ++i1)
    for (int i3 = 0; i3 < 4; ++i3) {
      double s = 0;
      for (int j1 = 0; j1 < 4; ++j1)
        for (int j2 = 0; j2 < 4; ++j2)
          for (int j3 = 0; j3 < 4; ++j3)
            s += m("A", i1, j1) * m("B", 2, j2) * m("C", i3, j3) * in.at("u").get(((1 * 4 + j1) * 4 + j2) * 4 + j3);
      EXPECT_NEAR(out.at("v").get(((1 * 4 + i1) * 4 + 2) * 4 + i3), s, 1e-12);
    }
}

TEST(Teil, RewritingByTheEquationsOfSection36) {
  const std::string src = "alloc A : [3, 4]\nalloc C : [3, 4]\nalloc s : [4]\nalloc d : [3]\nalloc B : [3, 3]\n"
                          "C = add (proj 1 2 (expa 1 5 A)) (transp 1 2 (transp 1 2 A))\n"
                          "s = red+ 1 (expa 1 7 (redmax 1 (expa 1 2 (proj 1 1 A))))\n"
                          "d = diag 1 2 (transp 1 2 B)\n";
  teil::TeilProgram p = teil::parseTeil(src, {});
  teil::checkTeil(p);
  teil::TeilProgram r = teil::rewriteTeil(p);
  teil::checkTeil(r);
  EXPECT_EQ(teil::toString(r).substr(teil::toString(r).find("C = ")),
            "C = add A A\ns = scale 7 (proj 1 1 A)\nd = diag 1 2 B\n");
  expectSameResults(teil::buildTeil(r), teil::buildTeil(p));
}
