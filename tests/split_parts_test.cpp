// split(L, nparts=n) (FreeTensor's): an outer loop of exactly n iterations,
// each over one contiguous chunk; with a CSR row's data-dependent length
// too, and cache_reduce of a tensor the program defines around the loop.
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

const char* kRowSums = R"(import teml
@teml.transform
def f(ptr: teml.Var[(N + 1,), "int32"], val: teml.Var[(E,), "int64"], y: teml.Var[(N, 3), "int64", "output"]):
    for i in range(N):
        acc = teml.zeros((3,), "int64")
        #! label: Lk
        for k in range(ptr[i], ptr[i + 1]):
            acc[:] += val[k] * (k + 1)
        y[i] = acc
@teml.schedule(f)
def g(s):
    parts, _ = s.split("Lk", nparts=4)
    s.cache_reduce(parts, "acc")
)";

}  // namespace

TEST(SplitParts, TheOuterLoopHasExactlyNIterationsEachAContiguousChunk) {
  auto p = ff(R"(import teml
@teml.transform
def f(x: teml.Var[(N,), "int64"], y: teml.Var[(N,), "int64", "output"]):
    #! label: L
    for i in range(N):
        y[i] = x[i] * 3 + i
@teml.schedule(f)
def g(s):
    s.split("L", nparts=4)
)",
              {{"N", 10}});
  std::string ir = ir::toString(p.program, true);
  EXPECT_NE(ir.find("for i_o in [0, 4)"), std::string::npos) << ir;  // 4 parts of 3, 3, 3, 1
  expectJitMatchesInterpreter(p.program);
}

TEST(SplitParts, RowsOfAnyLengthAreSharedAmongThePartsAndSummedThroughALocalCopy) {
  auto p = ff(kRowSums, {{"N", 6}, {"E", 40}});
  std::string ir = ir::toString(p.program, true);
  EXPECT_NE(ir.find("acc_cache"), std::string::npos) << ir;  // each part's own row, added to acc after it
  auto in = randomInputs(p.program);
  const int64_t starts[] = {0, 0, 1, 4, 5, 13, 40};  // rows of 0, 1, 3, 1, 8 and 27 entries
  for (int r = 0; r <= 6; ++r) in.at("ptr").setInt(r, starts[r]);
  auto want = runInterpreter(p.program, in);
  auto got = runJit(p.program, in);
  for (int64_t e = 0; e < 18; ++e) EXPECT_EQ(got.at("y").getInt(e), want.at("y").getInt(e)) << e;
  EXPECT_EQ(want.at("y").getInt(0), 0);  // an empty row
}

TEST(SplitParts, MorePartsThanIterationsLeavesTheLastPartsEmpty) {
  auto p = ff(R"(import teml
@teml.transform
def f(x: teml.Var[(N,), "int64"], y: teml.Var[(N,), "int64", "output"]):
    #! label: L
    for i in range(N):
        y[i] = x[i] + 1
@teml.schedule(f)
def g(s):
    s.split("L", nparts=8)
)",
              {{"N", 3}});
  expectJitMatchesInterpreter(p.program);
}
