// Index checks: an index whose range the compiler knows (affine in loop
// iterators with constant bounds) is proven in range or refused at compile
// time; one that data decide (loaded indices, data-dependent loop bounds)
// gets a run-time check (an Assert around the statement that uses it).
#include <limits>
#include <map>
#include <set>

#include "frontend/freeform/builder.hpp"
#include "ir/printer.hpp"

namespace teml::freeform {

using namespace ir;

// The values an integer expression takes: [lo, hi], `exact` when both ends
// are reached (each iterator appears once, in a sum of scaled iterators).
struct IntervalOf {
  const std::vector<Builder::IterRange>& iters;
  std::set<std::string> seen;
  bool exact = true;

  std::optional<std::pair<int64_t, int64_t>> of(const ExprP& e) {
    int64_t c;
    if (constValue(e, &c)) return std::make_pair(c, c);
    if (e->kind == ExprKind::Var) {
      auto& name = e->as<Var>().name;
      if (!seen.insert(name).second) exact = false;
      for (auto it = iters.rbegin(); it != iters.rend(); ++it)
        if (it->var == name) {
          if (it->range && it->range->first > it->range->second) return std::nullopt;  // never runs
          exact = exact && it->exact;
          return it->range;
        }
      return std::nullopt;
    }
    if (e->kind == ExprKind::Cast) return of(e->as<Cast>().a);
    if (e->kind != ExprKind::Binary) return std::nullopt;
    auto& b = e->as<Binary>();
    auto x = of(b.a), y = of(b.b);
    if (!x || !y) return std::nullopt;
    switch (b.op) {
      case BinOp::Add: return std::make_pair(x->first + y->first, x->second + y->second);
      case BinOp::Sub: return std::make_pair(x->first - y->second, x->second - y->first);
      case BinOp::Mul: {
        if (x->first != x->second && y->first != y->second) exact = false;
        int64_t p[] = {x->first * y->first, x->first * y->second, x->second * y->first, x->second * y->second};
        return std::make_pair(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
      }
      case BinOp::Min: exact = false; return std::make_pair(std::min(x->first, y->first), std::min(x->second, y->second));
      case BinOp::Max: exact = false; return std::make_pair(std::max(x->first, y->first), std::max(x->second, y->second));
      case BinOp::FloorDiv:
        if (y->first != y->second || y->first <= 0) return std::nullopt;
        exact = false;
        return std::make_pair(floorDivFloor(x->first, y->first), floorDivFloor(x->second, y->first));
      case BinOp::Mod:
        if (y->first != y->second || y->first <= 0) return std::nullopt;
        exact = false;
        return std::make_pair(int64_t{0}, y->first - 1);
      default: return std::nullopt;
    }
  }
  static int64_t floorDivFloor(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
  }
};

std::optional<std::pair<int64_t, int64_t>> Builder::valuesOf(const ExprP& e) const {
  IntervalOf iv{iterators_, {}, true};
  return iv.of(e);
}

void Builder::collectFacts(const ExprP& cond) {
  if (cond->kind != ExprKind::Binary) return;
  auto& b = cond->as<Binary>();
  if (b.op == BinOp::And) {
    collectFacts(b.a);
    collectFacts(b.b);
    return;
  }
  const int64_t inf = std::numeric_limits<int64_t>::max() / 4;
  int64_t c;
  auto fact = [&](const ExprP& e, BinOp op, int64_t v) {  // e op v
    if (!e->isInt()) return;
    switch (op) {
      case BinOp::Ge: facts_.push_back({e, v, inf}); break;
      case BinOp::Gt: facts_.push_back({e, v + 1, inf}); break;
      case BinOp::Le: facts_.push_back({e, -inf, v}); break;
      case BinOp::Lt: facts_.push_back({e, -inf, v - 1}); break;
      case BinOp::Eq: facts_.push_back({e, v, v}); break;
      default: break;
    }
  };
  auto strip = [](const ExprP& e) { return e->kind == ExprKind::Cast ? e->as<Cast>().a : e; };
  static const std::map<BinOp, BinOp> mirrored = {{BinOp::Ge, BinOp::Le}, {BinOp::Gt, BinOp::Lt}, {BinOp::Le, BinOp::Ge},
                                                  {BinOp::Lt, BinOp::Gt}, {BinOp::Eq, BinOp::Eq}};
  if (!mirrored.count(b.op)) return;
  if (constValue(strip(b.b), &c)) fact(strip(b.a), b.op, c);
  else if (constValue(strip(b.a), &c)) fact(strip(b.b), mirrored.at(b.op), c);
}

ExprP Builder::checkedIndex(ExprP index, int64_t extent, const std::string& tensor, size_t dim, SourceLoc loc) {
  if (!options_.checkIndices) return index;
  // Within a branch whose condition bounds this very expression.
  int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  for (auto& f : facts_)
    if (equal(f.expr, index)) {
      lo = std::max(lo, f.lo);
      hi = std::min(hi, f.hi);
    }
  if (lo >= 0 && hi < extent) return index;
  IntervalOf iv{iterators_, {}, true};
  auto range = iv.of(index);
  std::string where = " for dimension " + std::to_string(dim) + " of '" + tensor + "'";
  std::string bounds = "[0, " + std::to_string(extent) + ")";
  if (range) {
    if (range->first >= 0 && range->second < extent) return index;
    // Known, and reached on some iteration: wrong whenever the statement runs.
    if (iv.exact && runtimeBranches_ == 0) {
      int64_t bad = range->first < 0 ? range->first : range->second;
      throw UserError(loc, "index " + toString(index) + " reaches " + std::to_string(bad) + ", out of range " + bounds + where);
    }
  }
  std::string message = "index {} out of range " + bounds + where;
  // The iterator of a loop whose bounds data decide (range(ptr[i], ptr[i + 1])):
  // checked once, on the bounds, when the loop runs at all.
  if (index->kind == ExprKind::Var)
    for (auto it = iterators_.rbegin(); it != iterators_.rend(); ++it) {
      if (it->var != index->as<Var>().name) continue;
      if (it->begin && it->branches == runtimeBranches_) {
        ExprP empty = binary(BinOp::Ge, it->begin, it->end);
        ExprP inside = binary(BinOp::And, binary(BinOp::Ge, it->begin, intConst(0)), binary(BinOp::Le, it->end, intConst(extent)));
        ExprP shown = select(binary(BinOp::Lt, it->begin, intConst(0)), it->begin, sub(it->end, intConst(1)));
        addCheck(it->onBounds, Check{binary(BinOp::Or, empty, inside), shown, message, loc});
        return index;
      }
      break;
    }
  ExprP cond = binary(BinOp::And, binary(BinOp::Ge, index, intConst(0)), binary(BinOp::Lt, index, intConst(extent)));
  addCheck(checks_, Check{cond, index, message, loc});
  return index;
}

// A check whose condition an earlier one of the list already tests (val[k]
// and col[k] in one row's loop: the same bounds of k) would never fail
// where that one passed: kept once, with the first tensor's message.
void Builder::addCheck(std::vector<Check>& checks, Check c) {
  for (auto& earlier : checks)
    if (equal(earlier.cond, c.cond)) return;
  checks.push_back(std::move(c));
}

std::vector<StmtP> Builder::withChecks(std::vector<StmtP> stmts) {
  std::vector<StmtP> out = std::move(prelude_);
  prelude_.clear();
  if (!checks_.empty()) {
    StmtP s = makeSeq(stmts);
    for (auto it = checks_.rbegin(); it != checks_.rend(); ++it) s = makeAssert(it->cond, it->message, it->shown, it->loc, s);
    checks_.clear();
    stmts = {s};
  }
  out.insert(out.end(), stmts.begin(), stmts.end());
  return out;
}

}  // namespace teml::freeform
