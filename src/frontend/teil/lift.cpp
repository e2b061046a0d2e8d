#include <algorithm>
#include <optional>

#include "frontend/teil/teil.hpp"

namespace teml::teil {

using namespace types;

namespace {

const TExpr& unparen(const TExpr& e) { return e.op == TOp::Paren ? unparen(*e.kids[0]) : e; }

TExprP node(TOp op, std::vector<int64_t> ints, std::vector<TExprP> kids, SourceLoc loc, std::string name = "") {
  return std::make_shared<TExpr>(TExpr{op, std::move(name), RedKind::Sum, std::move(ints), std::move(kids), loc, 1});
}

// One operand of the product: its expression and a label per dimension.
struct Factor {
  TExprP expr;
  std::vector<int> labels;
};

class Lifter {
 public:
  Lifter(TeilProgram& out, Context& ctx, int& temps) : out_(out), ctx_(ctx), temps_(temps) {}

  // The statements computing target = e as single contractions, or false
  // when e is not nested contractions (and transpositions) of a product of
  // three or more operands.
  bool lift(const Assign& s) {
    loc_ = s.loc;
    std::vector<const TExpr*> ops;  // contr and transp around the product, outermost first
    const TExpr* cur = &unparen(*s.value);
    bool anyContr = false;
    while (cur->op == TOp::Contr || cur->op == TOp::Transp) {
      anyContr |= cur->op == TOp::Contr;
      ops.push_back(cur);
      cur = &unparen(*cur->kids[0]);
    }
    if (!anyContr || cur->op != TOp::Prod) return false;
    std::vector<Factor> factors;
    std::vector<int> order;  // labels of the product's dimensions, in order
    leaves(*cur, factors, order);
    if (factors.size() < 3) return false;
    std::vector<std::pair<int, int>> pairs;
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      int64_t i0 = (*it)->ints[0] - 1, i1 = (*it)->ints[1] - 1;
      if ((*it)->op == TOp::Transp) {
        std::swap(order[i0], order[i1]);
        continue;
      }
      pairs.push_back({order[i0], order[i1]});
      order.erase(order.begin() + i1);
      order.erase(order.begin() + i0);
    }
    for (auto& [a, b] : pairs)
      if (owner(factors, a) == owner(factors, b)) return false;  // a trace inside one operand
    while (factors.size() > 1) {
      // Contract the two connected operands whose result is smallest.
      size_t bi = 0, bj = 0;
      int64_t best = -1;
      for (size_t i = 0; i < factors.size(); ++i)
        for (size_t j = i + 1; j < factors.size(); ++j) {
          if (!connected(factors[i], factors[j], pairs)) continue;
          int64_t size = resultSize(factors[i], factors[j], pairs);
          if (best < 0 || size < best) {
            best = size;
            bi = i;
            bj = j;
          }
        }
      if (best < 0) {  // the rest are not connected: an outer product
        bi = 0;
        bj = 1;
      }
      Factor merged = contract(factors[bi], factors[bj], pairs);
      factors.erase(factors.begin() + bj);
      factors[bi] = merged;
    }
    out_.statements.push_back({s.target, permute(factors[0], order), s.loc});
    return true;
  }

 private:
  void leaves(const TExpr& e, std::vector<Factor>& factors, std::vector<int>& order) {
    const TExpr& u = unparen(e);
    if (u.op == TOp::Prod) {
      leaves(*u.kids[0], factors, order);
      leaves(*u.kids[1], factors, order);
      return;
    }
    Factor f{std::make_shared<TExpr>(u), {}};
    for (int64_t n : typeOf(u, ctx_)) {
      sizes_.push_back(n);
      f.labels.push_back(static_cast<int>(sizes_.size() - 1));
      order.push_back(f.labels.back());
    }
    factors.push_back(f);
  }

  static const Factor* owner(const std::vector<Factor>& fs, int label) {
    for (auto& f : fs)
      if (std::find(f.labels.begin(), f.labels.end(), label) != f.labels.end()) return &f;
    return nullptr;
  }
  static bool has(const Factor& f, int label) {
    return std::find(f.labels.begin(), f.labels.end(), label) != f.labels.end();
  }
  static bool connected(const Factor& a, const Factor& b, const std::vector<std::pair<int, int>>& pairs) {
    for (auto& [x, y] : pairs)
      if ((has(a, x) && has(b, y)) || (has(a, y) && has(b, x))) return true;
    return false;
  }
  int64_t resultSize(const Factor& a, const Factor& b, const std::vector<std::pair<int, int>>& pairs) const {
    int64_t n = 1;
    for (const Factor* f : {&a, &b})
      for (int l : f->labels) {
        bool gone = false;
        for (auto& [x, y] : pairs)
          if ((l == x && (has(a, y) || has(b, y))) || (l == y && (has(a, x) || has(b, x)))) gone = true;
        if (!gone) n *= sizes_[l];
      }
    return n;
  }

  // t = contr ... (prod a b) over every pair linking a and b, into a new tensor.
  Factor contract(const Factor& a, const Factor& b, const std::vector<std::pair<int, int>>& pairs) {
    std::vector<int> labels = a.labels;
    labels.insert(labels.end(), b.labels.begin(), b.labels.end());
    TExprP e = node(TOp::Prod, {}, {a.expr, b.expr}, loc_);
    for (auto& [x, y] : pairs) {
      if (!((has(a, x) && has(b, y)) || (has(a, y) && has(b, x)))) continue;
      auto px = std::find(labels.begin(), labels.end(), x) - labels.begin();
      auto py = std::find(labels.begin(), labels.end(), y) - labels.begin();
      int64_t lo = std::min(px, py), hi = std::max(px, py);
      e = node(TOp::Contr, {lo + 1, hi + 1}, {e}, loc_);
      labels.erase(labels.begin() + hi);
      labels.erase(labels.begin() + lo);
    }
    Shape shape;
    for (int l : labels) shape.push_back(sizes_[l]);
    std::string name;
    do name = "_c" + std::to_string(++temps_);
    while (ctx_.count(name));
    ctx_[name] = shape;
    out_.allocs.push_back({name, shape, loc_});
    out_.temporaries.insert(name);
    out_.statements.push_back({name, e, loc_});
    return Factor{node(TOp::Var, {}, {}, loc_, name), labels};
  }

  // f's dimensions brought into the order `want` with transpositions.
  TExprP permute(Factor f, const std::vector<int>& want) {
    TExprP e = f.expr;
    for (size_t k = 0; k < want.size(); ++k) {
      auto at = std::find(f.labels.begin(), f.labels.end(), want[k]) - f.labels.begin();
      if (static_cast<size_t>(at) == k) continue;
      e = node(TOp::Transp, {static_cast<int64_t>(k + 1), at + 1}, {e}, loc_);
      std::swap(f.labels[k], f.labels[at]);
    }
    return e;
  }

  TeilProgram& out_;
  Context& ctx_;
  int& temps_;
  std::vector<int64_t> sizes_;  // label -> dimension size
  SourceLoc loc_;
};

}  // namespace

TeilProgram liftContractions(const TeilProgram& p) {
  TeilProgram out;
  out.allocs = p.allocs;
  out.temporaries = p.temporaries;
  Context ctx;
  for (auto& a : p.allocs) ctx[a.name] = a.shape;
  int temps = 0;
  for (auto& s : p.statements) {
    Lifter l(out, ctx, temps);
    if (!l.lift(s)) out.statements.push_back(s);
  }
  return out;
}

}  // namespace teml::teil
