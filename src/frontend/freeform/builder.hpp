// Building a free-form program as the loop IR: name resolution, partial
// evaluation on compile-time facts, inlining of every call, shape and type
// checks, and run-time index checks. One Builder per compilation.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/freeform/ast.hpp"
#include "frontend/freeform/freeform.hpp"
#include "frontend/freeform/value.hpp"
#include "ir/stmt.hpp"

namespace teml::freeform {

// Names a function body assigns more than once (or updates): a number
// assigned to one of them is a 0-d tensor, not a compile-time constant.
std::set<std::string> assignedAgain(const std::vector<NodeP>& body);

class Builder {
 public:
  Builder(const NodeP& module, const FreeformOptions& options);
  FreeformProgram run();

 private:
  // ---- module (module.cpp)
  void readModule();
  void importNames(const NodeP& import);
  bool isDecorator(const NodeP& d, const std::string& name) const;
  const Node& chooseEntry() const;
  void declareParameters(const Node& entry);
  std::vector<int64_t> shapeOf(const NodeP& shapeNode, const std::string& param);
  void bindSizes(const Node& entry);
  std::optional<int64_t> solveSize(const NodeP& e, const std::string& size, int64_t dim);
  void readSchedules(const std::string& entry, FreeformProgram* out);  // schedule_script.cpp

  // ---- statements (build_stmt.cpp)
  std::vector<ir::StmtP> block(const std::vector<NodeP>& stmts);  // a scope of its own
  std::vector<ir::StmtP> statements(const std::vector<NodeP>& stmts);
  std::vector<ir::StmtP> statement(const NodeP& s);
  std::vector<ir::StmtP> forLoop(const Node& s);
  std::vector<ir::StmtP> ifStmt(const Node& s);
  std::vector<ir::StmtP> assign(const Node& s);
  std::vector<ir::StmtP> augAssign(const Node& s);
  std::vector<ir::StmtP> assertStmt(const Node& s);
  // ---- what the entry returns (returned_tensors.cpp): output parameters
  struct Returned {
    std::string name;    // the caller's name for it (the variable, or the dict's key)
    std::string tensor;  // the tensor of the IR that holds it
    SourceLoc loc;
  };
  std::vector<ir::StmtP> entryReturn(const Node& s);
  ir::StmtP returnedAsOutputs(ir::StmtP body);
  std::vector<Returned> returned_;
  std::string returnForm_;
  // ---- `y[()] = f(...)` into an output (copies_into_outputs.cpp): where f's
  // result is a tensor the call made, it becomes the output itself.
  struct CopyIntoOutput {
    std::string made, output;
    ir::StmtP copy;  // the copy's loops, as assign made them
  };
  void noteCopyIntoOutput(const Node& s, const TensorValue& target, const Value& v, size_t madeBefore,
                          const std::vector<ir::StmtP>& stmts);
  ir::StmtP elideCopiesIntoOutputs(ir::StmtP body);
  std::vector<CopyIntoOutput> copiesIntoOutputs_;
  std::map<std::string, size_t> madeAt_;  // tensor -> how many tensors were defined before it
  // A new tensor of the innermost scope, named after `name`.
  TensorP defineTensor(const std::string& name, const std::vector<int64_t>& shape, ir::DType dtype, SourceLoc loc,
                       ir::MemKind mem = ir::MemKind::Auto);
  // Stores (or reduces, op set) `value` into every element of `target`, broadcasting.
  std::vector<ir::StmtP> storeInto(const TensorValue& target, const Value& value, std::optional<ir::ReduceOp> op,
                                   bool divide, SourceLoc loc);

  // ---- expressions (build_expr.cpp)
  Value eval(const NodeP& e);
  Value lookup(const Node& name);
  Value binaryOp(const std::string& op, const Value& a, const Value& b, SourceLoc loc);
  Value unaryOp(const std::string& op, const Value& a, SourceLoc loc);
  Value compare(const Node& e);
  Value boolOp(const Node& e);
  Value ifExp(const Node& e);
  Value call(const Node& e);
  Value builtin(const std::string& name, const Node& call, const std::vector<Value>& args);
  Value attribute(const Node& e);
  Value subscript(const Node& e);
  // `libop`: fn is one of teml.libop's functions (names resolve in libop.py).
  Value inlineCall(const Node& fn, const Node& call, const std::vector<Value>& args, bool libop, uint64_t closure = 0);
  Value inlineCall(const Node& fn, const Node& call, const std::vector<Value>& args, bool libop, uint64_t closure, bool);
  // A frame's names seen from a function defined inside it.
  std::optional<Value> closureLookup(uint64_t closure, const std::string& name);
  // The view `base[indices]` (a Scalar load when every dimension is fixed).
  Value index(const Value& base, const std::vector<NodeP>& indices, SourceLoc loc, bool forWrite);
  ir::ExprP toExpr(const Value& v, SourceLoc loc, const char* what);  // a scalar (numbers as constants)
  int64_t constInt(const NodeP& e, const char* what);

