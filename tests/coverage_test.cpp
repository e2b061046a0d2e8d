// Which elements groups of accesses touch (analysis/coverage): a main loop
// of blocks and its remainder tile a row when the remainder's block loop
// runs once (separate_tail's `for t_o in [3, 4)`), its iterator then a
// constant; a block loop that runs twice gives no such proof.
#include <gtest/gtest.h>

#include "analysis/coverage.hpp"
#include "ir/expr.hpp"
#include "ir/stmt.hpp"

using namespace teml;
using namespace teml::ir;

namespace {

// for t_o in [from, to): for t in [4 * t_o, end): y[t]
struct Blocks {
  StmtP point, block;
  analysis::AccessGroup group() const {
    return {{&block->as<For>(), &point->as<For>()}, {{var("t")}}};
  }
};

Blocks blocks(int64_t from, int64_t to, ExprP end) {
  ExprP start = mul(intConst(4), var("t_o"));
  Blocks b;
  b.point = makeFor("Lt", "t", start, end, 1, LoopKind{}, makeStore("y", {var("t")}, floatConst(0.0, DType::F32), {}));
  b.block = makeFor("Lt.o", "t_o", intConst(from), intConst(to), 1, LoopKind{}, b.point);
  return b;
}

Blocks mainBlocks() { return blocks(0, 3, add(mul(intConst(4), var("t_o")), intConst(4))); }

Box row(int64_t n) {
  Box box;
  box.used = true;
  box.offset = {intConst(0)};
  box.extent = {n};
  return box;
}

}  // namespace

TEST(Coverage, AMainLoopAndARemainderThatRunsOnceTileTheRow) {
  Blocks main = mainBlocks(), rest = blocks(3, 4, intConst(14));  // [0, 12) and [12, 14)
  EXPECT_TRUE(analysis::iterationsDisjoint(rest.group().loops, rest.group().accesses));
  EXPECT_TRUE(analysis::groupsTileBox({main.group(), rest.group()}, row(14), {14}));
}

TEST(Coverage, ARemainderThatStopsShortLeavesTheRowUncovered) {
  Blocks main = mainBlocks(), rest = blocks(3, 4, intConst(13));  // element 13 untouched
  EXPECT_FALSE(analysis::groupsTileBox({main.group(), rest.group()}, row(14), {14}));
}

TEST(Coverage, ABlockLoopThatRunsTwiceIsNoConstant) {
  // [4 * t_o, 14) for t_o = 3 and 4: lengths 2 and -2, no box
  Blocks main = mainBlocks(), rest = blocks(3, 5, intConst(14));
  EXPECT_FALSE(analysis::groupsTileBox({main.group(), rest.group()}, row(14), {14}));
}
