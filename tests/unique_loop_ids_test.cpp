// Every loop of a nest has its own id after every primitive: copies made by
// unrolling keep their loop's id for the first copy and get id#k after it.
#include "ir/printer.hpp"
#include "ir/verify.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

TEST(UniqueLoopIds, UnrolledCopiesOfALoopGetTheirOwnIds) {
  auto p = compile("A = tensor([3, 4])\nB = tensor([3, 4])\nB = eq(A, [i, j] -> [i, j])\nl = build(B)\n"
                   "u = unroll(l, 1)\ncodegen(u)\n");
  std::string text = ir::toString(p, true);
  // Each loop says where it comes from: the source line, the primitive that made it and from which loop.
  EXPECT_NE(text.find("@L1.2  # line 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("@L1.2#2  # line 3, unroll of L1.2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("@L1.2#3  # line 3, unroll of L1.2\n"), std::string::npos) << text;
  EXPECT_EQ(ir::verify(p), "");
}
