// distribute (INTERFACES.md "Distributed runs (MPI)"): one entry in the
// primitive table, spelled in the three schedule languages, checked as
// parallelize is; with one rank the loop runs as it would without.
#include "frontend/freeform/freeform.hpp"
#include "frontend/til/til.hpp"
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

TEST(Distribute, TheRanksSplitOneLoopOfANest) {
  Failure f = failureOf([] {
    ff(std::string(kRows) + "@teml.schedule(f)\ndef g(s):\n    o, _ = s.split(\"Li\", 4)\n    s.distribute(o)\n"
                            "    s.distribute(\"Li\")\n");
  });
  ASSERT_TRUE(f.failed);
  EXPECT_NE(f.message.find("distributed already"), std::string::npos) << f.message;
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
