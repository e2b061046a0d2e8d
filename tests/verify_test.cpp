// ir::verify: the IR's invariants (scoping, shadowing, types), checked after
// every transformation and front end. Each case below breaks one.
#include "ir/verify.hpp"

#include <gtest/gtest.h>

using namespace teml::ir;

namespace {

const std::vector<TensorDecl> kTensors = {{"x", DType::F64, {4}}, {"n", DType::I32, {4}}};

StmtP loop(const std::string& v, StmtP body) {
  return makeFor("L" + v, v, intConst(0), intConst(4), 1, LoopKind{}, std::move(body));
}

StmtP store(const std::string& t, std::vector<ExprP> idx, ExprP value) {
  return makeStore(t, std::move(idx), std::move(value), teml::SourceLoc{}, StmtTag{"S", {}, {}});
}

void expectProblem(const StmtP& nest, const std::string& fragment) {
  std::string p = verify(nest, kTensors);
  EXPECT_NE(p.find(fragment), std::string::npos) << "got: '" << p << "'";
}

}  // namespace

TEST(Verify, AWellFormedNestHasNoProblem) {
  StmtP body = makeVarDef(TensorDecl{"t", DType::F64, {}},
                          makeSeq({store("t", {}, load("x", {load("n", {var("i")}, DType::I32)}, DType::F64)),
                                   store("x", {var("i")}, load("t", {}, DType::F64))}));
  EXPECT_EQ(verify(loop("i", body), kTensors), "");
}

TEST(Verify, ScopingOfIteratorsAndTensors) {
  expectProblem(store("x", {var("i")}, floatConst(1)), "iterator 'i' is used outside a loop");
  expectProblem(loop("i", store("y", {var("i")}, floatConst(1))), "tensor 'y' is accessed outside any definition");
  StmtP defined = makeVarDef(TensorDecl{"t", DType::F64, {}}, store("t", {}, floatConst(1)));
  expectProblem(makeSeq({defined, store("t", {}, floatConst(2))}), "tensor 't' is accessed outside any definition");
}

TEST(Verify, NoShadowing) {
  StmtP inner = makeFor("L2", "i", intConst(0), intConst(4), 1, LoopKind{}, store("x", {var("i")}, floatConst(1)));
  expectProblem(loop("i", inner), "rebinds the iterator");
  expectProblem(makeVarDef(TensorDecl{"x", DType::F64, {4}}, store("x", {intConst(0)}, floatConst(1))),
                "tensor 'x' is defined again");
}

TEST(Verify, LoopIdsAreUnique) {
  expectProblem(makeSeq({loop("i", store("x", {var("i")}, floatConst(1))), loop("i", store("x", {var("i")}, floatConst(2)))}),
                "two statements have the id 'Li'");
}

TEST(Verify, TypesAndRanks) {
  expectProblem(store("x", {floatConst(1)}, floatConst(1)), "an index of 'x'");
  expectProblem(store("x", {intConst(0), intConst(1)}, floatConst(1)), "has 1 dimensions but is indexed with 2");
  expectProblem(store("x", {intConst(0)}, load("n", {intConst(0)}, DType::F64)), "typed double but the tensor holds int32");
  expectProblem(makeIf(load("x", {intConst(0)}, DType::F64), store("x", {intConst(0)}, floatConst(1)), nullptr),
                "a branch condition");
}

TEST(Verify, EveryWriteHasAnIdentityForTheDependenceAnalysis) {
  StmtP anonymous = makeStore("a", {intConst(0)}, floatConst(1), teml::SourceLoc{});
  EXPECT_NE(verify(anonymous, {{"a", DType::F64, {4}}}).find("has no identity"), std::string::npos);
}
