// distribute (INTERFACES.md "Distributed runs (MPI)"): one entry in the
// primitive table, spelled in the three schedule languages, checked as
// parallelize is; with one rank the loop runs as it would without.
#include "frontend/freeform/freeform.hpp"
#include "frontend/til/til.hpp"
#include "ir/distribution.hpp"
#include "ir/printer.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

freeform::FreeformProgram ff(const std::string& source, std::map<std::string, int64_t> sizes = {{"N", 13}}) {
  return compileForHost(source, std::move(sizes));
}

const char* kRows = R"(import teml
@teml.transform
def f(x: teml.Var[(N, 4), "int64"], y: teml.Var[(N, 4), "int64", "output"], s: teml.Var[(1,), "int64", "output"]):
    #! label: Li
    for i in range(N):
        for j in range(4):
            y[i, j] = x[i, j] * 3 + i
            s[0] += x[i, j]
)";

}  // namespace

TEST(Distribute, IndependentRowsAndSumsAreAcceptedAndOneRankRunsThemAll) {
  auto p = ff(std::string(kRows) + "@teml.schedule(f)\ndef g(s):\n    s.distribute(\"Li\")\n");
  std::string ir = ir::toString(p.program, true);
  EXPECT_NE(ir.find("for i in [0, 13) distributed"), std::string::npos) << ir;
  expectJitMatchesInterpreter(p.program);
}

TEST(Distribute, ACarriedDependenceIsRefusedNamingIt) {
  Failure f = failureOf([] {
    ff(R"(import teml
@teml.transform
def f(a: teml.Var[(N,), "int64", "inout"]):
    #! label: Li
    for i in range(1, N):
        a[i] = a[i - 1] + 1
@teml.schedule(f)
def g(s):
    s.distribute("Li")
)");
  });
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 9) << f.message;
  EXPECT_NE(f.message.find("distribute"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("'a'"), std::string::npos) << f.message;
}

const char* kGrid = R"(import teml
@teml.transform
def f(x: teml.Var[(N, 6), "int64"], y: teml.Var[(N, 6), "int64", "output"]):
    #! label: Li
    for i in range(N):
        #! label: Lj
        for j in range(6):
            y[i, j] = x[i, j] * 3 + i
    #! label: Lk
    for i in range(N):
        y[i, 0] += 1
        #! label: Ll
        for j in range(6):
            y[i, j] += 1
@teml.schedule(f)
def g(s):
)";

TEST(Distribute, TheRanksSplitOneLoopOfANestOrTwoOfARectangularOne) {
  auto grid = ff(std::string(kGrid) + "    s.distribute(\"Li\")\n    s.distribute(\"Lj\")\n");
  std::string ir = ir::toString(grid.program, true);
  EXPECT_NE(ir.find("for j in [0, 6) distributed"), std::string::npos) << ir;
  expectJitMatchesInterpreter(grid.program);
  auto innerFirst = ff(std::string(kGrid) + "    s.distribute(\"Lj\")\n    s.distribute(\"Li\")\n");
  EXPECT_EQ(ir::toString(innerFirst.program, true), ir);
  // A split loop's inner part depends on the outer one; a statement beside
  // the inner loop would run in every rank of a grid row.
  for (std::string steps : {"    o, _ = s.split(\"Li\", 4)\n    s.distribute(o)\n    s.distribute(\"Li\")\n",
                            "    s.distribute(\"Lk\")\n    s.distribute(\"Ll\")\n",
                            "    s.distribute(\"Ll\")\n    s.distribute(\"Lk\")\n"}) {
    Failure f = failureOf([&] { ff(std::string(kGrid) + steps); });
    ASSERT_TRUE(f.failed) << steps;
    EXPECT_NE(f.message.find("distributed already; the ranks split one loop of a nest, or two where the inner one "
                             "is the whole body of the outer one"),
              std::string::npos)
        << f.message;
  }
}

TEST(Distribute, TheGridOfRanksIsTheMostEvenSplitWithMoreRowsUnlessAsked) {
  auto grid = [](int ranks, int rows = 0) {
    auto g = ir::rankGrid(ranks, rows);
    return std::to_string(g.rows) + "x" + std::to_string(g.cols);
  };
  EXPECT_EQ(grid(1), "1x1");
  EXPECT_EQ(grid(2), "2x1");
  EXPECT_EQ(grid(4), "2x2");
  EXPECT_EQ(grid(6), "3x2");
  EXPECT_EQ(grid(7), "7x1");
  EXPECT_EQ(grid(12), "4x3");
  EXPECT_EQ(grid(4, 1), "1x4");
  EXPECT_TRUE(failureOf([&] { grid(4, 3); }).failed);
}

TEST(Distribute, TemlAndTheIteratorLanguageSpellItToo) {
  auto teml = compile("A = tensor([6, 5])\nB = tensor([6, 5])\nB = eq(A, [i, j] -> [i, j])\nl = build(B)\n"
                      "d = distribute(l, 1)\ncodegen(d)\n");
  EXPECT_NE(ir::toString(teml, true).find("distributed"), std::string::npos);
  expectJitMatchesInterpreter(teml);
  auto til = compile(til::tilToTeml("A = array(2, double, [N, N])\nB = array(2, double, [N, N])\nC = entrywise(A, B)\n"
                                    "i = iterator(0, N, 1)\nj = iterator(0, N, 1)\nbuild(C, [i, j])\ndistribute(i)\n"),
                     {{"N", 5}});
  EXPECT_NE(ir::toString(til, true).find("distributed"), std::string::npos);
  expectJitMatchesInterpreter(til);
}
