// The TeML evaluator's state and its methods, shared by the files that
// implement them: evaluator.cpp (the program and its statements),
// tensor_expressions.cpp (tensor expressions and assignments) and
// loop_steps.cpp (build, and the loop transformations recorded as steps for
// the schedule stage). Internal to the TeML front end.
#pragma once
#include <algorithm>
#include <memory>
#include <set>

#include "ir/affine.hpp"
#include "frontend/teml/ast.hpp"
#include "frontend/teml/evaluator.hpp"
#include "frontend/teml/replacements.hpp"
#include "frontend/teml/tensor_value.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "ir/verify.hpp"
#include "frontend/assignment.hpp"
#include "types/teil_types.hpp"

namespace teml::teml_lang {

using ir::StepArg;
using ir::UserStep;
using ir::ExprP;
using ir::StmtP;
using Kind = Node::Kind;

inline std::string shapeText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

inline std::string accessText(const std::string& t, const std::vector<ExprP>& idx) {
  std::string s = t;
  for (auto& i : idx) s += "[" + ir::toString(i) + "]";
  return s;
}

struct MetaValue {
  enum class Type { Tensor, Expr, Assignment, Loop } type;
  std::string tensor;                               // Tensor
  Virtual expr;                                     // Expr
  std::shared_ptr<const frontend::Assignment> assign;  // Assignment
  StmtP loop;                                       // Loop: null (the schedule stage makes it)
};

inline const char* typeWord(MetaValue::Type t) {
  switch (t) {
    case MetaValue::Type::Tensor:
      return "a tensor";
    case MetaValue::Type::Expr:
      return "a tensor expression";
    case MetaValue::Type::Assignment:
      return "an assignment";
    case MetaValue::Type::Loop:
      return "a loop nest";
  }
  return "?";
}

// Where an iterator indexes a dimension on its own, and that dimension's extent.
struct PlainUse {
  int64_t extent;
  std::string tensor;
  size_t dim;
};

class Evaluator {
 public:
  explicit Evaluator(const TemlOptions& o) : options_(o) {}

  TemlProgram run(const Script& script) {
    for (auto& st : script.statements) exec(st);
    return TemlProgram{std::move(program_), std::move(schedule_)};
  }

 private:
  // ---------------------------------------------------------------- helpers
  [[noreturn]] void fail(SourceLoc loc, const std::string& msg) { throw UserError(loc, msg); }

  const ir::TensorDecl* decl(const std::string& name) const { return program_.find(name); }

  std::string fresh() { return "%" + std::to_string(++freshCounter_); }

  const MetaValue& lookup(const NodeP& n, const std::string& what);

  int64_t intArg(const NodeP& n, const std::string& what);

  // Size expressions: integers, size parameters and + - *.
  int64_t sizeValue(const NodeP& n);

  // Index expressions of iterator lists: iterators, integers, + - and products with a constant.
  ExprP indexExpr(const NodeP& n);

  std::vector<ExprP> iteratorList(const NodeP& n);

  // Iterators of `body` in order of first appearance, except `skip`.
  static std::vector<std::string> iteratorsOf(const ExprP& body, const std::vector<std::string>& skip);

  // Records plain uses of iterators in loads of `e`; refuses disagreeing extents.
  void plainUses(const ExprP& e, std::map<std::string, PlainUse>& uses, SourceLoc loc);

  void notePlainUses(const std::string& tensor, const std::vector<ExprP>& idx, std::map<std::string, PlainUse>& uses,
                     SourceLoc loc);

  static std::string iterName(const std::string& v);

  // ---------------------------------------------------------------- tensor expressions
  // The value `id` names, as a tensor expression. Reductions are renamed so
  // that two uses of one vcontract sum independently.
  Virtual operand(const NodeP& n, const std::string& what);

  Virtual tensorOperand(const std::string& name);

  std::vector<int64_t> shapeOf(const Virtual& v, SourceLoc loc, const std::string& what);

  // v indexed by `list` (null or Empty: keep its own iterators).
  Virtual indexed(Virtual v, const NodeP& list, SourceLoc loc, const std::string& what);

