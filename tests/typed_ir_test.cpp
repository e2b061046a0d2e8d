// The typed IR: every expression has an element type; int and bool tensors,
// loads inside subscripts and loop bounds, branches on any condition,
// select, casts, unary intrinsics, and Python's floor division and modulo.
// Programs are built directly in IR and run by the interpreter and by
// JIT-compiled C on the same random inputs.
#include <cmath>

#include "analysis/legality.hpp"
#include "ir/printer.hpp"
#include "schedule/transforms.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::ir;
using namespace teml::testing;

namespace {

ExprP i(const std::string& name) { return var(name); }
ExprP c(int64_t v) { return intConst(v); }
ExprP f(double v) { return floatConst(v); }

StmtP loop(const std::string& v, ExprP begin, ExprP end, StmtP body) {
  return makeFor("L" + v, v, std::move(begin), std::move(end), 1, LoopKind{}, std::move(body));
}

// Statements built by hand carry tags so that the analyses see them.
StmtP store(const std::string& t, std::vector<ExprP> idx, ExprP value, const std::string& id,
            std::vector<std::string> iters) {
  std::vector<ExprP> origin;
  for (auto& n : iters) origin.push_back(var(n));
  return makeStore(t, std::move(idx), std::move(value), SourceLoc{1, 1}, StmtTag{id, iters, origin});
}

StmtP reduce(const std::string& t, std::vector<ExprP> idx, ExprP value, const std::string& id,
             std::vector<std::string> iters) {
  std::vector<ExprP> origin;
  for (auto& n : iters) origin.push_back(var(n));
  return makeReduce(ReduceOp::Add, t, std::move(idx), std::move(value), SourceLoc{1, 1}, StmtTag{id, iters, origin});
}

}  // namespace

TEST(TypedIr, ExpressionsCarryTheirTypes) {
  ExprP x = load("x", {c(0)}, DType::F32), n = load("n", {c(0)}, DType::I32);
  EXPECT_EQ(add(n, c(1))->dtype, DType::I64);
  EXPECT_EQ(mul(x, n)->dtype, DType::F32);
  EXPECT_EQ(binary(BinOp::Lt, x, f(0.5))->dtype, DType::Bool);
  EXPECT_EQ(unary(UnaryOp::Exp, n)->dtype, DType::F64);
  EXPECT_EQ(unary(UnaryOp::Sqrt, x)->dtype, DType::F32);
  EXPECT_EQ(cast(DType::I32, x)->dtype, DType::I32);
  EXPECT_EQ(cast(DType::F32, x), x) << "a cast to the type it has is the value itself";
  EXPECT_EQ(select(binary(BinOp::Gt, n, c(2)), n, x)->dtype, DType::F32);
  EXPECT_TRUE(binary(BinOp::Ne, n, c(3))->isInt());
  EXPECT_EQ(toString(select(binary(BinOp::Ge, n, c(2)), unary(UnaryOp::Neg, x), cast(DType::F32, n))),
            "select(n[0] >= 2, -x[0], float(n[0]))");
}

TEST(TypedIr, IndirectIndicesGatherAndScatter) {
  // y[k] = x[idx[k]] * 2; z[idx[k]] += y[k]: idx holds values in [0, 8).
  Program p;
  p.tensors = {{"idx", DType::I32, {12}}, {"x", DType::F64, {8}}, {"y", DType::F64, {12}}, {"z", DType::F64, {8}}};
  ExprP at = load("idx", {i("k")}, DType::I32);
  p.nests = {loop("k", c(0), c(12), store("y", {i("k")}, mul(load("x", {at}, DType::F64), f(2)), "S1", {"k"})),
             loop("k", c(0), c(12), reduce("z", {at}, load("y", {i("k")}, DType::F64), "S2", {"k"}))};
  expectJitMatchesInterpreter(p);
}

TEST(TypedIr, LoopBoundsLoadedFromATensor) {
  // CSR rows: s[r] = sum of val[j] for j in [ptr[r], ptr[r + 1]) (an empty range when ptr decreases).
  Program p;
  p.tensors = {{"ptr", DType::I64, {5}}, {"val", DType::F64, {8}}, {"s", DType::F64, {4}}};
  p.nests = {loop("r", c(0), c(4),
                  loop("j", load("ptr", {i("r")}, DType::I64), load("ptr", {add(i("r"), c(1))}, DType::I64),
                       reduce("s", {i("r")}, load("val", {i("j")}, DType::F64), "S1", {"r", "j"})))};
  expectJitMatchesInterpreter(p);
}