  // ---- element-wise values (elementwise.cpp)
  TensorP asTensor(const Value& v, SourceLoc loc);  // scalars and numbers as 0-d tensors
  Value elementwise(const std::vector<Value>& operands, ir::DType dtype, SourceLoc loc,
                    const std::function<ir::ExprP(const std::vector<ir::ExprP>&)>& f);
  std::vector<int64_t> broadcastShape(const std::vector<std::vector<int64_t>>& shapes, SourceLoc loc);
  // The type of an arithmetic result: Python numbers take the other operand's type.
  ir::DType resultType(const Value& a, const Value& b) const;
  ir::ExprP constantOf(const Value& number, ir::DType dtype) const;

  // ---- index checks (index_checks.cpp)
  // The index, checked against [0, extent): a compile error when it provably
  // leaves the range, a run-time check when data decide it.
  ir::ExprP checkedIndex(ir::ExprP index, int64_t extent, const std::string& tensor, size_t dim, SourceLoc loc);
  // The least and greatest value of an integer expression over the ranges of
  // the loops around; none where they are not known.
  std::optional<std::pair<int64_t, int64_t>> valuesOf(const ir::ExprP& e) const;
  std::vector<ir::StmtP> withChecks(std::vector<ir::StmtP> stmts);  // wraps in the pending checks

  // ---- names
  std::string freshName(const std::string& base);
  bool defined(const std::string& name) const;  // in the current function's scopes

  struct Scope {
    std::map<std::string, Value> names;
    std::vector<std::pair<ir::TensorDecl, SourceLoc>> tensors;  // defined here (and where): VarDefs around the scope's statements
  };
  struct Frame {
    std::string function;
    size_t firstScope;
    std::optional<Value> returned;
    bool libop = false;
    std::set<std::string> mutated;  // names the function assigns more than once
    uint64_t serial = 0;            // this call, for the functions defined in it
    uint64_t closure = 0;           // the call whose names a function defined inside another sees
  };
  struct Check {
    ir::ExprP cond, shown;
    std::string message;
    SourceLoc loc;
  };
  static void addCheck(std::vector<Check>& checks, Check c);  // unless an earlier one tests the same
  struct IterRange {
    std::string var;
    // Inclusive, when the bounds are constants or move with loops around
    // whose ranges are known (then `exact` is false: an end may not be reached).
    std::optional<std::pair<int64_t, int64_t>> range;
    bool exact = true;
    // A loop with a unit step whose bounds data decide: an index that is the
    // iterator itself is checked once, on the bounds, before the loop.
    ir::ExprP begin, end;
    int branches = 0;           // run-time branches around the loop
    std::vector<Check> onBounds;
  };

  NodeP module_;
  FreeformOptions options_;
  std::map<std::string, const Node*> functions_;
  NodeP libopModule_;                          // libop.py, parsed
  std::map<std::string, const Node*> libop_;   // its functions
  std::map<std::string, Value> globals_;
  // Module-level names teml does not compute (another module, a value only
  // Python computes): what each is, for an error where a transform uses it.
  std::map<std::string, std::string> foreign_;
  std::map<std::string, std::shared_ptr<const UserError>> unreadFunctions_;  // outside the subset: why
  std::map<std::string, SourceLoc> constantAt_;  // where each module-level number is assigned
  std::map<std::string, int64_t> inputSizes_;   // sizes read from the inputs' shapes (FreeformProgram::inputSizes)
  std::string foreignUse_;                       // the foreign name lookup last refused
  void setForeign(const std::string& name, const std::string& what);
  void moduleAssignment(const Node& s);
  std::map<std::string, Access> access_;
  ir::Program program_;
  std::vector<Scope> scopes_;
  std::vector<Frame> frames_;
  uint64_t framesMade_ = 0;
  uint64_t pushFrame(Frame f);  // numbered (Frame::serial)
  std::vector<IterRange> iterators_;
  // What the conditions of the enclosing run-time branches say about integer
  // expressions (`0 <= j + k < n`): the range each takes there.
  struct Fact {
    ir::ExprP expr;
    int64_t lo, hi;
  };
  std::vector<Fact> facts_;
  void collectFacts(const ir::ExprP& cond);
  std::vector<Check> checks_;      // index checks not yet placed (withChecks)
  std::vector<ir::StmtP> prelude_;  // statements of inlined calls, before the statement calling them
  std::set<std::string> names_;  // tensor and iterator names of the IR
  int runtimeBranches_ = 0;      // inside an if decided at run time
  std::string statementLabel_;   // the label of the assignment being lowered
  int statementCount_ = 0;  // ids of the stores made so far

  friend struct IntervalOf;
};

}  // namespace teml::freeform
