#include <set>

#include "frontend/teil/teil.hpp"
#include "frontend/assignment.hpp"

namespace teml::teil {

using namespace types;

void checkTeil(const TeilProgram& p) {
  Context ctx;
  for (auto& a : p.allocs)
    if (!ctx.emplace(a.name, a.shape).second)
      throw UserError(a.loc, "OK-Prog: '" + a.name + "' is allocated twice");
  for (auto& s : p.statements) {
    auto it = ctx.find(s.target);
    if (it == ctx.end()) throw UserError(s.loc, "OK-Stmt: '" + s.target + "' is not allocated");
    Shape e = typeOf(*s.value, ctx);
    if (e != it->second)
      throw UserError(s.loc, "OK-Stmt: '" + s.target + "' has shape " + shapeText(it->second) +
                                 " but the expression has shape " + shapeText(e));
  }
}

namespace {

ir::ReduceOp reduceOp(RedKind k) {
  switch (k) {
    case RedKind::Sum: return ir::ReduceOp::Add;
    case RedKind::Product: return ir::ReduceOp::Mul;
    case RedKind::Max: return ir::ReduceOp::Max;
    case RedKind::Min: return ir::ReduceOp::Min;
  }
  return ir::ReduceOp::Add;
}

const TExpr& unparen(const TExpr& e) { return e.op == TOp::Paren ? unparen(*e.kids[0]) : e; }

bool reads(const TExpr& e, const std::string& name) {
  if (e.op == TOp::Var) return e.name == name;
  for (auto& k : e.kids)
    if (reads(*k, name)) return true;
  return false;
}

class Builder {
 public:
  explicit Builder(const TeilProgram& p) {
    for (auto& a : p.allocs) {
      ctx_[a.name] = a.shape;
      program_.tensors.push_back(ir::TensorDecl{a.name, ir::DType::F64, a.shape});
    }
  }

  ir::Program run(const TeilProgram& p) {
    for (auto& s : p.statements) statement(s);
    return std::move(program_);
  }

 private:
  void statement(const Assign& s) {
    loc_ = s.loc;
    const TExpr& e = unparen(*s.value);
    if (reads(e, s.target)) {
      // The right-hand side sees the target's old values: compute it aside first.
      std::string t = materialize(e);
      Shape shape = ctx_.at(s.target);
      auto v = vars(shape.size());
      nest(s.target, shape, v, {}, ir::load(t, indices(v), ir::DType::F64), std::nullopt);
      return;
    }
    assign(s.target, e);
  }

  // contr i0 i1 e = red+ i0 (diag i0 i1 e)
  static TExprP asReduction(const TExpr& e) {
    auto diag = std::make_shared<TExpr>(TExpr{TOp::Diag, "", RedKind::Sum, e.ints, e.kids, e.loc});
    return std::make_shared<TExpr>(TExpr{TOp::Red, "", RedKind::Sum, {e.ints[0]}, {diag}, e.loc});
  }

  // A new tensor holding the value of e.
  std::string materialize(const TExpr& e) {
    std::string t = freshTensor(typeOf(e, ctx_));
    assign(t, e);
    return t;
  }

  // target = e in one nest (two where e is a reduction: the identity first).
  void assign(const std::string& target, const TExpr& e) {
    Shape shape = typeOf(e, ctx_);
    auto v = vars(shape.size());
    RedKind kind = RedKind::Sum;
    rootReduction(e, &kind);
    Loops loops;
    ir::ExprP value = fused(e, indices(v), kind, loops);
    if (loops.empty()) {
      nest(target, shape, v, {}, value, std::nullopt);
      return;
    }
    nest(target, shape, v, {}, ir::floatConst(ir::reduceIdentity(reduceOp(kind))), std::nullopt);
    nest(target, shape, v, loops, value, reduceOp(kind));
  }

  using Loops = std::vector<std::pair<std::string, int64_t>>;

  // The kind of the first reduction reached through index-only operations.
  static bool rootReduction(const TExpr& e, RedKind* kind) {
    switch (e.op) {
      case TOp::Paren:
      case TOp::Transp:
      case TOp::Diag:
      case TOp::Expa:
      case TOp::Proj: return rootReduction(*e.kids[0], kind);
      case TOp::Red: *kind = e.red; return true;
      case TOp::Contr: *kind = RedKind::Sum; return true;
      default: return false;
    }
  }

  // The value of e at idx, where reductions of `kind` reached through
  // index-only operations (transp, diag, expa, proj) become loops of the
  // enclosing nest (a sum of sums is one sum) instead of temporaries.
  ir::ExprP fused(const TExpr& e, std::vector<ir::ExprP> idx, RedKind kind, Loops& loops) {
    switch (e.op) {
      case TOp::Paren: return fused(*e.kids[0], std::move(idx), kind, loops);
      case TOp::Transp:
        std::swap(idx[e.ints[0] - 1], idx[e.ints[1] - 1]);
        return fused(*e.kids[0], std::move(idx), kind, loops);
      case TOp::Diag: {
        ir::ExprP j = idx[e.ints[0] - 1];
        idx.insert(idx.begin() + (e.ints[1] - 1), j);
        return fused(*e.kids[0], std::move(idx), kind, loops);
      }
      case TOp::Expa:
        idx.erase(idx.begin() + (e.ints[0] - 1));
        return fused(*e.kids[0], std::move(idx), kind, loops);
      case TOp::Proj:
        idx.insert(idx.begin() + (e.ints[0] - 1), ir::intConst(e.ints[1] - 1));
        return fused(*e.kids[0], std::move(idx), kind, loops);
      case TOp::Red: {
        if (e.red != kind) break;
        Shape kidShape = typeOf(*e.kids[0], ctx_);
        std::string r = "r" + std::to_string(loops.size() + 1);
        idx.insert(idx.begin() + (e.ints[0] - 1), ir::var(r));
        loops.push_back({r, kidShape[e.ints[0] - 1]});
        return fused(*e.kids[0], std::move(idx), kind, loops);
      }
      case TOp::Contr:
        if (kind != RedKind::Sum) break;
        return fused(*asReduction(e), std::move(idx), kind, loops);
      default: break;
    }
    return eval(e, std::move(idx));
  }

