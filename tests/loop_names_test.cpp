// Levels can be named by their loops' iterators: the names follow the loops
// through transformations that renumber the levels.
#include "ir/printer.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const std::string kProduct = "A = tensor([N, N])\nB = tensor([N, N])\nC = contract(A, B, [2, 1])\n"
                             "l = build(C)\nl1 = stripmine(l, 2, 4)\n";  // i1, i2_o, i2, i3

std::string loops(const std::string& src) {
  auto p = compile(src, {{"N", 10}});
  return ir::toString(p, true);
}

}  // namespace

TEST(LoopNames, IteratorNamesAddressTheSameLevelsAsNumbers) {
  EXPECT_EQ(loops(kProduct + "l2 = interchange(l1, i2, i3)\nl3 = parallelize(l2, i2_o)\ncodegen(l3)\n"),
            loops(kProduct + "l2 = interchange(l1, 3, 4)\nl3 = parallelize(l2, 2)\ncodegen(l3)\n"));
  auto p = compile(kProduct + "l2 = interchange(l1, i2, i3)\nl3 = parallelize(l2, i2_o)\ncodegen(l3)\n", {{"N", 10}});
  expectJitMatchesInterpreter(p);
}

TEST(LoopNames, AnUnknownIteratorIsAnError) {
  auto f = compileError(kProduct + "l2 = parallelize(l1, q)\n", {{"N", 10}});
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 6);
  EXPECT_NE(f.message.find("no loop over 'q' among the nest's levels (i1, i2_o, i2, i3)"), std::string::npos) << f.message;
}

// The copies an unroll-and-jam leaves (its remainder) share the iterator of
// the loop that kept its place; a quoted id, as listings print it, names them.
TEST(LoopNames, AQuotedIdNamesALoopsCopy) {
  const std::string jammed = kProduct + "l2 = unroll_and_jam(l1, i1, 3)\n";  // 10 rows: 3 blocks of 3, one left
  auto p = compile(jammed + "l3 = vectorize(l2, i3)\nl4 = vectorize(l3, \"L1.3#2\")\ncodegen(l4)\n", {{"N", 10}});
  std::string listing = ir::toString(p, true);
  EXPECT_NE(listing.find("vector  @L1.3#2"), std::string::npos) << listing;
  expectJitMatchesInterpreter(p);
  auto f = compileError(jammed + "l3 = vectorize(l2, \"L9\")\n", {{"N", 10}});
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 7);
  EXPECT_NE(f.message.find("no loop 'L9' in this nest"), std::string::npos) << f.message;
}
