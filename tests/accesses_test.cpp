// ir::accessesOf, the one answer to "what does this statement read and
// write": loads in values, in subscripts, in loop bounds and conditions, each
// with the statement it belongs to; and the dependence analysis that uses it.
#include "analysis/legality.hpp"
#include "ir/accesses.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::ir;

namespace {

StmtTag tagOf(const std::string& id, const std::vector<std::string>& iters) {
  std::vector<ExprP> origin;
  for (auto& n : iters) origin.push_back(var(n));
  return StmtTag{id, iters, origin};
}

std::string describe(const std::vector<Access>& accesses) {
  std::string out;
  for (auto& a : accesses)
    out += std::string(a.kind == AccessKind::Read ? "read " : a.kind == AccessKind::Store ? "store " : "reduce ") +
           a.tensor + (a.inControl ? " (control)" : "") + "; ";
  return out;
}

}  // namespace

TEST(Accesses, EveryReadAndWriteInProgramOrder) {
  // for j in [ptr[0], ptr[1]): if c[j] > 0: y[idx[j]] += x[j]
  ExprP j = var("j");
  StmtP update = makeReduce(ReduceOp::Add, "y", {load("idx", {j}, DType::I32)}, load("x", {j}, DType::F64), SourceLoc{});
  StmtP nest = makeFor("L", "j", load("ptr", {intConst(0)}, DType::I64), load("ptr", {intConst(1)}, DType::I64), 1,
                       LoopKind{}, makeIf(binary(BinOp::Gt, load("c", {j}, DType::F64), floatConst(0)), update, nullptr));
  EXPECT_EQ(describe(accessesOf(nest)),
            "read ptr (control); read ptr (control); read c (control); read idx; read x; reduce y; ");
  AccessOptions direct;
  direct.control = false;
  direct.loadsInSubscripts = false;
  EXPECT_EQ(describe(accessesOf(nest, direct)), "read x; reduce y; ");
}

TEST(Accesses, AStatementDependsOnTheLoopBoundsItRunsUnder) {
  // S1: n[0] = 3, then S2: for j in [0, n[0]): y[j] = 1. Running S2 first
  // would use the old n[0]: the dependence goes through the loop bound.
  StmtP s1 = makeStore("n", {intConst(0)}, intConst(3), SourceLoc{1, 1}, tagOf("S1", {}));
  StmtP s2 = makeFor("L", "j", intConst(0), load("n", {intConst(0)}, DType::I64), 1, LoopKind{},
                     makeStore("y", {var("j")}, floatConst(1), SourceLoc{2, 1}, tagOf("S2", {"j"})));
  auto l = analysis::checkReordering(makeSeq({s1, s2}), makeSeq({s2, s1}));
  EXPECT_FALSE(l.legal);
  EXPECT_NE(l.violation.find("'n'"), std::string::npos) << l.violation;
}
