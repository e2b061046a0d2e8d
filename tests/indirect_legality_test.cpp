// Dependences through loaded values: a load in a subscript, a loop bound or
// a branch condition is an unknown to isl, so the accesses through it may
// reach any element; two loads of one element of a tensor the nest does not
// write are one value. Reorderings that cannot be affected are accepted;
// the others are refused ("may depend"), never applied silently, and the
// analysis never throws.
#include "analysis/legality.hpp"
#include "schedule/transforms.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::ir;

namespace {

StmtP loop(const std::string& v, ExprP begin, ExprP end, StmtP body) {
  return makeFor("L" + v, v, std::move(begin), std::move(end), 1, LoopKind{}, std::move(body));
}

StmtTag tagOf(const std::string& id, const std::vector<std::string>& iters) {
  std::vector<ExprP> origin;
  for (auto& n : iters) origin.push_back(var(n));
  return StmtTag{id, iters, origin};
}

ExprP at(const std::string& t, std::vector<ExprP> idx) { return load(t, std::move(idx), DType::F64); }
ExprP index(const std::string& t, ExprP i) { return load(t, {std::move(i)}, DType::I32); }

analysis::Legality interchanged(const StmtP& nest) {
  return analysis::checkReordering(nest, schedule::interchange(nest, 1, 2));
}

}  // namespace

TEST(IndirectLegality, AGatherThroughAnIndexArrayMayBeInterchanged) {
  // b[i][j] = a[idx[i]][j]: a is only read, each b element written once.
  StmtP s = makeStore("b", {var("i"), var("j")}, at("a", {index("idx", var("i")), var("j")}), SourceLoc{3, 1},
                      tagOf("S", {"i", "j"}));
  auto l = interchanged(loop("i", intConst(0), intConst(6), loop("j", intConst(0), intConst(5), s)));
  EXPECT_TRUE(l.legal) << l.violation;
}

TEST(IndirectLegality, AScatterReductionMayBeInterchanged) {
  // y[idx[i]][j] += x[i][j]: reductions of one kind commute, wherever they land.
  StmtP s = makeReduce(ReduceOp::Add, "y", {index("idx", var("i")), var("j")}, at("x", {var("i"), var("j")}),
                       SourceLoc{3, 1}, tagOf("S", {"i", "j"}));
  auto l = interchanged(loop("i", intConst(0), intConst(6), loop("j", intConst(0), intConst(5), s)));
  EXPECT_TRUE(l.legal) << l.violation;
}

TEST(IndirectLegality, AWriteThroughAnIndexArrayThatOthersReadIsRefused) {
  // a[idx[i]][j + 1] = a[i][j] + 1: where idx points is unknown, so the order may matter.
  StmtP s = makeStore("a", {index("idx", var("i")), add(var("j"), intConst(1))},
                      add(at("a", {var("i"), var("j")}), floatConst(1)), SourceLoc{3, 1}, tagOf("S", {"i", "j"}));
  auto l = interchanged(loop("i", intConst(0), intConst(6), loop("j", intConst(0), intConst(5), s)));
  EXPECT_FALSE(l.legal);
  EXPECT_NE(l.violation.find("'a'"), std::string::npos) << l.violation;
}

TEST(IndirectLegality, LoadedLoopBoundsAndDataDependentBranchesAreAnalyzed) {
  // for r: for j in [ptr[r], ptr[r + 1]): if x[j] > 0: s[r][j - ptr[r]] = x[j]
  ExprP begin = load("ptr", {var("r")}, DType::I64), end = load("ptr", {add(var("r"), intConst(1))}, DType::I64);
  StmtP s = makeStore("s", {var("r"), sub(var("j"), begin)}, at("x", {var("j")}), SourceLoc{4, 1},
                      tagOf("S", {"r", "j"}));
  StmtP body = makeIf(binary(BinOp::Gt, at("x", {var("j")}), floatConst(0)), s, nullptr);
  StmtP nest = loop("r", intConst(0), intConst(4), loop("j", begin, end, body));
  auto same = analysis::checkReordering(nest, nest);
  EXPECT_TRUE(same.legal) << same.violation;
}

namespace {

// for i: { a[first[i]] = x[i]; a[second[i] + 1] = x[i] * 2 } with its two statements swapped.
analysis::Legality swappedWrites(const std::string& first, const std::string& second, bool firstIsWritten) {
  StmtP s1 = makeStore("a", {index(first, var("i"))}, at("x", {var("i")}), SourceLoc{2, 1}, tagOf("S1", {"i"}));
  StmtP s2 = makeStore("a", {add(index(second, var("i")), intConst(1))}, mul(at("x", {var("i")}), floatConst(2)),
                       SourceLoc{3, 1}, tagOf("S2", {"i"}));
  std::vector<StmtP> body = {s1, s2};
  if (firstIsWritten)
    body.push_back(makeStore(first, {var("i")}, intConst(0), SourceLoc{4, 1}, tagOf("S3", {"i"})));
  StmtP nest = loop("i", intConst(0), intConst(6), makeSeq(body));
  return analysis::checkReordering(nest, schedule::swap(nest, 1, 1, 2));
}

}  // namespace

TEST(IndirectLegality, TwoLoadsOfOneElementOfAnUnwrittenTensorAreEqual) {
  // In one iteration a[idx[i]] and a[idx[i] + 1] are different elements, so
  // the two writes may trade places (across iterations nothing moves).
  auto same = swappedWrites("idx", "idx", false);
  EXPECT_TRUE(same.legal) << same.violation;
  // Through two index tensors they may be one element ...
  auto two = swappedWrites("idx", "jdx", false);
  EXPECT_FALSE(two.legal);
  EXPECT_NE(two.violation.find("from the statement at line 2 to the one at line 3 on 'a'"), std::string::npos)
      << two.violation;
  // ... and so they may where the nest itself writes the index tensor.
  EXPECT_FALSE(swappedWrites("idx", "idx", true).legal);
}
