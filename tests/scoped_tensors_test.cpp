// VarDef: a tensor that exists only while its body runs, zeroed each time it
// starts. Inside a loop every iteration has its own copy: the dependence
// analysis and the race analysis see no dependence through it across
// iterations, the interpreter and the generated C agree.
#include "analysis/legality.hpp"
#include "ir/printer.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::ir;
using namespace teml::testing;

namespace {

StmtP loop(const std::string& v, int64_t n, StmtP body, bool parallel = false) {
  LoopKind kind;
  kind.scope = parallel ? ParallelScope::Threads : ParallelScope::Serial;
  return makeFor("L" + v, v, intConst(0), intConst(n), 1, kind, std::move(body));
}

StmtTag tagOf(const std::string& id, const std::vector<std::string>& iters) {
  std::vector<ExprP> origin;
  for (auto& n : iters) origin.push_back(var(n));
  return StmtTag{id, iters, origin};
}

ExprP f64(const std::string& t, std::vector<ExprP> idx) { return load(t, std::move(idx), DType::F64); }

}  // namespace

TEST(ScopedTensors, EachIterationHasItsOwnZeroedCopy) {
  // for i: var t[4]: { for j: t[j] += x[i][j] * 2; for j: y[i][j] = t[3 - j] + t[j] }
  Program p;
  p.tensors = {{"x", DType::F64, {5, 4}}, {"y", DType::F64, {5, 4}}};
  StmtP fill = loop("j", 4, makeReduce(ReduceOp::Add, "t", {var("j")}, mul(f64("x", {var("i"), var("j")}), floatConst(2)),
                                       SourceLoc{2, 1}, tagOf("S1", {"i", "j"})));
  StmtP use = loop("k", 4, makeStore("y", {var("i"), var("k")},
                                     add(f64("t", {sub(intConst(3), var("k"))}), f64("t", {var("k")})), SourceLoc{3, 1},
                                     tagOf("S2", {"i", "k"})));
  p.nests = {loop("i", 5, makeVarDef(TensorDecl{"t", DType::F64, {4}}, makeSeq({fill, use})))};
  EXPECT_EQ(toString(p.nests[0]),
            "for i in [0, 5)\n"
            "  var t : double[4]\n"
            "    for j in [0, 4)\n"
            "      t[j] += x[i][j] * 2.0\n"
            "    for k in [0, 4)\n"
            "      y[i][k] = t[3 - k] + t[k]\n");
  expectJitMatchesInterpreter(p);
}

TEST(ScopedTensors, APrivateAccumulatorInAParallelLoop) {
  // parallel for i: var s: { for j: s += x[i][j]; y[i] = s }, and a large tensor on the heap.
  Program p;
  p.tensors = {{"x", DType::F64, {64, 30}}, {"y", DType::F64, {64}}};
  StmtP sum = loop("j", 30, makeReduce(ReduceOp::Add, "s", {}, f64("x", {var("i"), var("j")}), SourceLoc{2, 1},
                                       tagOf("S1", {"i", "j"})));
  StmtP keep = makeStore("big", {intConst(19999)}, f64("s", {}), SourceLoc{3, 1}, tagOf("S2", {"i"}));
  StmtP out = makeStore("y", {var("i")}, add(f64("big", {intConst(19999)}), f64("big", {intConst(0)})), SourceLoc{4, 1},
                        tagOf("S3", {"i"}));
  StmtP big = makeVarDef(TensorDecl{"big", DType::F64, {20000}}, makeSeq({keep, out}));
  p.nests = {loop("i", 64, makeVarDef(TensorDecl{"s", DType::F64, {}}, makeSeq({sum, big})), true)};
  expectJitMatchesInterpreter(p);
}

TEST(ScopedTensors, NoDependenceCrossesTheIterationsOfTheLoopsAroundADefinition) {
  // for i: for j: var t: { t = x[i][j]; y[i][j] = t * 2 } and the same with i and j swapped:
  // t is each (i, j)'s own, so the swap is legal; a t shared by all iterations would forbid it.
  auto nest = [](const std::string& outer, const std::string& inner, bool scoped) {
    StmtP body = makeSeq({makeStore("t", {}, f64("x", {var("i"), var("j")}), SourceLoc{2, 1}, tagOf("S1", {"i", "j"})),
                          makeStore("y", {var("i"), var("j")}, mul(f64("t", {}), floatConst(2)), SourceLoc{3, 1},
                                    tagOf("S2", {"i", "j"}))});
    if (scoped) body = makeVarDef(TensorDecl{"t", DType::F64, {}}, body);
    auto extent = [](const std::string& v) { return v == "i" ? 4 : 3; };
    return loop(outer, extent(outer), loop(inner, extent(inner), body));
  };
  EXPECT_TRUE(analysis::checkReordering(nest("i", "j", true), nest("j", "i", true)).legal);
  EXPECT_FALSE(analysis::checkReordering(nest("i", "j", false), nest("j", "i", false)).legal);
}
