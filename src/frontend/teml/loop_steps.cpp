// TeML's loop expressions: build, and the transformations, each recorded as
// a step of the user's schedule with its arguments as far as the front end
// can resolve them; the schedule stage replays them (pipeline/teml_steps.cpp).
#include "frontend/teml/evaluator_state.hpp"
#include "ir/mutator.hpp"

namespace teml::teml_lang {

void Evaluator::arity(const Call& c, size_t lo, size_t hi, const std::string& usage) {
  if (c.args.size() < lo || c.args.size() > hi) fail(c.loc, c.function + " takes " + usage);
}

void Evaluator::loopStep(const Statement& st) {
  const Call& c = st.call;
  const std::string& f = c.function;
  UserStep step;
  step.primitive = f;
  step.loc = step.primitiveLoc = c.loc;
  step.resultsLoc = st.loc;
  step.results = {st.target};
  if (f == "build") {
    arity(c, 1, 1, "one argument: build(assignment)");
    const MetaValue& m = lookup(c.args[0], f);
    if (m.type != MetaValue::Type::Assignment)
      fail(c.args[0]->loc, "build: '" + c.args[0]->name + "' is " + typeWord(m.type) +
                               "; build wraps loops around an assignment (eq, op, contract, ...)");
    step.nest = build(*m.assign);
  } else if (f == "replace_array") {
    // The new layout is known here (a transposition of `old`); the step
    // carries it: old, new, the permutation, and whether new is a copy.
    arity(c, 4, 4, "replace_array(l, level, old, new)");
    step.args = {argument(c.args[0]), argument(c.args[1])};
    std::string old = tensorArg(c.args[2], f);
    std::vector<int> sigma;
    Replacement rep = transposition(c.args[3], old, c.loc, &sigma);
    replacements_.push_back(rep);
    StepArg a = argument(c.args[2]), b = argument(c.args[3]), permutation, copy;
    a.kind = b.kind = StepArg::Kind::Tensor;
    a.text = old;
    b.text = rep.replacement;
    permutation.kind = StepArg::Kind::List;
    for (int d : sigma) {
      StepArg n;
      n.kind = StepArg::Kind::Number;
      n.number = d;
      permutation.items.push_back(n);
    }
    copy.kind = StepArg::Kind::Number;
    copy.number = rep.isVirtual ? 0 : 1;
    step.args.insert(step.args.end(), {a, b, permutation, copy});
  } else {
    for (auto& a : c.args) step.args.push_back(argument(a));
  }
  schedule_.steps.push_back(std::move(step));
  state_[st.target] = MetaValue{MetaValue::Type::Loop, "", {}, nullptr, nullptr};
}

StepArg Evaluator::argument(const NodeP& n) {
  StepArg a;
  a.loc = n->loc;
  switch (n->kind) {
    case Kind::Int:
      a.kind = StepArg::Kind::Number;
      a.number = n->intValue;
      return a;
    case Kind::Name: {
      if (options_.sizes.count(n->name)) {
        a.kind = StepArg::Kind::Number;
        a.number = options_.sizes.at(n->name);
        return a;
      }
      a.written = a.text = n->name;
      auto it = state_.find(n->name);
      if (it == state_.end()) {
        a.kind = StepArg::Kind::Name;  // an iterator, a word such as `dynamic`, or a cache's copy
        return a;
      }
      const MetaValue& m = it->second;
      a.what = typeWord(m.type);
      std::string tensor = m.type == MetaValue::Type::Tensor       ? m.tensor
                           : m.type == MetaValue::Type::Assignment ? m.assign->tensor
                                                                   : "";
      if (m.type == MetaValue::Type::Loop) {
        a.kind = StepArg::Kind::Nest;
      } else if (!tensor.empty() && decl(tensor)) {
        a.kind = StepArg::Kind::Tensor;
        a.text = tensor;
      } else {
        a.kind = StepArg::Kind::Other;
      }
      return a;
    }
    case Kind::Neg:
    case Kind::Add:
    case Kind::Sub:
    case Kind::Mul:  // a factor from size parameters, such as 2 * VLEN
      a.kind = StepArg::Kind::Number;
      a.number = n->kind == Kind::Neg && n->kids[0]->kind == Kind::Int ? -n->kids[0]->intValue : sizeValue(n);
      return a;
    case Kind::Text:
      a.kind = StepArg::Kind::Text;
      a.written = a.text = n->name;
      return a;
    case Kind::List:
      a.kind = StepArg::Kind::List;
      for (auto& item : n->kids) a.items.push_back(argument(item));
      return a;
    default:
      return a;
  }
}

std::string Evaluator::tensorArg(const NodeP& n, const std::string& what) {
  const MetaValue& m = lookup(n, what);
  std::string name = m.type == MetaValue::Type::Tensor       ? m.tensor
                     : m.type == MetaValue::Type::Assignment ? m.assign->tensor
                                                             : "";
  if (name.empty() || !decl(name))
    fail(n->loc, what + ": '" + n->name + "' is " + typeWord(m.type) + ", not a declared tensor");
  return name;
}

Replacement Evaluator::transposition(const NodeP& n, const std::string& old, SourceLoc loc, std::vector<int>* sigma) {
  const MetaValue& m = lookup(n, "replace_array");
  Replacement rep{old, "", m.type == MetaValue::Type::Expr, loc};
  std::string of;
  bool ok = false;
  if (m.type == MetaValue::Type::Expr && m.expr.indexed && m.expr.reductions.empty()) {
    ok = transpositionOf(m.expr.body, m.expr.dims, &of, sigma);
    rep.replacement = n->name;
  } else if (m.type == MetaValue::Type::Assignment && !m.assign->reduce) {
    std::vector<std::string> vars;
    for (auto& i : m.assign->indices)
      vars.push_back(i->kind == ir::ExprKind::Var ? i->as<ir::Var>().name : "");
    ok = transpositionOf(m.assign->value, vars, &of, sigma);
    rep.replacement = m.assign->tensor;
  }
  if (!ok || of != old)
    fail(n->loc, "replace_array: '" + n->name + "' is not a transposition of '" + old + "' (write it as transpose(" +
                     old + ", ...) or vtranspose(" + old + ", ...))");
  if (!rep.isVirtual) return rep;
  bool again = std::any_of(replacements_.begin(), replacements_.end(), [&](const Replacement& r) {
    return r.isVirtual && r.old == old && r.replacement == rep.replacement;
  });
  if (decl(rep.replacement) && !again)
    fail(n->loc, "replace_array: a tensor named '" + rep.replacement + "' already exists");
  if (!again) {
    ir::TensorDecl d = *decl(old);
    d.name = rep.replacement;
    for (size_t k = 0; k < sigma->size(); ++k) d.shape[(*sigma)[k]] = decl(old)->shape[k];
    program_.tensors.push_back(d);
    auto init = program_.initialValues.find(old);
    if (init != program_.initialValues.end()) program_.initialValues[d.name] = init->second;
  }
  return rep;
}

StmtP Evaluator::build(const frontend::Assignment& a) {
  std::string n = std::to_string(++nestCounter_);
  StmtP nest = frontend::buildNest(a, "L" + n + ".", "S" + n);
  if (std::string broken = ir::verify(nest, program_.tensors); !broken.empty())
    throw InternalError("build produced ill-formed IR: " + broken);
  return nest;
}

void Evaluator::buildStep(const frontend::Assignment& a, const std::string& name, SourceLoc loc) {
  UserStep step;
  step.primitive = "build";
  step.loc = step.primitiveLoc = step.resultsLoc = loc;
  step.results = {name};
  step.nest = build(a);
  schedule_.steps.push_back(std::move(step));
}

}  // namespace teml::teml_lang