TEST(TypedIr, BranchesOnDataSelectAndIntrinsics) {
  Program p;
  p.tensors = {{"x", DType::F64, {16}}, {"y", DType::F64, {16}}, {"w", DType::F32, {16}}};
  ExprP x = load("x", {i("k")}, DType::F64);
  ExprP smooth = add(unary(UnaryOp::Tanh, x), add(unary(UnaryOp::Sigmoid, x), unary(UnaryOp::Sin, x)));
  ExprP rounded = add(unary(UnaryOp::Floor, mul(x, f(3))), unary(UnaryOp::Ceil, mul(x, f(3))));
  ExprP other = select(binary(BinOp::Lt, x, f(-0.5)), unary(UnaryOp::Neg, x),
                       unary(UnaryOp::Sqrt, unary(UnaryOp::Abs, x)));
  StmtP branch = makeIf(binary(BinOp::Or, binary(BinOp::Gt, x, f(0.25)), binary(BinOp::Eq, x, f(0))),
                        store("y", {i("k")}, add(unary(UnaryOp::Exp, x), smooth), "S1", {"k"}),
                        store("y", {i("k")}, add(other, unary(UnaryOp::Log, add(f(1), unary(UnaryOp::Abs, x)))), "S2",
                              {"k"}));
  ExprP single = load("w", {i("k")}, DType::F32);
  StmtP floats = store("w", {i("k")}, add(unary(UnaryOp::Cos, single), rounded), "S3", {"k"});
  p.nests = {loop("k", c(0), c(16), makeSeq({branch, floats}))};
  expectJitMatchesInterpreter(p);
}

TEST(TypedIr, FloorDivisionAndModuloRoundDownAsInPython) {
  // (n - 4) // 3 and (n - 4) % 3 for n in [0, 8): negative operands included; also on floats.
  Program p;
  p.tensors = {{"n", DType::I64, {10}},  {"q", DType::I64, {10}}, {"m", DType::I32, {10}},
               {"x", DType::F64, {10}},  {"fq", DType::F64, {10}}, {"fm", DType::F64, {10}}};
  ExprP shifted = sub(load("n", {i("k")}, DType::I64), c(4));
  ExprP x = mul(load("x", {i("k")}, DType::F64), f(5));
  p.nests = {loop("k", c(0), c(10),
                  makeSeq({store("q", {i("k")}, binary(BinOp::FloorDiv, shifted, c(3)), "S1", {"k"}),
                           store("m", {i("k")}, cast(DType::I32, binary(BinOp::Mod, shifted, c(-3))), "S2", {"k"}),
                           store("fq", {i("k")}, binary(BinOp::FloorDiv, x, f(2)), "S3", {"k"}),
                           store("fm", {i("k")}, binary(BinOp::Mod, x, f(2)), "S4", {"k"})}))};
  expectJitMatchesInterpreter(p);
  auto out = runInterpreter(p, randomInputs(p));
  for (int64_t k = 0; k < 10; ++k) {
    int64_t n = out.at("n").getInt(k) - 4;
    EXPECT_EQ(out.at("q").getInt(k), static_cast<int64_t>(std::floor(n / 3.0))) << n;
    EXPECT_EQ(out.at("m").getInt(k), n - static_cast<int64_t>(std::floor(n / -3.0)) * -3) << n;  // sign of -3
  }
}

TEST(TypedIr, CastsAndBooleanTensors) {
  Program p;
  p.tensors = {{"x", DType::F64, {9}}, {"n", DType::I32, {9}}, {"t", DType::I32, {9}}, {"b", DType::Bool, {9}}};
  ExprP n = load("n", {i("k")}, DType::I32);
  ExprP test = binary(BinOp::Or, binary(BinOp::And, binary(BinOp::Gt, n, c(3)), unary(UnaryOp::Not, binary(BinOp::Eq, n, c(5)))),
                      binary(BinOp::Eq, n, c(0)));
  p.nests = {loop("k", c(0), c(9),
                  makeSeq({store("t", {i("k")}, cast(DType::I32, mul(load("x", {i("k")}, DType::F64), f(10))), "S1", {"k"}),
                           store("b", {i("k")}, test, "S2", {"k"})}))};
  expectJitMatchesInterpreter(p);
}

