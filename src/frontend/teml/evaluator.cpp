#include "frontend/teml/evaluator.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>

#include "analysis/affine.hpp"
#include "analysis/concurrency.hpp"
#include "analysis/legality.hpp"
#include "analysis/locals.hpp"
#include "frontend/teml/ast.hpp"
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

namespace {

std::string shapeText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string accessText(const std::string& t, const std::vector<ExprP>& idx) {
  std::string s = t;
  for (auto& i : idx) s += "[" + ir::toString(i) + "]";
  return s;
}

struct MetaValue {
  enum class Type { Tensor, Expr, Assignment, Loop } type;
  std::string tensor;                              // Tensor
  Virtual expr;                                    // Expr
  std::shared_ptr<const lower::Assignment> assign; // Assignment
  StmtP loop;                                      // Loop
};

const char* typeWord(MetaValue::Type t) {
  switch (t) {
    case MetaValue::Type::Tensor: return "a tensor";
    case MetaValue::Type::Expr: return "a tensor expression";
    case MetaValue::Type::Assignment: return "an assignment";
    case MetaValue::Type::Loop: return "a loop nest";
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
      : options_(o), schedule_(program_, schedule::ScheduleOptions{o.checkLegality, o.analysisCacheDir}) {}

  ir::Program run(const Script& script) {
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
  TemlStats stats() const { return TemlStats{schedule_.stats().analysisSeconds, schedule_.stats().checks}; }

 private:
  // ---------------------------------------------------------------- helpers
  [[noreturn]] void fail(SourceLoc loc, const std::string& msg) { throw UserError(loc, msg); }

  const ir::TensorDecl* decl(const std::string& name) const { return program_.find(name); }

  std::string fresh() { return "%" + std::to_string(++freshCounter_); }

  const MetaValue& lookup(const NodeP& n, const std::string& what) {
    if (n->kind != Kind::Name) fail(n->loc, what + ": expected an identifier");
    auto it = state_.find(n->name);
    if (it == state_.end()) fail(n->loc, "'" + n->name + "' is not defined");
    return it->second;
  }

  int64_t intArg(const NodeP& n, const std::string& what) {
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

  // Size expressions: integers, size parameters and + - *.
  int64_t sizeValue(const NodeP& n) {
    switch (n->kind) {
      case Kind::Int: return n->intValue;
      case Kind::Name: {
        auto it = options_.sizes.find(n->name);
        if (it == options_.sizes.end())
          fail(n->loc, "size parameter '" + n->name + "' is not bound (use --set " + n->name + "=VALUE)");
        return it->second;
      }
      case Kind::Add: return sizeValue(n->kids[0]) + sizeValue(n->kids[1]);
      case Kind::Sub: return sizeValue(n->kids[0]) - sizeValue(n->kids[1]);
      case Kind::Mul: return sizeValue(n->kids[0]) * sizeValue(n->kids[1]);
      case Kind::Neg: return -sizeValue(n->kids[0]);
      default: fail(n->loc, "expected a size (an integer or a size parameter)");
    }
  }

  // Index expressions of iterator lists: iterators, integers, + - and products with a constant.
  ExprP indexExpr(const NodeP& n) {
    switch (n->kind) {
      case Kind::Int: return ir::intConst(n->intValue);
      case Kind::Name: {
        if (options_.sizes.count(n->name)) return ir::intConst(options_.sizes.at(n->name));
        return ir::var(n->name);
      }
      case Kind::Add: return ir::add(indexExpr(n->kids[0]), indexExpr(n->kids[1]));
      case Kind::Sub: return ir::sub(indexExpr(n->kids[0]), indexExpr(n->kids[1]));
      case Kind::Neg: return ir::sub(ir::intConst(0), indexExpr(n->kids[0]));
      case Kind::Mul: {
        ExprP a = indexExpr(n->kids[0]), b = indexExpr(n->kids[1]);
        int64_t c;
        if (!ir::constValue(a, &c) && !ir::constValue(b, &c))
          fail(n->loc, "index expressions must be affine: a product needs a constant factor");
        return ir::mul(a, b);
      }
      default: fail(n->loc, "expected an iterator or an affine index expression");
    }
  }

  std::vector<ExprP> iteratorList(const NodeP& n) {
    if (n->kind != Kind::List) fail(n->loc, "expected an iterator list such as [i1, i2]");
    std::vector<ExprP> out;
    for (auto& item : n->kids) {
      if (item->kind == Kind::Empty) fail(item->loc, "empty entry in an iterator list");
      out.push_back(indexExpr(item));
    }
    return out;
  }

  // Iterators of `body` in order of first appearance, except `skip`.
  static std::vector<std::string> iteratorsOf(const ExprP& body, const std::vector<std::string>& skip) {
    std::vector<std::string> out;
    ir::forEachExpr(body, [&](const ExprP& e) {
      if (e->kind != ir::ExprKind::Var) return;
      auto& n = static_cast<const ir::Var&>(*e).name;
      if (std::find(skip.begin(), skip.end(), n) == skip.end() && std::find(out.begin(), out.end(), n) == out.end())
        out.push_back(n);
    });
    return out;
  }

  // Records plain uses of iterators in loads of `e`; refuses disagreeing extents.
  void plainUses(const ExprP& e, std::map<std::string, PlainUse>& uses, SourceLoc loc) {
    ir::forEachExpr(e, [&](const ExprP& x) {
      if (x->kind != ir::ExprKind::Load) return;
      auto& l = static_cast<const ir::Load&>(*x);
      notePlainUses(l.tensor, l.indices, uses, loc);
    });
  }

  void notePlainUses(const std::string& tensor, const std::vector<ExprP>& idx,
                     std::map<std::string, PlainUse>& uses, SourceLoc loc) {
    auto* d = decl(tensor);
    for (size_t k = 0; k < idx.size() && d && k < d->shape.size(); ++k) {
      if (idx[k]->kind != ir::ExprKind::Var) continue;
      auto& v = static_cast<const ir::Var&>(*idx[k]).name;
      PlainUse u{d->shape[k], tensor, k};
      auto [it, inserted] = uses.emplace(v, u);
      if (!inserted && it->second.extent != u.extent)
        fail(loc, "iterator " + iterName(v) + " indexes dimensions of different extents: dimension " +
                      std::to_string(it->second.dim + 1) + " of '" + it->second.tensor + "' (" +
                      std::to_string(it->second.extent) + ") and dimension " + std::to_string(k + 1) +
                      " of '" + tensor + "' (" + std::to_string(u.extent) + ")");
    }
  }

  static std::string iterName(const std::string& v) {
    return isFreshIterator(v) ? "(a contracted or implicit dimension)" : "'" + v + "'";
  }

  // ---------------------------------------------------------------- tensor expressions
  // The value `id` names, as a tensor expression. Reductions are renamed so
  // that two uses of one vcontract sum independently.
  Virtual operand(const NodeP& n, const std::string& what) {
    const MetaValue& m = lookup(n, what);
    switch (m.type) {
      case MetaValue::Type::Tensor: return tensorOperand(m.tensor);
      case MetaValue::Type::Assignment: return tensorOperand(m.assign->tensor);
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

  Virtual tensorOperand(const std::string& name) {
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

  std::vector<int64_t> shapeOf(const Virtual& v, SourceLoc loc, const std::string& what) {
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

  // v indexed by `list` (null or Empty: keep its own iterators).
  Virtual indexed(Virtual v, const NodeP& list, SourceLoc loc, const std::string& what) {
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
      fail(list->loc, what + ": " + (v.indexed ? std::string("the operand") : "tensor '" + v.tensor + "'") +
                          " has " + std::to_string(v.dims.size()) + " dimension" + (v.dims.size() == 1 ? "" : "s") +
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

  Virtual combine(ir::BinOp op, const Virtual& a, const Virtual& b, SourceLoc loc, const std::string& what) {
    bool additive = op == ir::BinOp::Add || op == ir::BinOp::Sub;
    if ((additive && (!a.reductions.empty() || !b.reductions.empty())) ||
        (op == ir::BinOp::Div && !b.reductions.empty()))
      fail(loc, what + ": an operand holds a contraction (vcontract), which can only be multiplied here; "
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

  static ir::BinOp arith(const std::string& op) {
    if (op == "add") return ir::BinOp::Add;
    if (op == "sub") return ir::BinOp::Sub;
    if (op == "mul") return ir::BinOp::Mul;
    return ir::BinOp::Div;
  }

  // vop(t0, t1, [I0, I1])
  Virtual vop(const Call& c, const std::string& op, const NodeP& lists) {
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

  Virtual entrywise(const Call& c, const std::string& op) {
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
        fail(c.args[k]->loc, c.function + ": operand '" + c.args[k]->name + "' has shape " + shapeText(s) +
                                 " but '" + c.args[0]->name + "' has shape " + shapeText(shape));
      }
      std::map<std::string, ExprP> subst;
      for (size_t d = 0; d < iters.size(); ++d) subst[v.dims[d]] = ir::var(iters[d]);
      Virtual w{ir::substitute(v.body, subst), iters, v.reductions, true, ""};
      acc = k == 0 ? w : combine(arith(op), acc, w, c.loc, c.function);
    }
    acc.dims = iters;
    types::Context ctx;  // in TeIL: add (or mul) of operands of one shape (T-Add, T-Mul)
    auto e = teilVar("a0", shape, ctx);
    for (size_t k = 1; k < c.args.size(); ++k) e = teilOp(types::TOp::Add, {}, {e, teilVar("a" + std::to_string(k), shape, ctx)});
    agreeWithTeil(e, ctx, acc, c);
    return acc;
  }

  // TeML's shape inference must agree with TeIL's typing rules (types/): the
  // same operation written in TeIL over operands of the same shapes gets the
  // same shape, or it is refused by the rule it breaks.
  types::TExprP teilVar(const std::string& name, const std::vector<int64_t>& shape, types::Context& ctx) {
    ctx[name] = shape;
    return std::make_shared<types::TExpr>(types::TExpr{types::TOp::Var, name, types::RedKind::Sum, {}, {}, {}});
  }
  types::TExprP teilOp(types::TOp op, std::vector<int64_t> ints, std::vector<types::TExprP> kids) {
    return std::make_shared<types::TExpr>(types::TExpr{op, "", types::RedKind::Sum, std::move(ints), std::move(kids), {}});
  }
  void agreeWithTeil(const types::TExprP& e, const types::Context& ctx, const Virtual& result, const Call& c) {
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

  // [[r1, r2], ...] or [r1, r2]: pairs of 1-based positions.
  std::vector<std::pair<int64_t, int64_t>> pairs(const NodeP& n, const std::string& what) {
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

  // Fresh iterators for every dimension of v.
  Virtual instantiate(const Virtual& v, std::vector<std::string>& iters) {
    iters.clear();
    std::map<std::string, ExprP> subst;
    for (auto& d : v.dims) {
      iters.push_back(fresh());
      subst[d] = ir::var(iters.back());
    }
    return Virtual{ir::substitute(v.body, subst), iters, v.reductions, true, ""};
  }

  Virtual vtranspose(const Call& c) {
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

  Virtual vcontract(const Call& c) {
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
                                 "' has extent " + std::to_string(sa[r0 - 1]) + " but dimension " +
                                 std::to_string(r1) + " of '" + c.args[1]->name + "' has extent " +
                                 std::to_string(sb[r1 - 1]));
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

  Virtual vouterproduct(const Call& c) {
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

  // ---------------------------------------------------------------- assignments
  // target[targetIdx] = v (an accumulation when v reads the target at the same
  // element first, or when v holds contractions: the target accumulates as in
  // the paper's definition of contract).
  // Is `first` (indexed by lists[0]) the target element itself?
  bool accumulatesInto(const std::string& target, const NodeP& first, const NodeP& lists,
                       const std::vector<ExprP>& targetIdx) {
    if (first->kind != Kind::Name) return false;
    auto it = state_.find(first->name);
    if (it == state_.end()) return false;
    const MetaValue& m = it->second;
    std::string tensor = m.type == MetaValue::Type::Tensor ? m.tensor
                       : m.type == MetaValue::Type::Assignment ? m.assign->tensor : "";
    if (tensor != target || !lists || lists->kind != Kind::List || lists->kids.size() != 2 ||
        lists->kids[0]->kind != Kind::List)
      return false;
    auto idx = iteratorList(lists->kids[0]);
    if (idx.size() != targetIdx.size()) return false;
    for (size_t k = 0; k < idx.size(); ++k)
      if (!ir::equal(idx[k], targetIdx[k])) return false;
    return true;
  }

  std::shared_ptr<lower::Assignment> assignment(const std::string& target, std::vector<ExprP> targetIdx,
                                                const Virtual& v, SourceLoc loc,
                                                std::optional<ir::ReduceOp> accumulate = std::nullopt) {
    auto a = std::make_shared<lower::Assignment>();
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
        if (e->kind == ir::ExprKind::Load && decl(static_cast<const ir::Load&>(*e).tensor)->dtype == ir::DType::F64)
          nd.dtype = ir::DType::F64;
      });
      bool anyLoad = false;
      ir::forEachExpr(value, [&](const ExprP& e) { anyLoad |= e->kind == ir::ExprKind::Load; });
      if (!anyLoad) nd.dtype = ir::DType::F64;
      for (size_t k = 0; k < targetIdx.size(); ++k) {
        auto& idx = targetIdx[k];
        if (idx->kind != ir::ExprKind::Var || !rhs.count(static_cast<const ir::Var&>(*idx).name))
          fail(loc, "the shape of '" + target + "' cannot be inferred from index " + ir::toString(idx) +
                        "; declare it with tensor([...]) first");
        nd.shape.push_back(rhs.at(static_cast<const ir::Var&>(*idx).name).extent);
      }
      program_.tensors.push_back(nd);
      d = decl(target);
    } else if (d->shape.size() != targetIdx.size()) {
      fail(loc, "tensor '" + target + "' has " + std::to_string(d->shape.size()) + " dimensions but is assigned with " +
                    std::to_string(targetIdx.size()) + " indices");
    }

    // Accumulation: target = target op e  ->  target op= e.
    if (!a->reduce && value->kind == ir::ExprKind::Binary) {
      auto& b = static_cast<const ir::Binary&>(*value);
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
      if (lhs.count(it)) a->extents[it] = lhs.at(it).extent;
      else if (rhs.count(it)) a->extents[it] = rhs.at(it).extent;
      else
        fail(loc, "the range of iterator " + iterName(it) +
                      " cannot be inferred: it never indexes a tensor dimension on its own");
    }
    checkBounds(*a, loc);
    renameFreshIterators(*a);
    return a;
  }

  // Every access stays inside its tensor for all iterator values.
  void checkBounds(const lower::Assignment& a, SourceLoc loc) {
    analysis::Ranges ranges;
    for (auto& [it, n] : a.extents) {
      if (n <= 0) fail(loc, "iterator " + iterName(it) + " has an empty range (extent " + std::to_string(n) + ")");
      ranges[it] = {0, n - 1};
    }
    auto check = [&](const std::string& t, const std::vector<ExprP>& idx) {
      auto* d = decl(t);
      for (size_t k = 0; k < idx.size(); ++k) {
        analysis::Interval iv;
        if (!analysis::bounds(idx[k], ranges, &iv)) fail(loc, "cannot bound index " + ir::toString(idx[k]));
        if (iv.lo < 0 || iv.hi >= d->shape[k])
          fail(loc, "access " + accessText(t, idx) + " leaves tensor '" + t + "': index " + ir::toString(idx[k]) +
                        " ranges over [" + std::to_string(iv.lo) + ", " + std::to_string(iv.hi) + "] but dimension " +
                        std::to_string(k + 1) + " has extent " + std::to_string(d->shape[k]));
      }
    };
    check(a.tensor, a.indices);
    ir::forEachExpr(a.value, [&](const ExprP& e) {
      if (e->kind == ir::ExprKind::Load) {
        auto& l = static_cast<const ir::Load&>(*e);
        check(l.tensor, l.indices);
      }
    });
  }

  // Implicit iterators get readable names: i<level>, avoiding the program's own.
  static void renameFreshIterators(lower::Assignment& a) {
    std::set<std::string> taken;
    for (auto& it : a.order)
      if (!isFreshIterator(it)) taken.insert(it);
    std::map<std::string, ExprP> ren;
    std::map<std::string, int64_t> extents;
    for (size_t k = 0; k < a.order.size(); ++k) {
      std::string& it = a.order[k];
      std::string name = it;
      if (isFreshIterator(it)) {
        name = schedule::freshName("i" + std::to_string(k + 1), taken);
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

  std::vector<ExprP> dimVars(const Virtual& v) {
    std::vector<ExprP> out;
    for (auto& d : v.dims) out.push_back(ir::var(d));
    return out;
  }

  // ---------------------------------------------------------------- loops
  StmtP loopArg(const NodeP& n, const std::string& what) {
    const MetaValue& m = lookup(n, what);
    if (m.type == MetaValue::Type::Loop) {
      currentNest_ = m.loop;  // where level arguments given as iterator names are looked up
      return m.loop;
    }
    fail(n->loc, what + ": '" + n->name + "' is " + typeWord(m.type) + ", not a loop nest" +
                     (m.type == MetaValue::Type::Assignment ? " (build it first)" : ""));
  }

  void arity(const Call& c, size_t lo, size_t hi, const std::string& usage) {
    if (c.args.size() < lo || c.args.size() > hi) fail(c.loc, c.function + " takes " + usage);
  }

  StmtP loopExpr(const Call& c) {
    const std::string& f = c.function;
    try {
      if (f == "build") {
        arity(c, 1, 1, "one argument: build(assignment)");
        const MetaValue& m = lookup(c.args[0], f);
        if (m.type != MetaValue::Type::Assignment)
          fail(c.args[0]->loc, "build: '" + c.args[0]->name + "' is " + typeWord(m.type) +
                                   "; build wraps loops around an assignment (eq, op, contract, ...)");
        return build(*m.assign);
      }
      if (f == "stripmine") {
        arity(c, 3, 3, "stripmine(l, level, factor)");
        return schedule_.stripmine(loopArg(c.args[0], f), level(c.args[1], f), intArg(c.args[2], f));
      }
      if (f == "stripmine_n") {
        arity(c, 3, 3, "stripmine_n(l, n, factor)");
        return schedule_.stripmineN(loopArg(c.args[0], f), level(c.args[1], f), intArg(c.args[2], f));
      }
      if (f == "interchange") {
        StmtP l = loopArg(c.args[0], f);
        if (c.args.size() == 2 && c.args[1]->kind == Kind::List && c.args[1]->kids.size() == 2)
          return schedule_.interchange(l, level(c.args[1]->kids[0], f), level(c.args[1]->kids[1], f));
        arity(c, 3, 3, "interchange(l, level1, level2)");
        return schedule_.interchange(l, level(c.args[1], f), level(c.args[2], f));
      }
      if (f == "interchange_n") {
        arity(c, 3, 3, "interchange_n(l, level, n)");
        StmtP l = loopArg(c.args[0], f);
        return schedule_.interchangeN(l, level(c.args[1], f), intArg(c.args[2], f));
      }
      if (f == "fuse_outer") {
        arity(c, 3, 3, "fuse_outer(l1, l2, level)");
        StmtP a = loopArg(c.args[0], f), b = loopArg(c.args[1], f);
        return schedule_.fuseOuter(a, b, level(c.args[2], f));
      }
      if (f == "fuse_inner") {
        arity(c, 2, 2, "fuse_inner(l, level)");
        StmtP l = loopArg(c.args[0], f);
        return schedule_.fuseInner(l, level(c.args[1], f));
      }
      if (f == "unroll") {
        arity(c, 2, 3, "unroll(l, level) or unroll(l, level, factor)");
        if (c.args.size() == 3) return schedule_.unrollPartial(loopArg(c.args[0], f), level(c.args[1], f), intArg(c.args[2], f));
        return schedule_.unroll(loopArg(c.args[0], f), level(c.args[1], f));
      }
      if (f == "unroll_and_jam") {
        arity(c, 3, 3, "unroll_and_jam(l, level, factor)");
        StmtP l = loopArg(c.args[0], f);
        return schedule_.unrollAndJam(l, level(c.args[1], f), intArg(c.args[2], f));
      }
      if (f == "tile") {
        arity(c, 2, 2, "tile(l, factor)");
        StmtP l = loopArg(c.args[0], f);
        return schedule_.tile(l, intArg(c.args[1], f));
      }
      if (f == "skew") {
        arity(c, 4, 4, "skew(l, level1, level2, factor)");
        StmtP l = loopArg(c.args[0], f);
        return schedule_.skew(l, level(c.args[1], f), level(c.args[2], f), intArg(c.args[3], f));
      }
      if (f == "fission") {
        arity(c, 3, 3, "fission(l, level, k)");
        StmtP l = loopArg(c.args[0], f);
        return schedule_.fission(l, level(c.args[1], f), static_cast<int>(intArg(c.args[2], f)));
      }
      if (f == "swap") {
        arity(c, 4, 4, "swap(l, level, a, b)");
        StmtP l = loopArg(c.args[0], f);
        int64_t r = intArg(c.args[1], f);
        if (r < 0 || r > 1000) fail(c.args[1]->loc, "swap: level " + std::to_string(r) + " does not exist");
        return schedule_.swap(l, static_cast<int>(r), static_cast<int>(intArg(c.args[2], f)),
                              static_cast<int>(intArg(c.args[3], f)));
      }
      if (f == "merge") {
        arity(c, 2, 2, "merge(l, level)");
        StmtP l = loopArg(c.args[0], f);
        return schedule_.merge(l, level(c.args[1], f));
      }
      if (f == "blend") {
        arity(c, 2, 2, "blend(l, level)");
        StmtP l = loopArg(c.args[0], f);
        return schedule_.blend(l, level(c.args[1], f));
      }
      if (f == "local") {
        arity(c, 3, 3, "local(l, level, tensor)");
        StmtP l = loopArg(c.args[0], f);
        return schedule_.makeLocal(l, level(c.args[1], f), tensorArg(c.args[2], f), c.loc.line);
      }
      if (f == "cache" || f == "cache_reduce") {
        arity(c, 3, 3, f + "(l, level, tensor)");
        StmtP l = loopArg(c.args[0], f);
        return schedule_.cache(l, level(c.args[1], f), tensorArg(c.args[2], f), f == "cache_reduce", c.loc.line, nullptr);
      }
      if (f == "prefetch") {
        arity(c, 2, 3, "prefetch(l, copy) or prefetch(l, copy, distance)");
        StmtP l = loopArg(c.args[0], f);
        std::string copy = localTensorArg(c.args[1], f);
        return schedule_.prefetch(l, copy, c.args.size() == 3 ? intArg(c.args[2], f) : 1);
      }
      if (f == "var_reorder" || f == "var_split" || f == "var_merge") {
        if (f == "var_reorder") arity(c, 3, 3, "var_reorder(l, tensor, [dimensions in their new order])");
        if (f == "var_split") arity(c, 4, 4, "var_split(l, tensor, dimension, factor)");
        if (f == "var_merge") arity(c, 3, 3, "var_merge(l, tensor, dimension)");
        StmtP l = loopArg(c.args[0], f);
        std::string t = localTensorArg(c.args[1], f);
        if (f == "var_split")
          return schedule_.varSplit(l, t, dimension(c.args[2], f), intArg(c.args[3], f));
        if (f == "var_merge") return schedule_.varMerge(l, t, dimension(c.args[2], f));
        const NodeP& list = c.args[2];
        if (list->kind != Kind::List) fail(list->loc, "var_reorder: expected a list of dimensions such as [2, 1]");
        std::vector<int> order;
        for (auto& k : list->kids) order.push_back(dimension(k, f));
        return schedule_.varReorder(l, t, order);
      }
      if (f == "replace_array") {
        arity(c, 4, 4, "replace_array(l, level, old, new)");
        StmtP l = loopArg(c.args[0], f);
        int r = level(c.args[1], f);
        std::string old = tensorArg(c.args[2], f);
        std::vector<int> sigma;
        Replacement rep = transposition(c.args[3], old, c.loc, &sigma);
        replacements_.push_back(rep);
        return schedule_.replaceArray(l, r, old, *decl(rep.replacement), sigma, !rep.isVirtual);
      }
      if (f == "as_lib") {
        arity(c, 1, 1, "as_lib(l)");
        return schedule_.asLib(loopArg(c.args[0], f));
      }
      if (f == "separate_tail") {
        arity(c, 2, 2, "separate_tail(l, level)");
        return schedule_.separateTail(loopArg(c.args[0], f), level(c.args[1], f));
      }
      if (f == "parallelize") {
        arity(c, 2, 3, "parallelize(l, level) or parallelize(l, level, static|dynamic|guided)");
        StmtP l = loopArg(c.args[0], f);
        int r = level(c.args[1], f);
        return schedule_.parallelize(l, r, c.args.size() == 3 ? threadSchedule(c.args[2]) : ir::ThreadSchedule::Static);
      }
      if (f == "vectorize") {
        arity(c, 2, 2, "vectorize(l, level)");
        StmtP l = loopArg(c.args[0], f);
        return schedule_.vectorize(l, level(c.args[1], f));
      }
    } catch (const schedule::ScheduleError& e) {
      fail(c.loc, e.what());
    }
    fail(c.loc, "internal: unknown loop expression");
  }

  // A declared tensor named directly, or by an assignment to it (TeML rebinds
  // a tensor's name to its assignment).
  std::string tensorArg(const NodeP& n, const std::string& what) {
    const MetaValue& m = lookup(n, what);
    std::string name = m.type == MetaValue::Type::Tensor ? m.tensor
                     : m.type == MetaValue::Type::Assignment ? m.assign->tensor : "";
    if (name.empty() || !decl(name))
      fail(n->loc, what + ": '" + n->name + "' is " + typeWord(m.type) + ", not a declared tensor");
    return name;
  }

  // A tensor as tensorArg, or the name of a cache's copy (t_cache), which no
  // statement defines.
  std::string localTensorArg(const NodeP& n, const std::string& what) {
    if (n->kind == Kind::Name && !state_.count(n->name)) return n->name;
    return tensorArg(n, what);
  }

  ir::ThreadSchedule threadSchedule(const NodeP& n) {
    if (n->kind == Kind::Name) {
      if (n->name == "static") return ir::ThreadSchedule::Static;
      if (n->name == "dynamic") return ir::ThreadSchedule::Dynamic;
      if (n->name == "guided") return ir::ThreadSchedule::Guided;
    }
    fail(n->loc, "parallelize: the thread schedule must be static, dynamic or guided");
  }

  // The `new` of replace_array: a vtranspose of `old` (virtual: from here on a
  // tensor of its own, with the permuted shape, that takes over old's
  // elements) or a transpose assignment of it (a physical copy).
  Replacement transposition(const NodeP& n, const std::string& old, SourceLoc loc, std::vector<int>* sigma) {
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
        vars.push_back(i->kind == ir::ExprKind::Var ? static_cast<const ir::Var&>(*i).name : "");
      ok = transpositionOf(m.assign->value, vars, &of, sigma);
      rep.replacement = m.assign->tensor;
    }
    if (!ok || of != old)
      fail(n->loc, "replace_array: '" + n->name + "' is not a transposition of '" + old +
                       "' (write it as transpose(" + old + ", ...) or vtranspose(" + old + ", ...))");
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

  // Between the replace_array steps that move a tensor to its virtual
  // transposition, one nest must not hold both: their accesses name the same
  // elements under two names, which the dependence analysis would not relate.
  void refuseHalfReplaced(SourceLoc loc, const std::string& what, const StmtP& nest) {
    auto used = ir::tensorsAccessed(nest);
    for (auto& r : replacements_)
      if (r.isVirtual && used.count(r.old) && used.count(r.replacement))
        fail(loc, what + ": this nest accesses both '" + r.old + "' and its virtual transposition '" +
                      r.replacement + "' (replace_array at line " + std::to_string(r.loc.line) +
                      "); replace the remaining accesses of '" + r.old + "' first");
  }

  StmtP build(const lower::Assignment& a) {
    std::string n = std::to_string(++nestCounter_);
    StmtP nest = lower::buildNest(a, "L" + n + ".", "S" + n);
    if (std::string broken = ir::verify(nest, program_.tensors); !broken.empty())
      throw InternalError("build produced ill-formed IR: " + broken);
    return nest;
  }

  // A loop level: a number, or the name of the iterator of a loop in the
  // perfect nest of the loop argument (which survives transformations that
  // renumber levels: the inner loop of a strip-mined pair keeps its name).
  int level(const NodeP& n, const std::string& what) {
    if (n->kind == Kind::Name && !options_.sizes.count(n->name) && currentNest_) {
      int depth = schedule::perfectDepth(currentNest_);
      auto chain = schedule::loopsToLevel(currentNest_, std::max(depth, 1), what);
      for (size_t k = 0; k < chain.size(); ++k)
        if (chain[k]->var == n->name) return static_cast<int>(k + 1);
      std::string have;
      for (auto* f : chain) have += (have.empty() ? "" : ", ") + f->var;
      fail(n->loc, what + ": no loop over '" + n->name + "' among the nest's levels (" + have + ")");
    }
    return dimension(n, what);
  }

  // A dimension or level given by number (from 1).
  int dimension(const NodeP& n, const std::string& what) {
    int64_t v = intArg(n, what);
    if (v < 1 || v > 1000) fail(n->loc, what + ": level " + std::to_string(v) + " does not exist (levels count from 1)");
    return static_cast<int>(v);
  }

  // ---------------------------------------------------------------- statements
  void exec(const Statement& st) {
    switch (st.kind) {
      case Statement::Kind::Codegen: return codegen(st);
      case Statement::Kind::Init: return init(st);
      case Statement::Kind::Assign: return assign(st);
    }
  }

  void codegen(const Statement& st) {
    if (st.call.args.empty()) fail(st.loc, "codegen needs at least one loop nest");
    for (auto& a : st.call.args) {
      const MetaValue& m = lookup(a, "codegen");
      StmtP nest;
      if (m.type == MetaValue::Type::Loop) nest = m.loop;
      else if (m.type == MetaValue::Type::Assignment)
        nest = build(*m.assign);
      else
        fail(a->loc, "codegen: '" + a->name + "' is " + typeWord(m.type) + ", not a loop nest");
      try {
        schedule_.admit(nest);
      } catch (const schedule::ScheduleError& e) {
        fail(a->loc, e.what());
      }
      program_.nests.push_back(nest);
    }
  }

  void init(const Statement& st) {
    const Call& c = st.call;
    if (c.args.size() != 2) fail(c.loc, "init(tensor, value) takes two arguments");
    const MetaValue& m = lookup(c.args[0], "init");
    if (m.type != MetaValue::Type::Tensor) fail(c.args[0]->loc, "init: '" + c.args[0]->name + "' is not a declared tensor");
    const NodeP& v = c.args[1];
    double value;
    if (v->kind == Kind::Int) value = static_cast<double>(v->intValue);
    else if (v->kind == Kind::Float) value = v->floatValue;
    else if (v->kind == Kind::Neg && v->kids[0]->kind == Kind::Int) value = -static_cast<double>(v->kids[0]->intValue);
    else if (v->kind == Kind::Neg && v->kids[0]->kind == Kind::Float) value = -v->kids[0]->floatValue;
    else fail(v->loc, "init: expected a number");
    program_.initialValues[m.tensor] = value;
  }

  void declare(const Statement& st) {
    const Call& c = st.call;
    ir::TensorDecl d;
    d.name = st.targetName.empty() ? st.target : st.targetName;
    size_t next = 0;
    if (!c.args.empty() && c.args[0]->kind == Kind::Name &&
        (c.args[0]->name == "double" || c.args[0]->name == "float")) {
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
        if (n < 1 || n > (int64_t(1) << 40)) fail(s->loc, "tensor '" + d.name + "': size " + std::to_string(n) + " is not positive");
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

  static bool isArith(const std::string& f, const std::string& prefix, std::string* op) {
    for (const char* o : {"add", "sub", "mul", "div"})
      if (f == prefix + o) { *op = o; return true; }
    return false;
  }

  void assign(const Statement& st) {
    const Call& c = st.call;
    const std::string& f = c.function;
    std::string target = st.targetName.empty() ? st.target : st.targetName;
    std::string op;
    auto setExpr = [&](Virtual v) { state_[st.target] = MetaValue{MetaValue::Type::Expr, "", std::move(v), nullptr, nullptr}; };
    auto setAssign = [&](std::vector<ExprP> idx, const Virtual& v) {
      state_[st.target] = MetaValue{MetaValue::Type::Assignment, "", {}, assignment(target, std::move(idx), v, st.loc), nullptr};
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
        state_[st.target] = MetaValue{MetaValue::Type::Assignment, "", {},
                                      assignment(target, targetIdx, x, st.loc, ir::ReduceOp::Add), nullptr};
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
    static const std::set<std::string> loops = {"build", "stripmine", "stripmine_n", "interchange", "interchange_n",
                                                "fuse_outer", "fuse_inner", "unroll", "unroll_and_jam", "tile",
                                                "parallelize", "vectorize", "skew", "fission", "swap", "merge",
                                                "separate_tail", "as_lib", "blend", "local", "cache",
                                                "cache_reduce", "prefetch", "var_reorder", "var_split", "var_merge",
                                                "replace_array"};
    if (loops.count(f)) {
      if (!st.targetName.empty()) fail(st.loc, "@name: applies to tensor expressions, not to loop nests");
      StmtP nest = loopExpr(c);
      if (f != "replace_array") refuseHalfReplaced(c.loc, f, nest);
      state_[st.target] = MetaValue{MetaValue::Type::Loop, "", {}, nullptr, nest};
      return;
    }
    if (f == "codegen" || f == "init") fail(c.loc, f + " is a statement and does not produce a value");
    fail(c.loc, "unknown built-in '" + f + "'");
  }

  TemlOptions options_;
  ir::Program program_;
  schedule::Schedule schedule_;  // every loop transformation goes through it (after program_: it reads it)
  std::map<std::string, MetaValue> state_;
  int freshCounter_ = 0;
  int nestCounter_ = 0;
  StmtP currentNest_;
  std::vector<Replacement> replacements_;      // replace_array steps, checked over the whole program
};

}  // namespace

Script parseTeml(const std::string& source) { return parse(source); }

ir::Program evaluateTeml(const Script& script, const TemlOptions& options, TemlStats* stats) {
  Evaluator e(options);
  ir::Program p = e.run(script);
  if (stats) *stats = e.stats();
  return p;
}

ir::Program compileTeml(const std::string& source, const TemlOptions& options) {
  return evaluateTeml(parseTeml(source), options);
}

}  // namespace teml::teml_lang