  // The value of e at the given indices (one per dimension of e).
  ir::ExprP eval(const TExpr& e, std::vector<ir::ExprP> idx) {
    switch (e.op) {
      case TOp::Var: return ir::load(e.name, std::move(idx), ir::DType::F64);
      case TOp::Paren: return eval(*e.kids[0], std::move(idx));
      case TOp::Scale: return ir::binary(ir::BinOp::Mul, ir::floatConst(e.factor), eval(*e.kids[0], std::move(idx)));
      case TOp::Add: return ir::binary(ir::BinOp::Add, eval(*e.kids[0], idx), eval(*e.kids[1], idx));
      case TOp::Mul: {
        bool scalar = typeOf(*e.kids[0], ctx_).empty();
        return ir::binary(ir::BinOp::Mul, eval(*e.kids[0], scalar ? std::vector<ir::ExprP>{} : idx),
                          eval(*e.kids[1], idx));
      }
      case TOp::Prod: {
        size_t r0 = typeOf(*e.kids[0], ctx_).size();
        std::vector<ir::ExprP> a(idx.begin(), idx.begin() + r0), b(idx.begin() + r0, idx.end());
        return ir::binary(ir::BinOp::Mul, eval(*e.kids[0], a), eval(*e.kids[1], b));
      }
      case TOp::Red:
      case TOp::Contr: return ir::load(materialize(e), std::move(idx), ir::DType::F64);
      case TOp::Transp:
        std::swap(idx[e.ints[0] - 1], idx[e.ints[1] - 1]);
        return eval(*e.kids[0], std::move(idx));
      case TOp::Diag: {
        ir::ExprP j = idx[e.ints[0] - 1];
        idx.insert(idx.begin() + (e.ints[1] - 1), j);
        return eval(*e.kids[0], std::move(idx));
      }
      case TOp::Expa:
        idx.erase(idx.begin() + (e.ints[0] - 1));
        return eval(*e.kids[0], std::move(idx));
      case TOp::Proj:
        idx.insert(idx.begin() + (e.ints[0] - 1), ir::intConst(e.ints[1] - 1));
        return eval(*e.kids[0], std::move(idx));
    }
    throw InternalError("TeIL lowering: unknown operation");
  }

  // for v over shape (then the extra reduction loops): target[v] = value (or op= value).
  void nest(const std::string& target, const Shape& shape, const std::vector<std::string>& v,
            const std::vector<std::pair<std::string, int64_t>>& extra, ir::ExprP value,
            std::optional<ir::ReduceOp> op) {
    frontend::Assignment a;
    a.tensor = target;
    a.indices = indices(v);
    a.value = std::move(value);
    a.reduce = op;
    a.order = v;
    for (size_t d = 0; d < v.size(); ++d) a.extents[v[d]] = shape[d];
    for (auto& [name, n] : extra) {
      a.order.push_back(name);
      a.extents[name] = n;
    }
    a.loc = loc_;
    std::string n = std::to_string(++nests_);
    program_.nests.push_back(frontend::buildNest(a, "L" + n + ".", "S" + n));
  }

  std::string freshTensor(const Shape& shape) {
    int64_t elements = 1;
    for (int64_t n : shape) {
      if (n > (int64_t(1) << 36) || elements > (int64_t(1) << 36) / n)
        throw UserError(loc_, "an intermediate value of shape " + shapeText(shape) +
                                  " is too large to store (more than 2^36 elements)");
      elements *= n;
    }
    std::string name;
    do name = "_t" + std::to_string(++temps_);
    while (ctx_.count(name));
    ctx_[name] = shape;
    program_.tensors.push_back(ir::TensorDecl{name, ir::DType::F64, shape});
    program_.roles[name] = ir::TensorRole::Temporary;
    return name;
  }

  static std::vector<std::string> vars(size_t n) {
    std::vector<std::string> v;
    for (size_t d = 0; d < n; ++d) v.push_back("i" + std::to_string(d + 1));
    return v;
  }
  static std::vector<ir::ExprP> indices(const std::vector<std::string>& v) {
    std::vector<ir::ExprP> out;
    for (auto& n : v) out.push_back(ir::var(n));
    return out;
  }

  Context ctx_;
  ir::Program program_;
  SourceLoc loc_;
  int nests_ = 0, temps_ = 0;
};

}  // namespace

ir::Program buildTeil(const TeilProgram& p) {
  ir::Program prog = Builder(p).run(p);
  for (auto& t : p.temporaries) prog.roles[t] = ir::TensorRole::Temporary;
  ir::assignCallerRoles(prog);
  return prog;
}

}  // namespace teml::teil
