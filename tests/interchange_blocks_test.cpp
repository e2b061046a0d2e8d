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

// y[i] += x[i, p] * w[p] with `loop` (Li or Lp) split by `factor` and its
// block loop moved inside the loop of offsets.
ir::Program offsetsOutside(const std::string& loop, int64_t factor, int64_t rows, int64_t features) {
  return compileForHost(R"(import teml
@teml.transform
def f(x: teml.Var[(N, F), "float64"], w: teml.Var[(F,), "float64"], y: teml.Var[(N,), "float64", "output"]):
    #! label: Li
    for i in range(N):
        #! label: Lp
        for p in range(F):
            y[i] += x[i, p] * w[p]
@teml.schedule(f)
def g(s):
    blocks, offsets = s.split(")" + loop + "\", " + std::to_string(factor) + R"()
    s.reorder([offsets, blocks])
)",
                        {{"N", rows}, {"F", features}})
      .program;
}

ir::Program lanesOutside(int64_t features) { return offsetsOutside("Lp", 32, 5, features); }

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

// Rows in blocks of 4 with the rows' lanes outside: the last block's guard
// (4 * i_o + i < 5) keeps y's element in bounds, so the output's zeros are
// not set in front of it (they were, for i = 1..3 of the last block: past y).
TEST(InterchangeBlocks, AnOutputsZerosStayBehindTheGuardOfALastPartialBlock) {
  ir::Program p = offsetsOutside("Li", 4, 5, 3);
  std::string ir = ir::toString(p, true);
  ASSERT_NE(ir.find("if 4 * i_o + i < 5"), std::string::npos) << ir;
  std::string c = cSource(p);
  size_t zero = c.find("y[4 * i_o + i] = 0");
  EXPECT_TRUE(zero == std::string::npos || zero > c.find("if (4 * i_o + i < 5)")) << c;
  expectJitMatchesInterpreter(p);
}