namespace {
StmtP downFrom(const std::string& v, int64_t begin, int64_t end, int64_t step, StmtP body) {
  return makeFor("L" + v, v, c(begin), c(end), step, LoopKind{}, std::move(body));
}
}  // namespace

TEST(TypedIr, LoopsWithNegativeStepsCountDown) {
  // A suffix recurrence a[i] = a[i + 1] * 0.5 + x[i] (order matters) and a stride of -3.
  Program p;
  p.tensors = {{"a", DType::F64, {11}}, {"x", DType::F64, {10}}, {"y", DType::F64, {11}}};
  StmtP suffix = downFrom("i", 9, -1, -1,
                          store("a", {i("i")}, add(mul(load("a", {add(i("i"), c(1))}, DType::F64), f(0.5)),
                                                   load("x", {i("i")}, DType::F64)),
                                "S1", {"i"}));
  StmtP strided = downFrom("k", 10, 0, -3, store("y", {i("k")}, load("a", {i("k")}, DType::F64), "S2", {"k"}));
  p.nests = {suffix, strided};
  EXPECT_EQ(toString(strided), "for k in [10, 0) step -3\n  y[k] = a[k]\n");
  expectJitMatchesInterpreter(p);
}

TEST(TypedIr, DependencesFollowTheDirectionOfTheLoop) {
  // for i from 8 down to 0: for j: a[i][j + dj] = a[i + 1][j] + 1. The value read was
  // written by iteration (i + 1, j - dj), which runs before (i, j): interchanging keeps
  // that order when dj = 1 and reverses it when dj = -1.
  auto nest = [](int64_t dj) {
    ExprP j = dj > 0 ? i("j") : add(i("j"), c(1));
    StmtP s = store("a", {i("i"), add(j, c(dj))}, add(load("a", {add(i("i"), c(1)), j}, DType::F64), f(1)), "S",
                    {"i", "j"});
    return downFrom("i", 8, -1, -1, loop("j", c(0), c(5), s));
  };
  Program p;
  p.tensors = {{"a", DType::F64, {10, 7}}};
  p.nests = {nest(1)};
  expectJitMatchesInterpreter(p);
  auto keeps = analysis::checkReordering(nest(1), schedule::interchange(nest(1), 1, 2));
  EXPECT_TRUE(keeps.legal) << keeps.violation;
  EXPECT_FALSE(analysis::checkReordering(nest(-1), schedule::interchange(nest(-1), 1, 2)).legal);
}

TEST(TypedIr, RunTimeChecksGuardWhatTheyCheck) {
  // for k: assert 0 <= idx[k] < 8: y[k] = x[idx[k]]
  Program p;
  p.tensors = {{"idx", DType::I32, {6}}, {"x", DType::F64, {8}}, {"y", DType::F64, {6}}};
  ExprP at = load("idx", {i("k")}, DType::I32);
  ExprP inRange = binary(BinOp::And, binary(BinOp::Le, c(0), at), binary(BinOp::Lt, at, c(8)));
  StmtP gather = store("y", {i("k")}, load("x", {at}, DType::F64), "S1", {"k"});
  p.nests = {loop("k", c(0), c(6),
                  makeAssert(inRange, "index {} out of range [0, 8) for dimension 1 of 'x'", at, SourceLoc{4, 17}, gather))};
  expectJitMatchesInterpreter(p);

  auto inputs = randomInputs(p);
  inputs.at("idx").setInt(3, 9);
  for (bool compiled : {false, true}) {
    try {
      compiled ? runJit(p, inputs) : runInterpreter(p, inputs);
      ADD_FAILURE() << "the check did not stop the run";
    } catch (const UserError& e) {
      EXPECT_EQ(e.loc().line, 4);
      EXPECT_EQ(e.loc().col, 17);
      EXPECT_STREQ(e.what(), "index 9 out of range [0, 8) for dimension 1 of 'x'");
    }
  }
}
