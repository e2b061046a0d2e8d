// The file as a whole: imports, module constants, functions, the entry
// function's parameters (the program's tensors) and its size parameters.
#include <algorithm>

#include "frontend/freeform/builder.hpp"
#include "frontend/freeform/row_order_checks.hpp"
#include "ir/hoist_invariant_checks.hpp"
#include "ir/unique_statement_ids.hpp"
#include "libop_source.hpp"

namespace teml::freeform {

using namespace ir;

Builder::Builder(const NodeP& module, const FreeformOptions& options) : module_(module), options_(options) {
  try {
    libopModule_ = parseModule(kLibopSource);
  } catch (const UserError& e) {
    throw InternalError("libop.py:" + std::to_string(e.loc().line) + ": " + e.what());
  }
  for (auto& s : libopModule_->kids)
    if (s->kind == NodeKind::FunctionDef) libop_[s->text] = s.get();
}

namespace {

[[noreturn]] void fail(SourceLoc loc, const std::string& m) { throw UserError(loc, m); }

std::optional<DType> dtypeNamed(const std::string& s) {
  if (s == "float64" || s == "float") return DType::F64;
  if (s == "float32") return DType::F32;
  if (s == "int32") return DType::I32;
  if (s == "int64" || s == "int") return DType::I64;
  if (s == "bool") return DType::Bool;
  return std::nullopt;
}

}  // namespace

void Builder::importNames(const NodeP& n) {
  if (n->text == "__future__") return;  // `from __future__ import annotations`: Python's business
  bool fromTeml = n->text == "teml" || n->text.rfind("teml.", 0) == 0;
  if (!fromTeml) {  // Python's: an error only where a transform uses what it binds
    std::string where = " (imported at line " + std::to_string(n->loc.line) + ")";
    if (n->kids.empty()) {
      std::string bound = n->alias == n->text ? n->text.substr(0, n->text.find('.')) : n->alias;
      setForeign(bound, "the Python module '" + n->text + "'" + where);
    }
    for (auto& item : n->kids) setForeign(item->alias, "'" + item->text + "' of the Python module '" + n->text + "'" + where);
    return;
  }
  if (n->kids.empty()) {  // import teml [as t]
    globals_[n->alias] = Value::module(n->text);
    return;
  }
  for (auto& item : n->kids) globals_[item->alias] = Value::module(n->text + "." + item->text);
}

void Builder::setForeign(const std::string& name, const std::string& what) {
  globals_.erase(name);
  constantAt_.erase(name);
  foreign_[name] = what;
}

// `name = value` at module level: a number teml computes now (a constant, a
// size), or something only Python computes, which is an error where used.
void Builder::moduleAssignment(const Node& s) {
  const std::string& name = s.kids[0]->text;
  std::string line = "set at line " + std::to_string(s.loc.line);
  // Evaluated in a frame of its own (a constant may call a function); what a
  // failed evaluation left behind is dropped.
  size_t frames = frames_.size(), scopes = scopes_.size(), iterators = iterators_.size(), facts = facts_.size();
  std::set<std::string> names = names_;
  int statements = statementCount_, branches = runtimeBranches_;
  scopes_.push_back(Scope{});
  pushFrame(Frame{"<module>", scopes_.size() - 1, std::nullopt, false, {}});
  std::string failure;
  Value v;
  foreignUse_.clear();
  try {
    v = eval(s.kids[1]);
    if (!prelude_.empty() || !checks_.empty())
      failure = line + " to a value computed by statements at run time, not a constant";
    else if (!v.isNumber())
      failure = line + " to " + std::string(kindWord(v.kind)) + ", not a number";
  } catch (const UserError& e) {
    if (!foreignUse_.empty() && foreign_.count(foreignUse_))
      failure = line + " from '" + foreignUse_ + "', " + foreign_[foreignUse_];
    else
      failure = line + " to a value teml does not compute when it compiles (" + std::to_string(e.loc().line) + ":" +
                std::to_string(e.loc().col) + ": " + e.what() + ")";
  } catch (const UsageError& e) {
    failure = line + " to a value teml does not compute when it compiles (" + e.what() + ")";
  }
  frames_.erase(frames_.begin() + static_cast<long>(frames), frames_.end());
  scopes_.erase(scopes_.begin() + static_cast<long>(scopes), scopes_.end());
  prelude_.clear();
  checks_.clear();
  if (!failure.empty()) {
    iterators_.erase(iterators_.begin() + static_cast<long>(iterators), iterators_.end());
    facts_.erase(facts_.begin() + static_cast<long>(facts), facts_.end());
    names_ = names;
    statementCount_ = statements;
    runtimeBranches_ = branches;
    setForeign(name, failure);
    return;
  }
  globals_[name] = v;
  foreign_.erase(name);
  constantAt_[name] = s.loc;
}

void Builder::readModule() {
  // Only what a transform uses is teml's: imports of other modules, values
  // Python computes and functions outside the subset are errors where a
  // transform uses them; other statements are not read (parsePythonModule).
  for (auto& s : module_->kids) {
    std::string line = std::to_string(s->loc.line);
    switch (s->kind) {
      case NodeKind::Import: importNames(s); break;
      case NodeKind::Block:  // import numpy as np, teml
        for (auto& k : s->kids) importNames(k);
        break;
      case NodeKind::FunctionDef:
        if (functions_.count(s->text)) fail(s->loc, "function '" + s->text + "' is defined twice");
        functions_[s->text] = s.get();
        foreign_.erase(s->text);
        unreadFunctions_.erase(s->text);
        break;
      case NodeKind::Unsupported:
        if (s->alias == "def") {
          functions_.erase(s->text);
          unreadFunctions_[s->text] = s->unread;
        } else {
          setForeign(s->text, "set at line " + line + " by Python that teml does not read (" + s->unread->what() + ")");
        }
        break;
      case NodeKind::Assign: {
        const NodeP& target = s->kids[0];
        if (target->kind == NodeKind::Name) {
          moduleAssignment(*s);
        } else if (target->kind == NodeKind::Tuple || target->kind == NodeKind::List) {
          for (auto& t : target->kids)
            if (t->kind == NodeKind::Name) setForeign(t->text, "set at line " + line + " by a tuple assignment, which teml does not evaluate");
        }  // x[i] = ..., obj.attr = ...: Python's
        break;
      }
      case NodeKind::AugAssign:
        if (s->kids[0]->kind == NodeKind::Name)
          setForeign(s->kids[0]->text, "updated at line " + line + " ('" + s->text + "='), which teml does not evaluate");
        break;
      default: break;  // a docstring, a call: Python's
    }
  }
}

// `@teml.transform`, `@transform` (imported from teml), `@teml.schedule(f)`.
bool Builder::isDecorator(const NodeP& d, const std::string& name) const {
  NodeP callee = d->kind == NodeKind::Call ? d->kids[0] : d;
  if (callee->kind == NodeKind::Attribute && callee->kids[0]->kind == NodeKind::Name) {
    auto m = globals_.find(callee->kids[0]->text);
    return m != globals_.end() && m->second.kind == Value::Kind::Module && m->second.text == "teml" &&
           callee->text == name;
  }
  if (callee->kind == NodeKind::Name) {
    auto m = globals_.find(callee->text);
    return m != globals_.end() && m->second.kind == Value::Kind::Module && m->second.text == "teml." + name;
  }
  return false;
}

const Node& Builder::chooseEntry() const {
  std::vector<const Node*> entries;
  for (auto& s : module_->kids)
    if (s->kind == NodeKind::FunctionDef)
      for (auto& d : s->decorators)
        if (isDecorator(d, "transform")) entries.push_back(s.get());
  if (!options_.entry.empty()) {
    // Named explicitly (teml.transform from Python names undecorated ones too).
    auto f = functions_.find(options_.entry);
    if (f != functions_.end()) return *f->second;
    if (auto u = unreadFunctions_.find(options_.entry); u != unreadFunctions_.end()) throw *u->second;
    throw UsageError("--entry " + options_.entry + ": the file has no function of that name");
  }
  if (entries.empty()) fail({1, 1}, "the file has no function decorated @teml.transform");
  if (entries.size() > 1) {
    std::string names;
    for (auto* e : entries) names += (names.empty() ? "" : ", ") + e->text;
    throw UsageError("the file has several @teml.transform functions (" + names + "): choose one with --entry NAME");
  }
  return *entries[0];
}

// teml.Var[(shape...), "dtype"(, "access")]: the parts of the annotation.
namespace {
struct Annotation {
  NodeP shape;
  std::string dtype, access = "input";
  SourceLoc dtypeLoc, accessLoc;
};
}  // namespace

static Annotation annotationOf(const Node& param, const std::map<std::string, Value>& globals) {
  if (!param.kids[0])
    fail(param.loc, "parameter '" + param.text + "' of the entry function needs an annotation teml.Var[(shape), \"dtype\"]");
  const NodeP& a = param.kids[0];
  bool ok = a->kind == NodeKind::Subscript && a->kids.size() >= 3 && a->kids.size() <= 4;
  if (ok) {
    const NodeP& base = a->kids[0];
    auto isTeml = [&](const std::string& n, const std::string& what) {
      auto g = globals.find(n);
      return g != globals.end() && g->second.kind == Value::Kind::Module && g->second.text == what;
    };
    ok = (base->kind == NodeKind::Attribute && base->text == "Var" && base->kids[0]->kind == NodeKind::Name &&
          isTeml(base->kids[0]->text, "teml")) ||
         (base->kind == NodeKind::Name && isTeml(base->text, "teml.Var"));
  }
  if (!ok)
    fail(param.kids[0]->loc, "parameter '" + param.text +
                                 "': expected an annotation teml.Var[(shape), \"dtype\"] or teml.Var[(shape), \"dtype\", \"access\"]");
  Annotation out;
  out.shape = a->kids[1];
  if (a->kids[2]->kind != NodeKind::Str) fail(a->kids[2]->loc, "the element type is a string such as \"float32\"");
  out.dtype = a->kids[2]->text;
  out.dtypeLoc = a->kids[2]->loc;
  if (a->kids.size() == 4) {
    if (a->kids[3]->kind != NodeKind::Str) fail(a->kids[3]->loc, "the access is a string: \"input\", \"output\" or \"inout\"");
    out.access = a->kids[3]->text;
    out.accessLoc = a->kids[3]->loc;
  }
  return out;
}

static std::vector<NodeP> shapeEntries(const NodeP& shape) {
  if (shape->kind == NodeKind::Tuple || shape->kind == NodeKind::List) return shape->kids;
  return {shape};  // (n) is n in Python: a one-dimensional shape
}

namespace {
// The names in a shape entry that nothing binds yet (a callee's name is not one).
void unboundNames(const NodeP& e, const std::map<std::string, Value>& globals, std::set<std::string>* out) {
  if (!e) return;
  if (e->kind == NodeKind::Name && !globals.count(e->text)) out->insert(e->text);
  for (size_t k = e->kind == NodeKind::Call ? 1 : 0; k < e->kids.size(); ++k) unboundNames(e->kids[k], globals, out);
}

// A shape entry as written, for messages (the arithmetic a shape holds).
std::string written(const NodeP& e) {
  switch (e->kind) {
    case NodeKind::Name: return e->text;
    case NodeKind::Int: return std::to_string(e->intValue);
    case NodeKind::BinOp: return written(e->kids[0]) + " " + e->text + " " + written(e->kids[1]);
    case NodeKind::UnaryOp: return e->text + written(e->kids[0]);
    default: return "...";
  }
}
}  // namespace

// The value of `size` that makes the shape entry `e` equal `dim`, when `e`
// is affine in it (`R + 1`, `2 * n`): from e(0) and e(1), checked at the answer.
std::optional<int64_t> Builder::solveSize(const NodeP& e, const std::string& size, int64_t dim) {
  auto at = [&](int64_t v) -> std::optional<int64_t> {
    globals_[size] = Value::number(v);
    size_t frames = frames_.size(), scopes = scopes_.size();
    scopes_.push_back(Scope{});
    pushFrame(Frame{"<module>", scopes_.size() - 1, std::nullopt, false, {}});
    std::optional<int64_t> out;
    try {
      Value r = eval(e);
      if (r.isInteger() && prelude_.empty() && checks_.empty()) out = r.i;
    } catch (const UserError&) {
    }
    frames_.erase(frames_.begin() + static_cast<long>(frames), frames_.end());
    scopes_.erase(scopes_.begin() + static_cast<long>(scopes), scopes_.end());
    prelude_.clear();
    checks_.clear();
    globals_.erase(size);
    return out;
  };
  auto f0 = at(0), f1 = at(1);
  if (!f0 || !f1 || *f1 == *f0 || (dim - *f0) % (*f1 - *f0) != 0) return std::nullopt;
  int64_t v = (dim - *f0) / (*f1 - *f0);
  if (v < 0 || at(v) != dim) return std::nullopt;
  return v;
}

void Builder::bindSizes(const Node& entry) {
  // A bare name in a shape that the file does not define is a size
  // parameter: from --set, or from the shape of an input that uses it.
  std::map<std::string, std::string> boundBy;  // size -> "--set", "<module>" or the tensor it was read from
  for (auto& [name, at] : constantAt_)
    if (globals_.at(name).isInteger()) boundBy[name] = "<module>";
  for (auto& [name, v] : options_.sizes) {
    // The same value as the module's `n = 3` (Python passes its module's integers): the line says it.
    bool module = boundBy.count(name) && globals_.at(name).i == v;
    globals_[name] = Value::number(v);
    foreign_.erase(name);
    if (!module) boundBy[name] = "--set";
  }
  for (auto& p : entry.params) {
    Annotation a = annotationOf(*p, globals_);
    auto entries = shapeEntries(a.shape);
    auto input = options_.inputShapes.find(p->text);
    for (size_t d = 0; d < entries.size(); ++d) {
      const NodeP& e = entries[d];
      if (e->kind != NodeKind::Name) continue;
      auto g = globals_.find(e->text);
      bool fromInput = input != options_.inputShapes.end() && d < input->second.size() &&
                       input->second.size() == entries.size();
      if (g == globals_.end()) {
        if (!fromInput) continue;  // bound by a later input, or reported below
        globals_[e->text] = Value::number(input->second[d]);
        boundBy[e->text] = p->text;
      } else if (fromInput && g->second.isInteger() && boundBy.count(e->text) &&
                 boundBy[e->text] == "<module>" && g->second.i != input->second[d]) {
        throw UserError(constantAt_.at(e->text),
                        "size '" + e->text + "' is " + std::to_string(g->second.i) +
                            " here (a module-level integer is a size fixed when the program compiles), but the input "
                            "for '" + p->text + "' has " + std::to_string(input->second[d]) + " in dimension " +
                            std::to_string(d));
      } else if (fromInput && g->second.isInteger() && boundBy.count(e->text) && g->second.i != input->second[d]) {
        throw UsageError("size '" + e->text + "' is " + std::to_string(g->second.i) + " (from " +
                         (boundBy[e->text] == "--set" ? std::string("--set") : "'" + boundBy[e->text] + "'") +
                         ") but the input for '" + p->text + "' has " + std::to_string(input->second[d]) +
                         " in dimension " + std::to_string(d));
      }
    }
  }
  // Sizes used only inside expressions (CSR's `ptr: (R + 1,)`), solved from
  // the inputs' shapes; each solved size may let another expression be solved.
  for (bool progress = true; progress;) {
    progress = false;
    for (auto& p : entry.params) {
      auto input = options_.inputShapes.find(p->text);
      if (input == options_.inputShapes.end()) continue;
      auto entries = shapeEntries(annotationOf(*p, globals_).shape);
      if (entries.size() != input->second.size()) continue;
      for (size_t d = 0; d < entries.size(); ++d) {
        std::set<std::string> unbound;
        unboundNames(entries[d], globals_, &unbound);
        if (unbound.size() != 1 || entries[d]->kind == NodeKind::Name) continue;
        const std::string& size = *unbound.begin();
        auto v = solveSize(entries[d], size, input->second[d]);
        if (!v)
          throw UsageError("the input for '" + p->text + "' has " + std::to_string(input->second[d]) + " in dimension " +
                           std::to_string(d) + ", which is " + written(entries[d]) + " for no size " + size + " >= 0");
        globals_[size] = Value::number(*v);
        foreign_.erase(size);
        boundBy[size] = p->text;
        progress = true;
      }
    }
  }
  for (auto& [name, by] : boundBy)
    if (by != "--set" && by != "<module>") inputSizes_[name] = globals_.at(name).i;
}

std::vector<int64_t> Builder::shapeOf(const NodeP& shapeNode, const std::string& param) {
  std::vector<int64_t> shape;
  for (auto& e : shapeEntries(shapeNode)) {
    std::set<std::string> unbound;
    unboundNames(e, globals_, &unbound);
    for (auto& size : unbound)
      if (!foreign_.count(size))
        fail(e->loc, "size '" + size + "' of '" + param + "' is not bound: " +
                         (options_.commandLine ? "give --set " + size + "=N or an --input for a tensor whose shape uses it"
                                               : "no argument's shape gives it (a size used only in outputs' shapes is a "
                                                 "module-level integer)"));
    Value v = eval(e);
    if (!v.isInteger()) fail(e->loc, "a dimension of '" + param + "' must be an integer known at compile time");
    if (v.i < 0) fail(e->loc, "dimension " + std::to_string(shape.size()) + " of '" + param + "' is negative (" +
                                  std::to_string(v.i) + ")");
    shape.push_back(v.i);
  }
  return shape;
}

void Builder::declareParameters(const Node& entry) {
  scopes_.push_back(Scope{});
  pushFrame(Frame{entry.text, 0, std::nullopt, false, assignedAgain(entry.kids)});
  for (auto& p : entry.params) {
    Annotation a = annotationOf(*p, globals_);
    auto dtype = dtypeNamed(a.dtype);
    if (!dtype) fail(a.dtypeLoc, "unknown element type \"" + a.dtype + "\" (float64, float32, int64, int32 or bool)");
    Access access = a.access == "input" ? Access::Input : a.access == "output" ? Access::Output : Access::InOut;
    if (a.access != "input" && a.access != "output" && a.access != "inout")
      fail(a.accessLoc, "unknown access \"" + a.access + "\" (input, output or inout)");
    if (scopes_[0].names.count(p->text)) fail(p->loc, "parameter '" + p->text + "' is declared twice");
    TensorDecl decl{p->text, *dtype, shapeOf(a.shape, p->text)};
    program_.tensors.push_back(decl);
    access_[p->text] = access;
    names_.insert(p->text);
    auto t = std::make_shared<TensorValue>();
    t->shape = t->fullShape = decl.shape;
    t->dtype = decl.dtype;
    t->tensor = decl.name;
    t->dims.resize(decl.shape.size());
    for (size_t d = 0; d < decl.shape.size(); ++d) t->dims[d] = ViewDim{nullptr, intConst(0), decl.shape[d]};
    std::string name = decl.name;
    DType dt = decl.dtype;
    t->at = [name, dt](const std::vector<ExprP>& idx) { return load(name, idx, dt); };
    scopes_[0].names[p->text] = Value::ofTensor(t);
  }
}

FreeformProgram Builder::run() {
  readModule();
  const Node& entry = chooseEntry();
  bindSizes(entry);
  declareParameters(entry);
  StmtP body = returnedAsOutputs(elideCopiesIntoOutputs(makeSeq(block(entry.kids))));
  // Row checks first: those that do not depend on a loop move out of it too.
  StmtP nest = uniqueStatementIds(hoistInvariantChecks(withRowOrderChecks(body, program_.tensors)));
  FreeformProgram out;
  out.entry = entry.text;
  out.inputSizes = inputSizes_;
  out.returnForm = returnForm_;
  for (auto& r : returned_) out.returned.push_back(r.name);
  readSchedules(entry.text, &out);
  program_.nests = {nest};
  for (auto& [name, access] : access_)
    program_.roles[name] = access == Access::Input    ? ir::TensorRole::Input
                           : access == Access::Output ? ir::TensorRole::Output
                                                      : ir::TensorRole::InOut;
  ir::assignCallerRoles(program_);
  out.program = program_;
  out.access = access_;
  return out;
}

FreeformProgram parseFreeform(const std::string& source, const FreeformOptions& options) {
  return Builder(parsePythonModule(source), options).run();
}

}  // namespace teml::freeform
