// A strip-mined loop's block may move above its block loop: the inner
// loop is counted from 0 (its iterator an offset in the block), and a last
// partial block is guarded, so a factor need not divide the extent
// (every 32nd feature on a GPU lane, for any feature count).
#include "frontend/freeform/freeform.hpp"
#include "ir/printer.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

ir::Program lanesOutside(int64_t features) {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.sizes = {{"N", 5}, {"F", features}};
  return pipeline::compileFreeform(R"(import teml
@teml.transform
def f(x: teml.Var[(N, F), "float64"], w: teml.Var[(F,), "float64"], y: teml.Var[(N,), "float64", "output"]):
    for i in range(N):
        #! label: Lp
        for p in range(F):
            y[i] += x[i, p] * w[p]
@teml.schedule(f)
def g(s):
    blocks, lanes = s.split("Lp", 32)
    s.reorder([lanes, blocks])
)",
                                   o)
      .program;
}

}  // namespace

TEST(InterchangeBlocks, ABlockThatTheFactorDividesIsCountedFromZeroAndMovesAboveItsBlockLoop) {
  ir::Program p = lanesOutside(64);
  std::string ir = ir::toString(p, true);
  EXPECT_NE(ir.find("for p in [0, 32)"), std::string::npos) << ir;
  EXPECT_LT(ir.find("for p in [0, 32)"), ir.find("for p_o in [0, 2)")) << ir;
  EXPECT_EQ(ir.find("if 32 * p_o + p < 64"), std::string::npos) << ir;
  expectJitMatchesInterpreter(p);
}

TEST(InterchangeBlocks, ALastPartialBlockIsGuardedWhereTheFactorDoesNotDivide) {
  ir::Program p = lanesOutside(70);
  std::string ir = ir::toString(p, true);
  EXPECT_NE(ir.find("if 32 * p_o + p < 70"), std::string::npos) << ir;
  expectJitMatchesInterpreter(p);
}
