// The automatic schedule turns a feature loop around a CSR row sum inside
// out (autoschedule/auto_loop_order): the row loop is cut out of the
// feature loop's body and moved outside it, so that the innermost loop
// walks rows of h in SIMD lanes. Where the order of the inner loop's
// updates matters, the step is refused and the loops keep their order; a
// loop whose inner loop already reads contiguously is left alone. Results
// equal the interpreter's on the program as written, on 1 to 4 threads,
// with feature counts that vectors do and do not divide.
#include <algorithm>
#include <functional>

#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "ir/mutator.hpp"
#include "lowering/lower.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

// GAT's weighted sum of the neighbours' features, as FreeTensor's users
// write it: features outside, the node's edges inside.
std::string weightedSum(int features) {
  std::string f = std::to_string(features);
  return R"(import teml
@teml.transform
def f(ptr: teml.Var[(9,), "int32"], idx: teml.Var[(20,), "int32"], h: teml.Var[(8, )" + f + R"(), "int64"],
      e: teml.Var[(20,), "int64"], s: teml.Var[(8,), "int64"], y: teml.Var[(8, )" + f + R"(), "int64", "output"]):
    for i in range(8):
        for j in range()" + f + R"():
            y[i, j] = 0
            for k in range(ptr[i], ptr[i + 1]):
                y[i, j] += h[idx[k], j] * e[k]
            if ptr[i] < ptr[i + 1]:
                y[i, j] = y[i, j] * 3 + s[i]
)";
}

freeform::FreeformProgram compiled(const std::string& source, bool autoSchedule) {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.autoSchedule = autoSchedule;
  return pipeline::compileFreeform(source, o);
}

int stepsNamed(const freeform::FreeformProgram& p, const std::string& name) {
  return static_cast<int>(std::count_if(p.autoSteps.begin(), p.autoSteps.end(), [&](const std::string& s) {
    return s.rfind("s." + name + "(", 0) == 0;
  }));
}

// Rows with empty ones among them; neighbours repeat (a node's features
// are gathered by several rows).
runtime::BufferMap inputs(const ir::Program& p) {
  runtime::BufferMap b = runtime::allocateBuffers(p);
  const int ptr[] = {0, 3, 3, 7, 9, 14, 15, 15, 20};
  auto fill = [&](const std::string& t, const std::function<int64_t(int64_t)>& value) {
    if (b.count(t))
      for (int64_t k = 0; k < b.at(t).size(); ++k) b.at(t).setInt(k, value(k));
  };
  fill("ptr", [&](int64_t k) { return ptr[k]; });
  fill("idx", [](int64_t k) { return (k * 5) % 8; });
  fill("e", [](int64_t k) { return k % 7 - 3; });
  fill("s", [](int64_t k) { return 11 * k - 40; });
  fill("h", [](int64_t k) { return (k * 37) % 101 - 50; });
  fill("x", [](int64_t k) { return k + 1; });
  return b;
}

void expectSameResults(const std::string& source, const std::vector<std::string>& outputs) {
  auto scheduled = compiled(source, true), asWritten = compiled(source, false);
  runtime::BufferMap in = inputs(asWritten.program);
  auto want = runInterpreter(asWritten.program, in);
  for (int threads : {1, 2, 4}) {
    auto got = runJit(scheduled.program, in, threads);
    for (auto& t : outputs)
      for (int64_t k = 0; k < want.at(t).size(); ++k)
        ASSERT_EQ(got.at(t).getInt(k), want.at(t).getInt(k)) << t << "[" << k << "] on " << threads << " threads";
  }
}

}  // namespace

TEST(AutoLoopOrder, ARowSumInsideAFeatureLoopRunsTheFeaturesInnermost) {
  for (int features : {32, 20}) {  // 20: vectors leave a remainder
    SCOPED_TRACE(features);
    auto p = compiled(weightedSum(features), true);
    std::string steps;
    for (auto& s : p.autoSteps) steps += s + "\n";
    // Cut after the row loop, then before it; the row loop then goes outside.
    EXPECT_EQ(stepsNamed(p, "fission"), 2) << steps;
    EXPECT_EQ(stepsNamed(p, "reorder"), 1) << steps;
    expectSameResults(weightedSum(features), {"y"});
  }
}

TEST(AutoLoopOrder, TheBoundsCheckOfAGatheredRowLeavesTheVectorLoop) {
  // h[idx[k], j] is checked for every k; inside out, the check does not
  // change along j and is made before the vector loop over j, not in it
  // (a call that reports a failure keeps a loop out of SIMD lanes).
  auto p = compiled(weightedSum(32), true);
  int vectorLoops = 0;
  for (auto& nest : lowering::lower(p.program, driver::machineTarget(2)).nests)
    ir::forEachStmt(nest, [&](const ir::StmtP& s) {
      if (s->kind != ir::StmtKind::For || !s->as<ir::For>().loopKind.lanes()) return;
      auto& f = s->as<ir::For>();
      ++vectorLoops;
      // Checks that change along the loop stay (the rows' own order check).
      ir::forEachStmt(f.body, [&](const ir::StmtP& t) {
        if (t->kind == ir::StmtKind::Assert)
          EXPECT_TRUE(ir::usesVar(t->as<ir::Assert>().cond, f.var)) << f.id;
      });
    });
  EXPECT_GE(vectorLoops, 3);
}

TEST(AutoLoopOrder, UpdatesWhoseOrderMattersKeepTheLoopsAsWritten) {
  // x[idx[k]] = 2 x[idx[k]] + h[i, j]: rows that share a neighbour update
  // it in an order that turning the loops inside out would change.
  const char* source = R"(import teml
@teml.transform
def f(ptr: teml.Var[(9,), "int32"], idx: teml.Var[(20,), "int32"], h: teml.Var[(8, 16), "int64"],
      x: teml.Var[(8,), "int64", "output"]):
    for i in range(8):
        for j in range(16):
            for k in range(ptr[i], ptr[i + 1]):
                x[idx[k]] = x[idx[k]] * 2 % 1000003 + h[i, j]
)";
  auto p = compiled(source, true);
  EXPECT_EQ(stepsNamed(p, "reorder"), 0);
  expectSameResults(source, {"x"});
}

TEST(AutoLoopOrder, AnInnerLoopThatReadsContiguouslyIsLeftInside) {
  // Row j of h is read along k: the inner loop walks memory already.
  const char* source = R"(import teml
@teml.transform
def f(h: teml.Var[(16, 8), "int64"], y: teml.Var[(16,), "int64", "output"]):
    for j in range(16):
        y[j] = 0
        for k in range(8):
            y[j] += h[j, k]
)";
  auto p = compiled(source, true);
  EXPECT_EQ(stepsNamed(p, "fission"), 0);
  EXPECT_EQ(stepsNamed(p, "reorder"), 0);
}
