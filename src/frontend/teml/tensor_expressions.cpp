// TeML's tensor expressions (the paper's vop, entrywise, vtranspose,
// vcontract, vouterproduct) and assignments, checked against TeIL's typing rules.
#include "frontend/teml/evaluator_state.hpp"
#include "ir/fresh_name.hpp"

namespace teml::teml_lang {

Virtual Evaluator::operand(const NodeP& n, const std::string& what) {
  const MetaValue& m = lookup(n, what);
  switch (m.type) {
    case MetaValue::Type::Tensor:
      return tensorOperand(m.tensor);
    case MetaValue::Type::Assignment:
      return tensorOperand(m.assign->tensor);
    case MetaValue::Type::Expr: {
      Virtual v = m.expr;
      std::map<std::string, ExprP> ren;
      for (auto& r : v.reductions) {
        std::string f = fresh();
        ren[r] = ir::var(f);
        r = f;
      }
      if (!ren.empty()) v.body = ir::substitute(v.body, ren);
      return v;
    }
    case MetaValue::Type::Loop:
      fail(n->loc, what + ": '" + n->name + "' is a loop nest, not a tensor");
  }
  fail(n->loc, "internal: bad value");
}

Virtual Evaluator::tensorOperand(const std::string& name) {
  const ir::TensorDecl* d = decl(name);
  Virtual v;
  v.indexed = d->shape.empty();
  v.tensor = name;
  std::vector<ExprP> idx;
  for (size_t k = 0; k < d->shape.size(); ++k) {
    v.dims.push_back(fresh());
    idx.push_back(ir::var(v.dims.back()));
  }
  v.body = ir::load(name, idx, d->dtype);
  return v;
}

std::vector<int64_t> Evaluator::shapeOf(const Virtual& v, SourceLoc loc, const std::string& what) {
  std::map<std::string, PlainUse> uses;
  plainUses(v.body, uses, loc);
  std::vector<int64_t> shape;
  for (auto& d : v.dims) {
    auto it = uses.find(d);
    if (it == uses.end())
      fail(loc, what + ": the extent of dimension " + std::to_string(shape.size() + 1) +
                    " of the operand cannot be inferred (its iterator never indexes a tensor on its own)");
    shape.push_back(it->second.extent);
  }
  return shape;
}

Virtual Evaluator::indexed(Virtual v, const NodeP& list, SourceLoc loc, const std::string& what) {
  if (!list || list->kind == Kind::Empty) {
    if (!v.indexed)
      fail(loc, what + ": tensor '" + v.tensor + "' has no iterators yet; give it an iterator list with " +
                    std::to_string(v.dims.size()) + " entr" + (v.dims.size() == 1 ? "y" : "ies"));
    return v;
  }
  if (list->kind != Kind::List) fail(list->loc, what + ": expected an iterator list such as [i1, i2]");
  if (list->kids.size() == 1 && list->kids[0]->kind == Kind::Empty && v.dims.empty()) return v;
  auto idx = iteratorList(list);
  if (idx.size() != v.dims.size())
    fail(list->loc, what + ": " + (v.indexed ? std::string("the operand") : "tensor '" + v.tensor + "'") + " has " +
                        std::to_string(v.dims.size()) + " dimension" + (v.dims.size() == 1 ? "" : "s") +
                        " but the iterator list has " + std::to_string(idx.size()) + " entr" +
                        (idx.size() == 1 ? "y" : "ies"));
  std::map<std::string, ExprP> subst;
  for (size_t k = 0; k < idx.size(); ++k) subst[v.dims[k]] = idx[k];
  Virtual out;
  out.body = ir::substitute(v.body, subst);
  out.reductions = v.reductions;
  out.dims = iteratorsOf(out.body, out.reductions);
  return out;
}

Virtual Evaluator::combine(ir::BinOp op, const Virtual& a, const Virtual& b, SourceLoc loc, const std::string& what) {
  bool additive = op == ir::BinOp::Add || op == ir::BinOp::Sub;
  if ((additive && (!a.reductions.empty() || !b.reductions.empty())) || (op == ir::BinOp::Div && !b.reductions.empty()))
    fail(loc, what +
                  ": an operand holds a contraction (vcontract), which can only be multiplied here; "
                  "contract it into a real tensor first");
  Virtual v;
  v.body = ir::binary(op, a.body, b.body);
  v.reductions = a.reductions;
  v.reductions.insert(v.reductions.end(), b.reductions.begin(), b.reductions.end());
  v.dims = iteratorsOf(v.body, v.reductions);
  std::map<std::string, PlainUse> uses;
  plainUses(v.body, uses, loc);
  return v;
}

ir::BinOp Evaluator::arith(const std::string& op) {
  if (op == "add") return ir::BinOp::Add;
  if (op == "sub") return ir::BinOp::Sub;
  if (op == "mul") return ir::BinOp::Mul;
  return ir::BinOp::Div;
}

Virtual Evaluator::vop(const Call& c, const std::string& op, const NodeP& lists) {
  if (c.args.size() < 2) fail(c.loc, c.function + " needs two operands");
  NodeP l0, l1;
  if (lists) {
    if (lists->kind != Kind::List || lists->kids.size() != 2)
      fail(lists->loc, c.function + ": expected two iterator lists [I0, I1] (either may be empty)");
    l0 = lists->kids[0];
    l1 = lists->kids[1];
  }
  Virtual a = indexed(operand(c.args[0], c.function), l0, c.args[0]->loc, c.function);
  Virtual b = indexed(operand(c.args[1], c.function), l1, c.args[1]->loc, c.function);
  return combine(arith(op), a, b, c.loc, c.function);
}

Virtual Evaluator::entrywise(const Call& c, const std::string& op) {
  if (c.args.size() < 2) fail(c.loc, c.function + " needs at least two operands");
  Virtual acc;
  std::vector<int64_t> shape;
  std::vector<std::string> iters;
  for (size_t k = 0; k < c.args.size(); ++k) {
    Virtual v = operand(c.args[k], c.function);
    auto s = shapeOf(v, c.args[k]->loc, c.function);
    if (k == 0) {
      shape = s;
      for (size_t d = 0; d < s.size(); ++d) iters.push_back(fresh());
    } else if (s != shape) {
      fail(c.args[k]->loc, c.function + ": operand '" + c.args[k]->name + "' has shape " + shapeText(s) + " but '" +
                               c.args[0]->name + "' has shape " + shapeText(shape));
    }
    std::map<std::string, ExprP> subst;
    for (size_t d = 0; d < iters.size(); ++d) subst[v.dims[d]] = ir::var(iters[d]);
    Virtual w{ir::substitute(v.body, subst), iters, v.reductions, true, ""};
    acc = k == 0 ? w : combine(arith(op), acc, w, c.loc, c.function);
  }
  acc.dims = iters;
  types::Context ctx;  // in TeIL: add (or mul) of operands of one shape (T-Add, T-Mul)
  auto e = teilVar("a0", shape, ctx);
  for (size_t k = 1; k < c.args.size(); ++k)
    e = teilOp(types::TOp::Add, {}, {e, teilVar("a" + std::to_string(k), shape, ctx)});
  agreeWithTeil(e, ctx, acc, c);
  return acc;
}

types::TExprP Evaluator::teilVar(const std::string& name, const std::vector<int64_t>& shape, types::Context& ctx) {
  ctx[name] = shape;
  return std::make_shared<types::TExpr>(types::TExpr{types::TOp::Var, name, types::RedKind::Sum, {}, {}, {}});
}

types::TExprP Evaluator::teilOp(types::TOp op, std::vector<int64_t> ints, std::vector<types::TExprP> kids) {
  return std::make_shared<types::TExpr>(
      types::TExpr{op, "", types::RedKind::Sum, std::move(ints), std::move(kids), {}});
}

void Evaluator::agreeWithTeil(const types::TExprP& e, const types::Context& ctx, const Virtual& result, const Call& c) {
  types::Shape s;
  try {
    s = types::typeOf(*e, ctx);
  } catch (const UserError& err) {
    fail(c.loc, c.function + ": " + err.what());
  }
  auto mine = shapeOf(result, c.loc, c.function);
  if (s != mine)
    throw InternalError(c.function + ": TeML infers the shape " + types::shapeText(mine) + " but TeIL's rules give " +
                        types::shapeText(s) + " (" + types::toString(*e) + ")");
}

std::vector<std::pair<int64_t, int64_t>> Evaluator::pairs(const NodeP& n, const std::string& what) {
  if (n->kind != Kind::List) fail(n->loc, what + ": expected a list of dimension pairs such as [[1, 2]]");
  std::vector<std::pair<int64_t, int64_t>> out;
  if (!n->kids.empty() && n->kids[0]->kind != Kind::List) {
    if (n->kids.size() != 2) fail(n->loc, what + ": expected a pair of dimensions [r0, r1]");
    out.push_back({intArg(n->kids[0], what), intArg(n->kids[1], what)});
    return out;
  }
  for (auto& p : n->kids) {
    if (p->kind != Kind::List || p->kids.size() != 2) fail(p->loc, what + ": expected a pair of dimensions [r0, r1]");
    out.push_back({intArg(p->kids[0], what), intArg(p->kids[1], what)});
  }
  if (out.empty()) fail(n->loc, what + ": no dimension pairs given");
  return out;
}

Virtual Evaluator::instantiate(const Virtual& v, std::vector<std::string>& iters) {
  iters.clear();
  std::map<std::string, ExprP> subst;
  for (auto& d : v.dims) {
    iters.push_back(fresh());
    subst[d] = ir::var(iters.back());
  }
  return Virtual{ir::substitute(v.body, subst), iters, v.reductions, true, ""};
}

Virtual Evaluator::vtranspose(const Call& c) {
  if (c.args.size() != 2) fail(c.loc, c.function + "(t, [[r1, r2], ...]) takes two arguments");
  Virtual v = operand(c.args[0], c.function);
  shapeOf(v, c.args[0]->loc, c.function);
  std::vector<std::string> iters;
  Virtual w = instantiate(v, iters);
  std::vector<std::string> permuted = iters;
  for (auto [r1, r2] : pairs(c.args[1], c.function)) {
    for (int64_t r : {r1, r2})
      if (r < 1 || r > static_cast<int64_t>(iters.size()))
        fail(c.args[1]->loc, c.function + ": dimension " + std::to_string(r) + " does not exist; the operand has " +
                                 std::to_string(iters.size()));
    std::swap(permuted[r1 - 1], permuted[r2 - 1]);
  }
  w.dims = permuted;
  types::Context ctx;  // in TeIL: transp r1 r2 (...), the first pair innermost
  auto e = teilVar("t", shapeOf(v, c.args[0]->loc, c.function), ctx);
  for (auto [r1, r2] : pairs(c.args[1], c.function)) e = teilOp(types::TOp::Transp, {r1, r2}, {e});
  agreeWithTeil(e, ctx, w, c);
  return w;
}

Virtual Evaluator::vcontract(const Call& c) {
  if (c.args.size() != 3) fail(c.loc, c.function + "(a, b, [r0, r1]) takes three arguments");
  Virtual a = operand(c.args[0], c.function), b = operand(c.args[1], c.function);
  auto sa = shapeOf(a, c.args[0]->loc, c.function), sb = shapeOf(b, c.args[1]->loc, c.function);
  std::vector<std::string> ia, ib;
  Virtual wa = instantiate(a, ia), wb = instantiate(b, ib);
  std::set<int64_t> usedA, usedB;
  std::vector<std::string> reduced;
  std::map<std::string, ExprP> unify;
  for (auto [r0, r1] : pairs(c.args[2], c.function)) {
    if (r0 < 1 || r0 > static_cast<int64_t>(sa.size()))
      fail(c.args[2]->loc, c.function + ": dimension " + std::to_string(r0) + " of '" + c.args[0]->name +
                               "' does not exist (it has " + std::to_string(sa.size()) + ")");
    if (r1 < 1 || r1 > static_cast<int64_t>(sb.size()))
      fail(c.args[2]->loc, c.function + ": dimension " + std::to_string(r1) + " of '" + c.args[1]->name +
                               "' does not exist (it has " + std::to_string(sb.size()) + ")");
    if (!usedA.insert(r0).second || !usedB.insert(r1).second)
      fail(c.args[2]->loc, c.function + ": a dimension is contracted twice");
    if (sa[r0 - 1] != sb[r1 - 1])
      fail(c.args[2]->loc, c.function + ": dimension " + std::to_string(r0) + " of '" + c.args[0]->name +
                               "' has extent " + std::to_string(sa[r0 - 1]) + " but dimension " + std::to_string(r1) +
                               " of '" + c.args[1]->name + "' has extent " + std::to_string(sb[r1 - 1]));
    unify[ib[r1 - 1]] = ir::var(ia[r0 - 1]);
    reduced.push_back(ia[r0 - 1]);
  }
  Virtual v;
  v.body = ir::mul(wa.body, ir::substitute(wb.body, unify));
  v.reductions = wa.reductions;
  v.reductions.insert(v.reductions.end(), wb.reductions.begin(), wb.reductions.end());
  v.reductions.insert(v.reductions.end(), reduced.begin(), reduced.end());
  for (size_t k = 0; k < ia.size(); ++k)
    if (!usedA.count(k + 1)) v.dims.push_back(ia[k]);
  for (size_t k = 0; k < ib.size(); ++k)
    if (!usedB.count(k + 1)) v.dims.push_back(ib[k]);
  // In TeIL: contr ... (prod a b), one contraction per pair, positions in
  // the product's remaining dimensions.
  types::Context ctx;
  auto e = teilOp(types::TOp::Prod, {}, {teilVar("a", sa, ctx), teilVar("b", sb, ctx)});
  std::vector<int64_t> labels;
  for (size_t k = 0; k < sa.size() + sb.size(); ++k) labels.push_back(static_cast<int64_t>(k));
  for (auto [r0, r1] : pairs(c.args[2], c.function)) {
    auto p = std::find(labels.begin(), labels.end(), r0 - 1) - labels.begin();
    auto q = std::find(labels.begin(), labels.end(), static_cast<int64_t>(sa.size()) + r1 - 1) - labels.begin();
    e = teilOp(types::TOp::Contr, {std::min(p, q) + 1, std::max(p, q) + 1}, {e});
    labels.erase(labels.begin() + std::max(p, q));
    labels.erase(labels.begin() + std::min(p, q));
  }
  agreeWithTeil(e, ctx, v, c);
  return v;
}

Virtual Evaluator::vouterproduct(const Call& c) {
  if (c.args.size() < 2) fail(c.loc, c.function + " needs at least two operands");
  std::vector<Virtual> parts;
  for (auto& a : c.args) {
    Virtual v = operand(a, c.function);
    shapeOf(v, a->loc, c.function);
    std::vector<std::string> iters;
    parts.push_back(instantiate(v, iters));
  }
  Virtual out = parts.back();
  for (size_t k = parts.size() - 1; k-- > 0;) {
    Virtual v;
    v.body = ir::mul(parts[k].body, out.body);
    v.reductions = parts[k].reductions;
    v.reductions.insert(v.reductions.end(), out.reductions.begin(), out.reductions.end());
    v.dims = parts[k].dims;
    v.dims.insert(v.dims.end(), out.dims.begin(), out.dims.end());
    out = v;
  }
  types::Context ctx;  // in TeIL: prod a0 (prod a1 (...))
  types::TExprP e;
  for (size_t k = parts.size(); k-- > 0;) {
    auto x = teilVar("a" + std::to_string(k), shapeOf(parts[k], c.args[k]->loc, c.function), ctx);
    e = e ? teilOp(types::TOp::Prod, {}, {x, e}) : x;
  }
  agreeWithTeil(e, ctx, out, c);
  return out;
}

bool Evaluator::accumulatesInto(const std::string& target, const NodeP& first, const NodeP& lists,
                                const std::vector<ExprP>& targetIdx) {
  if (first->kind != Kind::Name) return false;
  auto it = state_.find(first->name);
  if (it == state_.end()) return false;
  const MetaValue& m = it->second;
  std::string tensor = m.type == MetaValue::Type::Tensor       ? m.tensor
                       : m.type == MetaValue::Type::Assignment ? m.assign->tensor
                                                               : "";
  if (tensor != target || !lists || lists->kind != Kind::List || lists->kids.size() != 2 ||
      lists->kids[0]->kind != Kind::List)
    return false;
  auto idx = iteratorList(lists->kids[0]);
  if (idx.size() != targetIdx.size()) return false;
  for (size_t k = 0; k < idx.size(); ++k)
    if (!ir::equal(idx[k], targetIdx[k])) return false;
  return true;
}

std::shared_ptr<frontend::Assignment> Evaluator::assignment(const std::string& target, std::vector<ExprP> targetIdx,
                                                         const Virtual& v, SourceLoc loc,
                                                         std::optional<ir::ReduceOp> accumulate) {
  auto a = std::make_shared<frontend::Assignment>();
  a->reduce = accumulate;
  a->tensor = target;
  a->indices = targetIdx;
  a->loc = loc;
  ExprP value = v.body;

  std::map<std::string, PlainUse> rhs;
  plainUses(value, rhs, loc);
  for (auto& r : v.reductions)
    if (!rhs.count(r)) fail(loc, "internal: contracted dimension has no extent");

  const ir::TensorDecl* d = decl(target);
  if (!d) {
    ir::TensorDecl nd;
    nd.name = target;
    nd.dtype = ir::DType::F32;
    ir::forEachExpr(value, [&](const ExprP& e) {
      if (e->kind == ir::ExprKind::Load && decl(e->as<ir::Load>().tensor)->dtype == ir::DType::F64)
        nd.dtype = ir::DType::F64;
    });
    bool anyLoad = false;
    ir::forEachExpr(value, [&](const ExprP& e) { anyLoad |= e->kind == ir::ExprKind::Load; });
    if (!anyLoad) nd.dtype = ir::DType::F64;
    for (size_t k = 0; k < targetIdx.size(); ++k) {
      auto& idx = targetIdx[k];
      if (idx->kind != ir::ExprKind::Var || !rhs.count(idx->as<ir::Var>().name))
        fail(loc, "the shape of '" + target + "' cannot be inferred from index " + ir::toString(idx) +
                      "; declare it with tensor([...]) first");
      nd.shape.push_back(rhs.at(idx->as<ir::Var>().name).extent);
    }
    program_.tensors.push_back(nd);
    d = decl(target);
  } else if (d->shape.size() != targetIdx.size()) {
    fail(loc, "tensor '" + target + "' has " + std::to_string(d->shape.size()) + " dimensions but is assigned with " +
                  std::to_string(targetIdx.size()) + " indices");
  }

  // Accumulation: target = target op e  ->  target op= e.
  if (!a->reduce && value->kind == ir::ExprKind::Binary) {
    auto& b = value->as<ir::Binary>();
    bool readsTarget = b.a->kind == ir::ExprKind::Load && ir::equal(b.a, ir::load(target, targetIdx, d->dtype));
    if (readsTarget && (b.op == ir::BinOp::Add || b.op == ir::BinOp::Mul)) {
      a->reduce = b.op == ir::BinOp::Add ? ir::ReduceOp::Add : ir::ReduceOp::Mul;
      value = b.b;
    }
  }
  if (!v.reductions.empty()) {
    if (a->reduce == ir::ReduceOp::Mul) fail(loc, "a contraction cannot be accumulated with mul");
    a->reduce = ir::ReduceOp::Add;
  }
  a->value = value;

  // Iterator order: an accumulation starts with the target's iterators
  // (the paper's contract is target = add(target, ...)); an assignment
  // follows the right-hand side.
  ExprP targetLoad = ir::load(target, targetIdx, d->dtype);
  std::vector<std::string> lhsIters = iteratorsOf(targetLoad, {}), rhsIters = iteratorsOf(value, {});
  auto& first = a->reduce ? lhsIters : rhsIters;
  auto& second = a->reduce ? rhsIters : lhsIters;
  a->order = first;
  for (auto& it : second)
    if (std::find(a->order.begin(), a->order.end(), it) == a->order.end()) a->order.push_back(it);

  // Ranges: from the target where an iterator indexes it alone, else from the right-hand side.
  std::map<std::string, PlainUse> lhs;
  notePlainUses(target, targetIdx, lhs, loc);
  for (auto& it : a->order) {
    if (lhs.count(it))
      a->extents[it] = lhs.at(it).extent;
    else if (rhs.count(it))
      a->extents[it] = rhs.at(it).extent;
    else
      fail(loc, "the range of iterator " + iterName(it) +
                    " cannot be inferred: it never indexes a tensor dimension on its own");
  }
  checkBounds(*a, loc);
  renameFreshIterators(*a);
  return a;
}

void Evaluator::checkBounds(const frontend::Assignment& a, SourceLoc loc) {
  ir::Ranges ranges;
  for (auto& [it, n] : a.extents) {
    if (n <= 0) fail(loc, "iterator " + iterName(it) + " has an empty range (extent " + std::to_string(n) + ")");
    ranges[it] = {0, n - 1};
  }
  auto check = [&](const std::string& t, const std::vector<ExprP>& idx) {
    auto* d = decl(t);
    for (size_t k = 0; k < idx.size(); ++k) {
      ir::Interval iv;
      if (!ir::bounds(idx[k], ranges, &iv)) fail(loc, "cannot bound index " + ir::toString(idx[k]));
      if (iv.lo < 0 || iv.hi >= d->shape[k])
        fail(loc, "access " + accessText(t, idx) + " leaves tensor '" + t + "': index " + ir::toString(idx[k]) +
                      " ranges over [" + std::to_string(iv.lo) + ", " + std::to_string(iv.hi) + "] but dimension " +
                      std::to_string(k + 1) + " has extent " + std::to_string(d->shape[k]));
    }
  };
  check(a.tensor, a.indices);
  ir::forEachExpr(a.value, [&](const ExprP& e) {
    if (e->kind == ir::ExprKind::Load) {
      auto& l = e->as<ir::Load>();
      check(l.tensor, l.indices);
    }
  });
}

void Evaluator::renameFreshIterators(frontend::Assignment& a) {
  std::set<std::string> taken;
  for (auto& it : a.order)
    if (!isFreshIterator(it)) taken.insert(it);
  std::map<std::string, ExprP> ren;
  std::map<std::string, int64_t> extents;
  for (size_t k = 0; k < a.order.size(); ++k) {
    std::string& it = a.order[k];
    std::string name = it;
    if (isFreshIterator(it)) {
      name = ir::freshName("i" + std::to_string(k + 1), taken);
      ren[it] = ir::var(name);
    }
    extents[name] = a.extents.at(it);
    it = name;
  }
  if (ren.empty()) return;
  a.extents = extents;
  a.value = ir::substitute(a.value, ren);
  for (auto& i : a.indices) i = ir::substitute(i, ren);
}

std::vector<ExprP> Evaluator::dimVars(const Virtual& v) {
  std::vector<ExprP> out;
  for (auto& d : v.dims) out.push_back(ir::var(d));
  return out;
}

}  // namespace teml::teml_lang
