// Statements: loops, branches (decided at compile time when their condition
// is known), assignments that define, write and reduce into tensors, and
// run-time assertions. Each block is a scope: the tensors it defines are
// VarDefs around its statements.
#include <cmath>
#include <functional>

#include "frontend/freeform/builder.hpp"

namespace teml::freeform {

using namespace ir;

namespace {
[[noreturn]] void fail(SourceLoc loc, const std::string& m) { throw UserError(loc, m); }
}  // namespace

std::string Builder::freshName(const std::string& base) {
  std::string n = base;
  for (int k = 2; names_.count(n); ++k) n = base + "_" + std::to_string(k);
  names_.insert(n);
  return n;
}

std::set<std::string> assignedAgain(const std::vector<NodeP>& body) {
  std::map<std::string, int> count;
  std::function<void(const NodeP&)> walk = [&](const NodeP& n) {
    if (!n) return;
    if ((n->kind == NodeKind::Assign || n->kind == NodeKind::AugAssign) && n->kids[0]->kind == NodeKind::Name)
      count[n->kids[0]->text] += n->kind == NodeKind::AugAssign ? 2 : 1;
    if (n->kind == NodeKind::For || n->kind == NodeKind::If || n->kind == NodeKind::Block)
      for (auto& k : n->kids) walk(k);
  };
  for (auto& s : body) walk(s);
  std::set<std::string> out;
  for (auto& [name, c] : count)
    if (c > 1) out.insert(name);
  return out;
}

bool Builder::defined(const std::string& name) const {
  for (size_t s = scopes_.size(); s-- > frames_.back().firstScope;)
    if (scopes_[s].names.count(name)) return true;
  return false;
}

std::vector<StmtP> Builder::block(const std::vector<NodeP>& stmts) {
  scopes_.push_back(Scope{});
  std::vector<StmtP> body = statements(stmts);
  Scope scope = std::move(scopes_.back());
  scopes_.pop_back();
  if (scope.tensors.empty()) return body;
  StmtP s = makeSeq(body);
  for (auto it = scope.tensors.rbegin(); it != scope.tensors.rend(); ++it)
    s = withIdentity(makeVarDef(it->first, s), "", Provenance{it->second});
  return {s};
}

std::vector<StmtP> Builder::statements(const std::vector<NodeP>& stmts) {
  std::vector<StmtP> out;
  for (size_t k = 0; k < stmts.size(); ++k) {
    if (frames_.back().returned) break;  // `return` ends the function
    if (stmts[k]->kind == NodeKind::Assert) {
      // The rest of the block runs under the check.
      auto rest = statements(std::vector<NodeP>(stmts.begin() + static_cast<long>(k) + 1, stmts.end()));
      Value c = eval(stmts[k]->kids[0]);
      std::string message = "assertion failed";
      if (stmts[k]->kids.size() == 2) {
        if (stmts[k]->kids[1]->kind != NodeKind::Str) fail(stmts[k]->kids[1]->loc, "an assertion's message is a string");
        message = stmts[k]->kids[1]->text;
      }
      if (c.isNumber()) {
        if (!c.asDouble()) fail(stmts[k]->loc, message == "assertion failed" ? "this assertion is false" : message);
        out.insert(out.end(), rest.begin(), rest.end());
        return out;
      }
      ExprP cond = truthOf(toExpr(c, stmts[k]->loc, "an assertion"));
      auto checked = withChecks({makeAssert(cond, message, nullptr, stmts[k]->loc, makeSeq(rest))});
      out.insert(out.end(), checked.begin(), checked.end());
      return out;
    }
    auto s = statement(stmts[k]);
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

std::vector<StmtP> Builder::statement(const NodeP& s) {
  switch (s->kind) {
    case NodeKind::Pass: return {};
    case NodeKind::For: return forLoop(*s);
    case NodeKind::If: return ifStmt(*s);
    case NodeKind::Assign:
    case NodeKind::AugAssign: {
      // A label on an assignment names the loops over the elements it writes.
      statementLabel_ = s->label;
      auto out = s->kind == NodeKind::Assign ? assign(*s) : augAssign(*s);
      statementLabel_.clear();
      return out;
    }
    case NodeKind::Return: {
      if (frames_.size() == 1) return entryReturn(*s);
      frames_.back().returned = s->kids.empty() ? Value{} : eval(s->kids[0]);
      return withChecks({});
    }
    case NodeKind::ExprStmt: {
      if (s->kids[0]->kind == NodeKind::Str) return {};  // a docstring
      eval(s->kids[0]);  // a call: its statements are in the prelude
      return withChecks({});
    }
    case NodeKind::FunctionDef: {
      // Inlined where it is called, like any function; it sees this call's names.
      Value f = Value::function(s->text);
      f.def = s.get();
      f.closure = frames_.back().serial;
      scopes_.back().names[s->text] = f;
      return {};
    }
    case NodeKind::Import: fail(s->loc, "not supported in teml programs: imports inside functions");
    default: fail(s->loc, "not supported in teml programs: this statement");
  }
}

std::vector<StmtP> Builder::forLoop(const Node& s) {
  const NodeP& it = s.kids[0];
  if (it->kind != NodeKind::Call || it->kids[0]->kind != NodeKind::Name || it->kids[0]->text != "range" ||
      !it->keywords.empty())
    fail(it->loc, "not supported in teml programs: loops over anything but range(...)");
  size_t n = it->kids.size() - 1;
  if (n < 1 || n > 3) fail(it->loc, "range takes 1 to 3 arguments");
  std::vector<Value> args;
  for (size_t k = 1; k <= n; ++k) args.push_back(eval(it->kids[k]));
  for (size_t k = 0; k < n; ++k)
    if (!toExpr(args[k], it->kids[k + 1]->loc, "range")->isInt()) fail(it->kids[k + 1]->loc, "range takes integers");
  int64_t step = 1;
  if (n == 3) {
    if (!args[2].isInteger()) fail(it->kids[3]->loc, "the step of range must be an integer constant");
    step = args[2].i;
    if (step == 0) fail(it->kids[3]->loc, "the step of range must not be zero");
  }
  ExprP begin = n == 1 ? intConst(0) : cast(DType::I64, toExpr(args[0], it->loc, "range"));
  ExprP end = cast(DType::I64, toExpr(args[n == 1 ? 0 : 1], it->loc, "range"));
  std::vector<Check> outerChecks = std::move(checks_);  // of indices in the bounds: around the loop
  checks_.clear();

  std::string v = freshName(s.text);
  std::optional<std::pair<int64_t, int64_t>> range;
  int64_t b, e;
  if (constValue(begin, &b) && constValue(end, &e)) {
    if (step > 0 && b < e) range = std::make_pair(b, b + (e - 1 - b) / step * step);
    if (step < 0 && b > e) range = std::make_pair(b - (b - e - 1) / -step * -step, b);
    if (!range) range = std::make_pair(int64_t{1}, int64_t{0});  // never runs
  }
  bool exact = true;
  if (!range && step == 1) {
    // A triangle's or a skewed window's loop (range(N - i), range(i, i + w)):
    // from the least begin to the greatest end, so that indices it alone
    // moves are proven in range, not checked at run time (where a check
    // between the loops would also keep them from being interchanged).
    auto first = valuesOf(begin), last = valuesOf(end);
    if (first && last) {
      range = std::make_pair(first->first, last->second - 1);
      if (range->first > range->second) range = std::make_pair(int64_t{1}, int64_t{0});  // never runs
      exact = false;
    }
  }
  iterators_.push_back({v, range, exact, step == 1 ? begin : nullptr, step == 1 ? end : nullptr, runtimeBranches_, {}});
  scopes_.push_back(Scope{});
  scopes_.back().names[s.text] = Value::scalar(var(v));
  std::vector<StmtP> body = block(s.kids[1]->kids);
  scopes_.pop_back();
  std::vector<Check> onBounds = std::move(iterators_.back().onBounds);
  iterators_.pop_back();
  std::string id = s.label.empty() ? "L" + std::to_string(s.loc.line) : s.label;
  StmtP loop = makeFor(id, v, begin, end, step, LoopKind{}, makeSeq(body), {}, Provenance{s.loc});
  checks_ = std::move(outerChecks);
  checks_.insert(checks_.end(), onBounds.begin(), onBounds.end());
  return withChecks({loop});
}

std::vector<StmtP> Builder::ifStmt(const Node& s) {
  Value c = eval(s.kids[0]);
  if (c.isNumber()) {  // partial evaluation: only the branch taken exists, in the enclosing scope
    if (c.asDouble()) return statements(s.kids[1]->kids);
    return s.kids[2] ? statements(s.kids[2]->kids) : std::vector<StmtP>{};
  }
  ExprP cond = truthOf(toExpr(c, s.kids[0]->loc, "a condition"));
  std::vector<Check> outerChecks = std::move(checks_);
  checks_.clear();
  bool returnedBefore = frames_.back().returned.has_value();
  ++runtimeBranches_;
  size_t factCount = facts_.size();
  collectFacts(cond);
  StmtP then = makeSeq(block(s.kids[1]->kids));
  facts_.resize(factCount);
  StmtP otherwise = s.kids[2] ? makeSeq(block(s.kids[2]->kids)) : nullptr;
  --runtimeBranches_;
  if (!returnedBefore && frames_.back().returned)
    fail(s.loc, "'return' inside a branch decided at run time (a function returns once, at its end, or in "
                "branches decided at compile time)");
  checks_ = std::move(outerChecks);
  return withChecks({withIdentity(makeIf(cond, then, otherwise), "", Provenance{s.loc})});
}

TensorP Builder::defineTensor(const std::string& name, const std::vector<int64_t>& shape, DType dtype,
                               SourceLoc loc, MemKind mem) {
  TensorDecl decl{freshName(name), dtype, shape, mem};
  madeAt_[decl.name] = madeAt_.size();
  scopes_.back().tensors.push_back({decl, loc});
  auto t = std::make_shared<TensorValue>();
  t->shape = t->fullShape = shape;
  t->dtype = dtype;
  t->tensor = decl.name;
  for (auto d : shape) t->dims.push_back(ViewDim{nullptr, intConst(0), d});
  std::string n = decl.name;
  t->at = [n, dtype](const std::vector<ExprP>& idx) { return load(n, idx, dtype); };
  scopes_.back().names[name] = Value::ofTensor(t);
  return t;
}

std::vector<StmtP> Builder::assign(const Node& s) {
  const NodeP& target = s.kids[0];
  if (target->kind == NodeKind::Name) {
    const std::string& name = target->text;
    if (defined(name)) {
      Value cur = lookup(*target);
      if (cur.kind == Value::Kind::Tensor && cur.tensor->isView())
        return storeInto(*cur.tensor, eval(s.kids[1]), std::nullopt, false, s.loc);
      if (cur.kind == Value::Kind::Scalar) fail(target->loc, "'" + name + "' is a loop iterator; it cannot be assigned to");
      // A compile-time value (a string, a tuple, ...) is rebound.
    }
    if (globals_.count(name) && globals_[name].kind != Value::Kind::Number && !frames_.back().libop)
      fail(target->loc, "'" + name + "' names " + kindWord(globals_[name].kind) + "; choose another name");
    Value v = eval(s.kids[1]);
    // A sub-tensor is a view (another name for its elements); a single
    // element is copied, as NumPy's scalars are.
    if (v.kind == Value::Kind::Tensor && v.tensor->isView() && !v.tensor->shape.empty()) {
      scopes_.back().names[name] = v;
      return withChecks({});
    }
    // Compile-time values name themselves; so does a number the function
    // never assigns again (a constant for partial evaluation).
    bool compileTime = v.kind != Value::Kind::Tensor && v.kind != Value::Kind::Scalar && v.kind != Value::Kind::Number;
    if (compileTime || (v.isNumber() && !frames_.back().mutated.count(name))) {
      scopes_.back().names[name] = v;
      return withChecks({});
    }
    TensorP src = asTensor(v, s.kids[1]->loc);
    DType dtype = v.isNumber() ? v.numType : src->dtype;
    TensorP t = defineTensor(name, src->shape, dtype, s.loc, v.kind == Value::Kind::Tensor ? v.tensor->mem : MemKind::Auto);
    if (v.kind == Value::Kind::Tensor && v.tensor->fresh) {
      if (v.tensor->fill == 0 || std::isnan(v.tensor->fill)) return withChecks({});  // VarDefs start at zero
    }
    return storeInto(*t, v, std::nullopt, false, s.loc);
  }
  if (target->kind == NodeKind::Subscript) {
    Value base = eval(target->kids[0]);
    std::vector<NodeP> idx(target->kids.begin() + 1, target->kids.end());
    Value view = index(base, idx, target->loc, true);
    size_t madeBefore = madeAt_.size();
    Value v = eval(s.kids[1]);
    auto stmts = storeInto(*view.tensor, v, std::nullopt, false, s.loc);
    noteCopyIntoOutput(s, *view.tensor, v, madeBefore, stmts);
    return stmts;
  }
  if (target->kind == NodeKind::Tuple) fail(target->loc, "not supported in teml programs: assigning to several names at once");
  fail(target->loc, "cannot assign to this expression");
}

std::vector<StmtP> Builder::augAssign(const Node& s) {
  const NodeP& target = s.kids[0];
  Value view;
  if (target->kind == NodeKind::Name) {
    if (!defined(target->text)) fail(target->loc, "'" + target->text + "' is not defined");
    view = lookup(*target);
    if (view.kind != Value::Kind::Tensor || !view.tensor->isView())
      fail(target->loc, "'" + target->text + "' is " + kindWord(view.kind) + "; it cannot be updated");
  } else if (target->kind == NodeKind::Subscript) {
    Value base = eval(target->kids[0]);
    view = index(base, std::vector<NodeP>(target->kids.begin() + 1, target->kids.end()), target->loc, true);
  } else {
    fail(target->loc, "cannot update this expression");
  }
  Value v = eval(s.kids[1]);
  if (s.text == "+") return storeInto(*view.tensor, v, ReduceOp::Add, false, s.loc);
  if (s.text == "-") return storeInto(*view.tensor, unaryOp("-", v, s.loc), ReduceOp::Add, false, s.loc);
  if (s.text == "*") return storeInto(*view.tensor, v, ReduceOp::Mul, false, s.loc);
  return storeInto(*view.tensor, v, std::nullopt, true, s.loc);  // /=
}

}  // namespace teml::freeform
