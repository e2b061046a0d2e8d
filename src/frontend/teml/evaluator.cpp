// Evaluation of TeML meta-programs: the state, its helpers and the statements.
#include "frontend/teml/evaluator_state.hpp"

#include "ir/mutator.hpp"

namespace teml::teml_lang {

const MetaValue& Evaluator::lookup(const NodeP& n, const std::string& what) {
  if (n->kind != Kind::Name) fail(n->loc, what + ": expected an identifier");
  auto it = state_.find(n->name);
  if (it == state_.end()) fail(n->loc, "'" + n->name + "' is not defined");
  return it->second;
}

int64_t Evaluator::intArg(const NodeP& n, const std::string& what) {
  if (n->kind == Kind::Int) return n->intValue;
  if (n->kind == Kind::Name) {
    auto it = options_.sizes.find(n->name);
    if (it != options_.sizes.end()) return it->second;
  }
  if (n->kind == Kind::Neg && n->kids[0]->kind == Kind::Int) return -n->kids[0]->intValue;
  if (n->kind == Kind::Add || n->kind == Kind::Sub || n->kind == Kind::Mul || n->kind == Kind::Neg)
    return sizeValue(n);  // a factor from size parameters, such as 2 * VLEN
  fail(n->loc, what + ": expected an integer");
}

int64_t Evaluator::sizeValue(const NodeP& n) {
  switch (n->kind) {
    case Kind::Int:
      return n->intValue;
    case Kind::Name: {
      auto it = options_.sizes.find(n->name);
      if (it == options_.sizes.end())
        fail(n->loc, "size parameter '" + n->name + "' is not bound (use --set " + n->name + "=VALUE)");
      return it->second;
    }
    case Kind::Add:
      return sizeValue(n->kids[0]) + sizeValue(n->kids[1]);
    case Kind::Sub:
      return sizeValue(n->kids[0]) - sizeValue(n->kids[1]);
    case Kind::Mul:
      return sizeValue(n->kids[0]) * sizeValue(n->kids[1]);
    case Kind::Neg:
      return -sizeValue(n->kids[0]);
    default:
      fail(n->loc, "expected a size (an integer or a size parameter)");
  }
}

ExprP Evaluator::indexExpr(const NodeP& n) {
  switch (n->kind) {
    case Kind::Int:
      return ir::intConst(n->intValue);
    case Kind::Name: {
      if (options_.sizes.count(n->name)) return ir::intConst(options_.sizes.at(n->name));
      return ir::var(n->name);
    }
    case Kind::Add:
      return ir::add(indexExpr(n->kids[0]), indexExpr(n->kids[1]));
    case Kind::Sub:
      return ir::sub(indexExpr(n->kids[0]), indexExpr(n->kids[1]));
    case Kind::Neg:
      return ir::sub(ir::intConst(0), indexExpr(n->kids[0]));
    case Kind::Mul: {
      ExprP a = indexExpr(n->kids[0]), b = indexExpr(n->kids[1]);
      int64_t c;
      if (!ir::constValue(a, &c) && !ir::constValue(b, &c))
        fail(n->loc, "index expressions must be affine: a product needs a constant factor");
      return ir::mul(a, b);
    }
    default:
      fail(n->loc, "expected an iterator or an affine index expression");
  }
}

std::vector<ExprP> Evaluator::iteratorList(const NodeP& n) {
  if (n->kind != Kind::List) fail(n->loc, "expected an iterator list such as [i1, i2]");
  std::vector<ExprP> out;
  for (auto& item : n->kids) {
    if (item->kind == Kind::Empty) fail(item->loc, "empty entry in an iterator list");
    out.push_back(indexExpr(item));
  }
  return out;
}

std::vector<std::string> Evaluator::iteratorsOf(const ExprP& body, const std::vector<std::string>& skip) {
  std::vector<std::string> out;
  ir::forEachExpr(body, [&](const ExprP& e) {
    if (e->kind != ir::ExprKind::Var) return;
    auto& n = e->as<ir::Var>().name;
    if (std::find(skip.begin(), skip.end(), n) == skip.end() && std::find(out.begin(), out.end(), n) == out.end())
      out.push_back(n);
  });
  return out;
}

void Evaluator::plainUses(const ExprP& e, std::map<std::string, PlainUse>& uses, SourceLoc loc) {
  ir::forEachExpr(e, [&](const ExprP& x) {
    if (x->kind != ir::ExprKind::Load) return;
    auto& l = x->as<ir::Load>();
    notePlainUses(l.tensor, l.indices, uses, loc);
  });
}

void Evaluator::notePlainUses(const std::string& tensor, const std::vector<ExprP>& idx,
                              std::map<std::string, PlainUse>& uses, SourceLoc loc) {
  auto* d = decl(tensor);
  for (size_t k = 0; k < idx.size() && d && k < d->shape.size(); ++k) {
    if (idx[k]->kind != ir::ExprKind::Var) continue;
    auto& v = idx[k]->as<ir::Var>().name;
    PlainUse u{d->shape[k], tensor, k};
    auto [it, inserted] = uses.emplace(v, u);
    if (!inserted && it->second.extent != u.extent)
      fail(loc, "iterator " + iterName(v) + " indexes dimensions of different extents: dimension " +
                    std::to_string(it->second.dim + 1) + " of '" + it->second.tensor + "' (" +
                    std::to_string(it->second.extent) + ") and dimension " + std::to_string(k + 1) + " of '" + tensor +
                    "' (" + std::to_string(u.extent) + ")");
  }
}

std::string Evaluator::iterName(const std::string& v) {
  return isFreshIterator(v) ? "(a contracted or implicit dimension)" : "'" + v + "'";
}

void Evaluator::exec(const Statement& st) {
  switch (st.kind) {
    case Statement::Kind::Codegen:
      return codegen(st);
    case Statement::Kind::Init:
      return init(st);
    case Statement::Kind::Assign:
      return assign(st);
  }
}

void Evaluator::codegen(const Statement& st) {
  if (st.call.args.empty()) fail(st.loc, "codegen needs at least one loop nest");
  UserStep step;
  step.primitive = "codegen";
  step.loc = step.primitiveLoc = st.loc;
  for (auto& a : st.call.args) {
    const MetaValue& m = lookup(a, "codegen");
    StepArg nest;
    nest.kind = StepArg::Kind::Nest;
    nest.text = nest.written = a->name;
    nest.loc = a->loc;
    if (m.type == MetaValue::Type::Assignment) {
      nest.text = "%" + std::to_string(++hiddenCounter_);
      buildStep(*m.assign, nest.text, a->loc);
    } else if (m.type != MetaValue::Type::Loop) {
      fail(a->loc, "codegen: '" + a->name + "' is " + typeWord(m.type) + ", not a loop nest");
    }
    step.args.push_back(nest);
  }
  schedule_.steps.push_back(std::move(step));
}

void Evaluator::init(const Statement& st) {
  const Call& c = st.call;
  if (c.args.size() != 2) fail(c.loc, "init(tensor, value) takes two arguments");
  const MetaValue& m = lookup(c.args[0], "init");
  if (m.type != MetaValue::Type::Tensor)
    fail(c.args[0]->loc, "init: '" + c.args[0]->name + "' is not a declared tensor");
  const NodeP& v = c.args[1];
  double value;
  if (v->kind == Kind::Int)
    value = static_cast<double>(v->intValue);
  else if (v->kind == Kind::Float)
    value = v->floatValue;
  else if (v->kind == Kind::Neg && v->kids[0]->kind == Kind::Int)
    value = -static_cast<double>(v->kids[0]->intValue);
  else if (v->kind == Kind::Neg && v->kids[0]->kind == Kind::Float)
    value = -v->kids[0]->floatValue;
  else
    fail(v->loc, "init: expected a number");
  program_.initialValues[m.tensor] = value;
}

void Evaluator::declare(const Statement& st) {
  const Call& c = st.call;
  ir::TensorDecl d;
  d.name = st.targetName.empty() ? st.target : st.targetName;
  size_t next = 0;
  if (!c.args.empty() && c.args[0]->kind == Kind::Name && (c.args[0]->name == "double" || c.args[0]->name == "float")) {
    d.dtype = c.args[0]->name == "float" ? ir::DType::F32 : ir::DType::F64;
    next = 1;
  }
  if (c.function == "scalar") {
    if (c.args.size() != next) fail(c.loc, "scalar() takes at most an element type");
  } else {
    if (c.args.size() != next + 1 || c.args[next]->kind != Kind::List)
      fail(c.loc, "tensor takes a shape: tensor([sizes]) or tensor(double|float, [sizes])");
    for (auto& s : c.args[next]->kids) {
      if (s->kind == Kind::Empty) fail(s->loc, "empty size in a tensor shape");
      int64_t n = sizeValue(s);
      if (n < 1 || n > (int64_t(1) << 40))
        fail(s->loc, "tensor '" + d.name + "': size " + std::to_string(n) + " is not positive");
      d.shape.push_back(n);
    }
    if (d.shape.empty()) fail(c.loc, "tensor '" + d.name + "' has no dimensions; use scalar() for a scalar");
    if (d.elementCount() > (int64_t(1) << 36)) fail(c.loc, "tensor '" + d.name + "' is too large");
  }
  if (auto* old = decl(d.name)) {
    if (old->shape != d.shape || old->dtype != d.dtype)
      fail(st.loc, "tensor '" + d.name + "' is already declared with shape " + shapeText(old->shape));
  } else {
    program_.tensors.push_back(d);
  }
  state_[st.target] = MetaValue{MetaValue::Type::Tensor, d.name, {}, nullptr, nullptr};
}

bool Evaluator::isArith(const std::string& f, const std::string& prefix, std::string* op) {
  for (const char* o : {"add", "sub", "mul", "div"})
    if (f == prefix + o) {
      *op = o;
      return true;
    }
  return false;
}

void Evaluator::assign(const Statement& st) {
  const Call& c = st.call;
  const std::string& f = c.function;
  std::string target = st.targetName.empty() ? st.target : st.targetName;
  std::string op;
  auto setExpr = [&](Virtual v) {
    state_[st.target] = MetaValue{MetaValue::Type::Expr, "", std::move(v), nullptr, nullptr};
  };
  auto setAssign = [&](std::vector<ExprP> idx, const Virtual& v) {
    state_[st.target] =
        MetaValue{MetaValue::Type::Assignment, "", {}, assignment(target, std::move(idx), v, st.loc), nullptr};
  };

  if (f == "tensor" || f == "scalar") return declare(st);
  if (isArith(f, "v", &op)) {
    arity(c, 2, 3, f + "(t0, t1) or " + f + "(t0, t1, [I0, I1])");
    if (c.args.size() == 3 && c.args[2]->kind == Kind::Arrow)
      fail(c.args[2]->loc, f + " is virtual and takes no '->' target list; use " + op + " to assign");
    return setExpr(vop(c, op, c.args.size() == 3 ? c.args[2] : nullptr));
  }
  if (isArith(f, "", &op)) {
    arity(c, 3, 3, f + "(t0, t1, [I0, I1] -> I)");
    if (c.args[2]->kind != Kind::Arrow) fail(c.args[2]->loc, f + ": expected [I0, I1] -> I");
    NodeP lists = c.args[2]->kids[0]->kind == Kind::Empty ? nullptr : c.args[2]->kids[0];
    auto targetIdx = iteratorList(c.args[2]->kids[1]);
    if (op == "add" && accumulatesInto(target, c.args[0], lists, targetIdx)) {
      // target = add(target, x, [I, J] -> I): an accumulation, which may hold contractions.
      Virtual x = indexed(operand(c.args[1], f), lists ? lists->kids[1] : nullptr, c.args[1]->loc, f);
      state_[st.target] = MetaValue{
          MetaValue::Type::Assignment, "", {}, assignment(target, targetIdx, x, st.loc, ir::ReduceOp::Add), nullptr};
      return;
    }
    return setAssign(targetIdx, vop(c, op, lists));
  }
  if (f == "eq") {
    arity(c, 2, 2, "eq(t, I0 -> I1) or eq(t, -> I1)");
    if (c.args[1]->kind != Kind::Arrow) fail(c.args[1]->loc, "eq: expected I0 -> I1");
    Virtual v = indexed(operand(c.args[0], f), c.args[1]->kids[0], c.args[0]->loc, f);
    return setAssign(iteratorList(c.args[1]->kids[1]), v);
  }
  if (isArith(f, "ventrywise_", &op)) return setExpr(entrywise(c, op));
  if (isArith(f, "entrywise_", &op)) {
    Virtual v = entrywise(c, op);
    return setAssign(dimVars(v), v);
  }
  if (f == "vtranspose") return setExpr(vtranspose(c));
  if (f == "transpose") {
    Virtual v = vtranspose(c);
    return setAssign(dimVars(v), v);
  }
  if (f == "vcontract") return setExpr(vcontract(c));
  if (f == "contract") {
    Virtual v = vcontract(c);
    return setAssign(dimVars(v), v);
  }
  if (f == "vouterproduct") return setExpr(vouterproduct(c));
  if (f == "outerproduct") {
    Virtual v = vouterproduct(c);
    return setAssign(dimVars(v), v);
  }
  static const std::set<std::string> loops = {
      "build",        "stripmine",      "stripmine_n",   "interchange", "interchange_n", "fuse_outer",   "fuse_inner",
      "unroll",       "unroll_and_jam", "tile",          "parallelize", "vectorize",     "skew",         "fission",
      "swap",         "merge",          "separate_tail", "separate_interior", "as_lib",      "blend",         "local",        "cache",
      "cache_reduce", "cache_zeroed", "prefetch",       "var_reorder",   "var_split",   "var_merge",     "replace_array",
      "reorder",      "hoist_product",  "factor_sum",    "auto_schedule", "distribute",    "interchange_skewed"};
  if (loops.count(f)) {
    if (!st.targetName.empty()) fail(st.loc, "@name: applies to tensor expressions, not to loop nests");
    return loopStep(st);
  }
  if (f == "codegen" || f == "init") fail(c.loc, f + " is a statement and does not produce a value");
  fail(c.loc, "unknown built-in '" + f + "'");
}

Script parseTeml(const std::string& source) { return parse(source); }

TemlProgram evaluateTeml(const Script& script, const TemlOptions& options) { return Evaluator(options).run(script); }

}  // namespace teml::teml_lang
