// Every statement of a nest has its own id after every primitive: copies
// made by unrolling keep the id of what they copy for the first copy and get
// id#k after it, with the primitive and the statement they come from.
#include <set>

#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "ir/mutator.hpp"
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

TEST(UniqueStatementIds, CopiesOfAStatementSayWhatTheyWereMadeFrom) {
  auto p = compile("A = tensor([3, 4])\nB = tensor([3, 4])\nB = eq(A, [i, j] -> [i, j])\nl = build(B)\n"
                   "u = unroll(l, 1)\ncodegen(u)\n");
  std::string text = ir::toString(p, true);
  // The store is the TeML statement S1 of line 3; unrolling copied it twice.
  EXPECT_NE(text.find("B[0][j] = A[0][j]  @S1  # line 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("B[1][j] = A[1][j]  @S1#2  (unroll of S1)  # line 3\n"), std::string::npos) << text;
}

TEST(UniqueStatementIds, EveryStatementOfALoweredProgramHasAnIdOfItsOwn) {
  // Branches, scoped tensors, assertions and the lowering stage's own
  // statements (accumulators and their copies) included.
  ir::Program p = pipeline::compileFreeform(R"(import teml

@teml.transform
def f(x: teml.Var[(8, 6), "float64"], idx: teml.Var[(8,), "int32"], y: teml.Var[(6,), "float64", "output"]):
    #! label: Lk
    for k in range(8):
        t = teml.zeros((6,), "float64")
        for j in range(6):
            if x[idx[k], j] > 0:
                t[j] = x[k, j]
        for j in range(6):
            y[j] += t[j]

@teml.schedule(f)
def sched(s):
    s.parallelize("Lk")
)", {}).program;
  for (const ir::Program& q : {p, lowering::lower(p, driver::machineTarget())})
    for (auto& nest : q.nests) {
      std::set<std::string> ids;
      int statements = 0;
      ir::forEachStmt(nest, [&](const ir::StmtP& s) {
        EXPECT_FALSE(s->id.empty()) << ir::toString(s, true);
        ids.insert(s->id);
        ++statements;
      });
      EXPECT_EQ(static_cast<int>(ids.size()), statements) << ir::toString(q, true);
    }
}
