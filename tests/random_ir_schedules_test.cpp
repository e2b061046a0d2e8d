// Random programs built directly in IR — indirect indices, data-dependent
// branches and loop bounds, select, casts, int and float32 tensors, scoped
// tensors, loops counting down — and random sequences of schedule primitives
// applied through schedule::Schedule. Every sequence it accepts must compute
// what the untransformed program computes (reference interpreter on both;
// every eighth also compiled and run on two threads). TEML_RANDOM_SEQUENCES
// and TEML_RANDOM_SEED as in random_schedules_test.cpp.
#include <iostream>
#include <random>

#include "ir/printer.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/loop_target.hpp"
#include "schedule/schedule.hpp"
#include "random_steps.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::ir;
using namespace teml::testing;

namespace {

constexpr int64_t kN = 6, kM = 5;

ExprP v(const std::string& n) { return var(n); }
ExprP c(int64_t k) { return intConst(k); }
ExprP f(double k) { return floatConst(k); }
ExprP x(ExprP a, ExprP b) { return load("x", {std::move(a), std::move(b)}, DType::F64); }
ExprP y(ExprP a, ExprP b) { return load("y", {std::move(a), std::move(b)}, DType::F64); }

StmtTag tag(const std::string& id) { return StmtTag{id, {"i", "j"}, {v("i"), v("j")}}; }
StmtP store(const std::string& t, std::vector<ExprP> idx, ExprP value, const std::string& id) {
  return makeStore(t, std::move(idx), std::move(value), SourceLoc{1, 1}, tag(id));
}

// One statement of the innermost body, over iterators i and j.
StmtP statement(int kind, const std::string& id) {
  ExprP i = v("i"), j = v("j");
  switch (kind) {
    case 0: return store("y", {i, j}, mul(x(load("idx", {i}, DType::I32), j), f(2)), id);  // gather
    case 1:  // scatter: reductions commute, wherever they land
      return makeReduce(ReduceOp::Add, "y", {load("idx", {j}, DType::I32), i}, x(i, j), SourceLoc{1, 1}, tag(id));
    case 2:  // a branch on data, a select
      return makeIf(binary(BinOp::Gt, x(i, j), f(0)),
                    store("y", {i, j}, select(binary(BinOp::Lt, x(j, i), f(0.5)), x(i, j), unary(UnaryOp::Neg, x(i, j))), id),
                    store("y", {i, j}, unary(UnaryOp::Exp, x(i, j)), id + "e"));
    case 3: return store("y", {add(i, c(1)), j}, add(y(i, j), x(i, j)), id);  // carried along i
    case 4: return store("y", {i, add(j, c(1))}, add(mul(y(i, j), f(0.5)), f(1)), id);  // carried along j
    case 5: {  // a scoped tensor
      StmtP body = makeSeq({store("t", {}, mul(x(i, j), x(j, i)), id), store("y", {i, j}, add(load("t", {}, DType::F64), f(1)), id + "t")});
      return makeVarDef(TensorDecl{"t", DType::F64, {}}, body);
    }
    case 6: return store("n", {i, j}, binary(BinOp::Mod, cast(DType::I32, mul(x(i, j), f(10))), c(7)), id);
    case 7: return store("w", {i, j}, cast(DType::F32, unary(UnaryOp::Tanh, x(i, j))), id);
    default: return store("y", {i, j}, add(y(i, j), x(load("ptr", {j}, DType::I64), i)), id);  // read-modify-write
  }
}

Program randomProgram(std::mt19937& rng) {
  Program p;
  p.tensors = {{"idx", DType::I32, {8}}, {"ptr", DType::I64, {8}}, {"x", DType::F64, {8, 8}},
               {"y", DType::F64, {9, 9}}, {"n", DType::I32, {8, 8}},   {"w", DType::F32, {8, 8}}};
  std::vector<StmtP> body;
  int count = 1 + static_cast<int>(rng() % 3);
  for (int k = 0; k < count; ++k) body.push_back(statement(static_cast<int>(rng() % 9), "S" + std::to_string(k)));
  StmtP inner;
  switch (rng() % 6) {
    case 0:  // j counts down
      inner = makeFor("Lj", "j", c(kM - 1), c(-1), -1, LoopKind{}, makeSeq(body));
      break;
    case 1:  // j's range comes from data
      inner = makeFor("Lj", "j", c(0), min(load("ptr", {v("i")}, DType::I64), c(kM)), 1, LoopKind{}, makeSeq(body));
      break;
    default: inner = makeFor("Lj", "j", c(0), c(kM), 1, LoopKind{}, makeSeq(body));
  }
  p.nests = {makeFor("Li", "i", c(0), c(kN), 1, LoopKind{}, inner)};
  return p;
}

}  // namespace

TEST(RandomIrSchedules, AcceptedSequencesPreserveResults) {
  const char* seed = std::getenv("TEML_RANDOM_SEED");
  std::mt19937 rng(seed ? static_cast<unsigned>(std::atoi(seed)) : 2027u);
  RandomCounts counts;
  const int total = randomSequenceCount(400);
  for (int n = 0; n < total; ++n) {
    Program original = randomProgram(rng);
    ASSERT_EQ(verify(original), "") << toString(original, false);
    checkRandomSequence(rng, original, n, n % 8 == 0, 1e-6, counts);
  }
  std::cout << total << " random IR programs: " << counts.accepted << " steps accepted, " << counts.refused
            << " refused, " << counts.compiled << " programs compiled, " << counts.threaded
            << " parallel ones run on 2, 4 and 8 threads\n";
  EXPECT_GT(counts.threaded, 0);
  EXPECT_GT(counts.accepted, 0);
  EXPECT_GT(counts.refused, 0);
}