  Virtual combine(ir::BinOp op, const Virtual& a, const Virtual& b, SourceLoc loc, const std::string& what);

  static ir::BinOp arith(const std::string& op);

  // vop(t0, t1, [I0, I1])
  Virtual vop(const Call& c, const std::string& op, const NodeP& lists);

  Virtual entrywise(const Call& c, const std::string& op);

  // TeML's shape inference must agree with TeIL's typing rules (types/): the
  // same operation written in TeIL over operands of the same shapes gets the
  // same shape, or it is refused by the rule it breaks.
  types::TExprP teilVar(const std::string& name, const std::vector<int64_t>& shape, types::Context& ctx);
  types::TExprP teilOp(types::TOp op, std::vector<int64_t> ints, std::vector<types::TExprP> kids);
  void agreeWithTeil(const types::TExprP& e, const types::Context& ctx, const Virtual& result, const Call& c);

  // [[r1, r2], ...] or [r1, r2]: pairs of 1-based positions.
  std::vector<std::pair<int64_t, int64_t>> pairs(const NodeP& n, const std::string& what);

  // Fresh iterators for every dimension of v.
  Virtual instantiate(const Virtual& v, std::vector<std::string>& iters);

  Virtual vtranspose(const Call& c);

  Virtual vcontract(const Call& c);

  Virtual vouterproduct(const Call& c);

  // ---------------------------------------------------------------- assignments
  // target[targetIdx] = v (an accumulation when v reads the target at the same
  // element first, or when v holds contractions: the target accumulates as in
  // the paper's definition of contract).
  // Is `first` (indexed by lists[0]) the target element itself?
  bool accumulatesInto(const std::string& target, const NodeP& first, const NodeP& lists,
                       const std::vector<ExprP>& targetIdx);

  std::shared_ptr<frontend::Assignment> assignment(const std::string& target, std::vector<ExprP> targetIdx,
                                                const Virtual& v, SourceLoc loc,
                                                std::optional<ir::ReduceOp> accumulate = std::nullopt);

  // Every access stays inside its tensor for all iterator values.
  void checkBounds(const frontend::Assignment& a, SourceLoc loc);

  // Implicit iterators get readable names: i<level>, avoiding the program's own.
  static void renameFreshIterators(frontend::Assignment& a);

  std::vector<ExprP> dimVars(const Virtual& v);

  // ---------------------------------------------------------------- loops
  void arity(const Call& c, size_t lo, size_t hi, const std::string& usage);

  // A loop expression `target = f(...)`, recorded as a step of the user's
  // schedule (build: with the nest it builds).
  void loopStep(const Statement& st);

  // An argument of a loop expression, with what the front end knows resolved:
  // size parameters to numbers, tensors and assignments to their tensors.
  ir::StepArg argument(const NodeP& n);

  // A declared tensor named directly, or by an assignment to it (TeML rebinds
  // a tensor's name to its assignment).
  std::string tensorArg(const NodeP& n, const std::string& what);

  // The `new` of replace_array: a vtranspose of `old` (virtual: from here on a
  // tensor of its own, with the permuted shape, that takes over old's
  // elements) or a transpose assignment of it (a physical copy).
  Replacement transposition(const NodeP& n, const std::string& old, SourceLoc loc, std::vector<int>* sigma);

  StmtP build(const frontend::Assignment& a);

  // A step that builds `a` into the loop value `name`.
  void buildStep(const frontend::Assignment& a, const std::string& name, SourceLoc loc);

  // ---------------------------------------------------------------- statements
  void exec(const Statement& st);

  void codegen(const Statement& st);

  void init(const Statement& st);

  void declare(const Statement& st);

  static bool isArith(const std::string& f, const std::string& prefix, std::string* op);

  void assign(const Statement& st);

  TemlOptions options_;
  ir::Program program_;
  ir::UserSchedule schedule_;  // builds, loop transformations and codegens, in order
  std::map<std::string, MetaValue> state_;
  int freshCounter_ = 0;
  int nestCounter_ = 0;
  int hiddenCounter_ = 0;
  std::vector<Replacement> replacements_;  // replace_array steps so far
};

}  // namespace teml::teml_lang
