// reorder of loops with a branch between them (`for t: if c: for p:`): the
// branch moves into the inner loop where that loop's bounds read no tensor,
// so the loops form one nest; the dependence analysis still checks the new
// order. Longformer's weighted sum of V rows, the lanes' loop moved outside
// the window loop, then sums each output element in a register.
#include "frontend/freeform/freeform.hpp"
#include "ir/printer.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

freeform::FreeformProgram ff(const std::string& source, std::map<std::string, int64_t> sizes) {
  return compileForHost(source, std::move(sizes));
}

// A window of 5 rows around row i, those inside the matrix (integers: a
// lost or doubled term shows).
std::string windowSum(const std::string& schedule) {
  return R"(import teml
@teml.transform
def f(w: teml.Var[(5,), "int64"], x: teml.Var[(N, P), "int64"], y: teml.Var[(N, P), "int64", "output"]):
    #! label: Li
    for i in range(N):
        #! label: Lt
        for t in range(-2, 3):
            if 0 <= i + t < N:
                #! label: Lp
                for p in range(P):
                    y[i, p] += w[t + 2] * x[i + t, p]
@teml.schedule(f)
def g(s):
)" + schedule;
}

}  // namespace

TEST(ReorderThroughBranches, TheBranchMovesIntoTheLoopItWrappedAndTheLoopsSwap) {
  auto p = ff(windowSum("    s.reorder([\"Lp\", \"Lt\"])\n"), {{"N", 7}, {"P", 5}});
  std::string ir = ir::toString(p.program, true);
  auto lp = ir.find("for p in"), lt = ir.find("for t in"), branch = ir.find("if 0 <= i + t");
  ASSERT_NE(lp, std::string::npos) << ir;
  EXPECT_LT(lp, lt) << ir;
  EXPECT_LT(lt, branch) << ir;
  expectJitMatchesInterpreter(p.program);
}

TEST(ReorderThroughBranches, AnOutputElementSummedOverTheWindowStaysInARegister) {
  auto p = ff(windowSum("    s.reorder([\"Lp\", \"Lt\"])\n    s.cache_reduce(\"Lp\", \"y\")\n"), {{"N", 7}, {"P", 5}});
  std::string ir = ir::toString(p.program, true);
  auto cache = ir.find("y_cache");
  ASSERT_NE(cache, std::string::npos) << ir;
  EXPECT_LT(ir.find("for p in"), cache) << ir;
  EXPECT_LT(cache, ir.find("for t in")) << ir;
  expectJitMatchesInterpreter(p.program);
}

TEST(ReorderThroughBranches, LoopsOfSeveralLevelsPassTheBranchOneAfterAnother) {
  auto p = ff(windowSum("    o, q = s.split(\"Lp\", 2)\n    s.reorder([q, o, \"Lt\"])\n"), {{"N", 6}, {"P", 5}});
  std::string ir = ir::toString(p.program, true);
  EXPECT_LT(ir.find("for t in"), ir.find("if 0 <= i + t")) << ir;
  EXPECT_LT(ir.find("for p_o in"), ir.find("for t in")) << ir;
  expectJitMatchesInterpreter(p.program);
}

TEST(ReorderThroughBranches, ABranchAroundALoopWhoseBoundsReadATensorStays) {
  // ptr[i + 1] must not be read where i + 1 is past the last row.
  Failure f = failureOf([] {
    ff(R"(import teml
@teml.transform
def f(ptr: teml.Var[(N + 1,), "int32"], x: teml.Var[(E,), "int64"], y: teml.Var[(N,), "int64", "output"]):
    #! label: Lt
    for t in range(3):
        if t < 2:
            #! label: Lk
            for k in range(ptr[t], ptr[t + 1]):
                y[t] += x[k]
@teml.schedule(f)
def g(s):
    s.reorder(["Lk", "Lt"])
)",
       {{"N", 4}, {"E", 9}});
  });
  ASSERT_TRUE(f.failed);
  EXPECT_NE(f.message.find("loops 'Lk' and 'Lt' are not in one perfect loop nest"), std::string::npos) << f.message;
}

TEST(ReorderThroughBranches, AnOrderTheDependencesForbidIsStillRefused) {
  // a[t][p] needs a[t - 1][p + 1]: with p outside t, it would be read before it is written.
  Failure f = failureOf([] {
    ff(R"(import teml
@teml.transform
def f(a: teml.Var[(T, P), "int64", "inout"]):
    #! label: Lt
    for t in range(T):
        if t > 0:
            #! label: Lp
            for p in range(P - 1):
                a[t, p] = a[t - 1, p + 1] + 1
@teml.schedule(f)
def g(s):
    s.reorder(["Lp", "Lt"])
)",
       {{"T", 5}, {"P", 6}});
  });
  ASSERT_TRUE(f.failed);
  EXPECT_NE(f.message.find("reorder"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("'a'"), std::string::npos) << f.message;
}

TEST(ReorderThroughBranches, ABranchWhoseConditionTheLoopChangesStays) {
  // Moved into the loop, cnt[i] < 3 would be asked again after each += 1.
  Failure f = failureOf([] {
    ff(R"(import teml
@teml.transform
def f(cnt: teml.Var[(N,), "int64", "inout"]):
    #! label: Li
    for i in range(N):
        if cnt[i] < 3:
            #! label: Lj
            for j in range(M):
                cnt[i] += 1
@teml.schedule(f)
def g(s):
    s.reorder(["Lj", "Li"])
)",
       {{"N", 4}, {"M", 5}});
  });
  ASSERT_TRUE(f.failed);
  EXPECT_NE(f.message.find("loops 'Lj' and 'Li' are not in one perfect loop nest"), std::string::npos) << f.message;
}
