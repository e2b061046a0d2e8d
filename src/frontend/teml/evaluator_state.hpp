// The TeML evaluator's state and its methods, shared by the files that
// implement them: evaluator.cpp (the program and its statements),
// tensor_expressions.cpp (tensor expressions and assignments) and
// loop_steps.cpp (build and the loop transformations, translated to
// schedule::Schedule calls). Internal to the TeML front end.
#pragma once
#include <algorithm>
#include <memory>
#include <set>

#include "analysis/affine.hpp"
#include "frontend/teml/ast.hpp"
#include "frontend/teml/evaluator.hpp"
#include "frontend/teml/replacements.hpp"
#include "frontend/teml/tensor_value.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "ir/verify.hpp"
#include "lower/assignment.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"
#include "types/teil_types.hpp"

namespace teml::teml_lang {

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
  std::shared_ptr<const lower::Assignment> assign;  // Assignment
  StmtP loop;                                       // Loop
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
  explicit Evaluator(const TemlOptions& o)
      : options_(o), schedule_(program_, schedule::ScheduleOptions{o.checkLegality, o.analysisCacheDir, o.inputs}) {}

  ir::Program run(const Script& script) {
    for (auto& st : script.statements)
      if (st.kind == Statement::Kind::Codegen) lastCodegen_ = &st;
    for (auto& st : script.statements) exec(st);
    checkReplacements(replacements_, program_);
    // A virtually transposed tensor lives on only as its transposition, which
    // takes its place in the list (inputs keep their order, and with it the
    // values --random gives them).
    auto& ts = program_.tensors;
    for (auto& r : replacements_) {
      auto at = [&](const std::string& n) {
        return std::find_if(ts.begin(), ts.end(), [&](const ir::TensorDecl& t) { return t.name == n; });
      };
      if (!r.isVirtual || at(r.old) == ts.end()) continue;
      *at(r.old) = *at(r.replacement);
      ts.erase(std::find_if(at(r.replacement) + 1, ts.end(),
                            [&](const ir::TensorDecl& t) { return t.name == r.replacement; }));
      program_.initialValues.erase(r.old);
    }
    // Local tensors live in their loops, not in the program's buffers.
    auto locals = schedule_.localTensors();
    std::erase_if(program_.tensors, [&](const ir::TensorDecl& t) { return locals.count(t.name) > 0; });
    for (auto& name : locals) program_.initialValues.erase(name);
    return std::move(program_);
  }
  TemlStats stats() const {
    TemlStats s = autoStats_;
    s.analysisSeconds = schedule_.stats().analysisSeconds;
    s.checks = schedule_.stats().checks;
    return s;
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

  std::shared_ptr<lower::Assignment> assignment(const std::string& target, std::vector<ExprP> targetIdx,
                                                const Virtual& v, SourceLoc loc,
                                                std::optional<ir::ReduceOp> accumulate = std::nullopt);

  // Every access stays inside its tensor for all iterator values.
  void checkBounds(const lower::Assignment& a, SourceLoc loc);

  // Implicit iterators get readable names: i<level>, avoiding the program's own.
  static void renameFreshIterators(lower::Assignment& a);

  std::vector<ExprP> dimVars(const Virtual& v);

  // ---------------------------------------------------------------- loops
  StmtP loopArg(const NodeP& n, const std::string& what);

  void arity(const Call& c, size_t lo, size_t hi, const std::string& usage);

  StmtP loopExpr(const Call& c);

  // A declared tensor named directly, or by an assignment to it (TeML rebinds
  // a tensor's name to its assignment).
  std::string tensorArg(const NodeP& n, const std::string& what);

  // A tensor as tensorArg, or the name of a cache's copy (t_cache), which no
  // statement defines.
  std::string localTensorArg(const NodeP& n, const std::string& what);

  ir::ThreadSchedule threadSchedule(const NodeP& n);

  // The `new` of replace_array: a vtranspose of `old` (virtual: from here on a
  // tensor of its own, with the permuted shape, that takes over old's
  // elements) or a transpose assignment of it (a physical copy).
  Replacement transposition(const NodeP& n, const std::string& old, SourceLoc loc, std::vector<int>* sigma);

  // Between the replace_array steps that move a tensor to its virtual
  // transposition, one nest must not hold both: their accesses name the same
  // elements under two names, which the dependence analysis would not relate.
  void refuseHalfReplaced(SourceLoc loc, const std::string& what, const StmtP& nest);

  StmtP build(const lower::Assignment& a);

  // A loop level: a number, or the name of the iterator of a loop in the
  // perfect nest of the loop argument (which survives transformations that
  // renumber levels: the inner loop of a strip-mined pair keeps its name).
  int level(const NodeP& n, const std::string& what);
  // The id of the loop at the level `n` names in `nest` (TeML names loops by level).
  std::string loopAt(const StmtP& nest, const NodeP& n, const std::string& what);

  // A dimension or level given by number (from 1).
  int dimension(const NodeP& n, const std::string& what);

  // ---------------------------------------------------------------- statements
  void exec(const Statement& st);

  void codegen(const Statement& st);
  // The automatic schedule of `nest`, its steps kept for -v as TeML, the
  // last value named `result` ("": handed to codegen; temlLines).
  StmtP autoSchedule(const StmtP& nest, const std::string& name, const std::string& result);
  // --auto on the program's last codegen list when no transformation touched
  // its nests: fused with local intermediates where they fuse
  // (autoschedule/auto_fuse.hpp), else each nest scheduled alone.
  std::vector<StmtP> autoScheduleList(const std::vector<StmtP>& nests, const std::vector<std::string>& names);

  void init(const Statement& st);

  void declare(const Statement& st);

  static bool isArith(const std::string& f, const std::string& prefix, std::string* op);

  void assign(const Statement& st);

  TemlOptions options_;
  ir::Program program_;
  schedule::Schedule schedule_;  // every loop transformation goes through it (after program_: it reads it)
  TemlStats autoStats_;          // what --auto chose
  const Statement* lastCodegen_ = nullptr;  // after it no nest reads a tensor: intermediates may become local
  std::string assigningTo_;      // the name the loop expression being evaluated is given
  std::map<std::string, MetaValue> state_;
  int freshCounter_ = 0;
  int nestCounter_ = 0;
  StmtP currentNest_;
  std::vector<Replacement> replacements_;  // replace_array steps, checked over the whole program
};

}  // namespace teml::teml_lang
