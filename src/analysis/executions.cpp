#include "analysis/executions.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "ir/affine.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

// A condition that reads a tensor: the data decides it, so its estimate
// weighs both arms alike, whatever the iteration.
bool decidedByData(const ExprP& cond) {
  bool loads = false;
  forEachExpr(cond, [&](const ExprP& e) { loads = loads || e->kind == ExprKind::Load; });
  return loads;
}

// Does any loop's trip count or guard inside s depend on `v`? If not, the
// work of s is the same in every iteration of the loop over v and is
// counted once.
bool controlUses(const StmtP& s, const std::string& v) {
  bool found = false;
  forEachStmt(s, [&](const StmtP& t) {
    if (t->kind == StmtKind::For) {
      auto& f = t->as<For>();
      int64_t trips = 0;  // a loop shifted by v (a split's inner loop) does the same work for every v
      if (!constValue(sub(f.end, f.begin), &trips)) found |= usesVar(f.begin, v) || usesVar(f.end, v);
    } else if (t->kind == StmtKind::If && !decidedByData(t->as<If>().cond)) {
      found |= usesVar(t->as<If>().cond, v);
    }
  });
  return found;
}

// The smallest extent of a dimension that `v` alone subscripts in `s`
// (0: none).
int64_t extentSubscripted(const StmtP& s, const std::string& v, const std::map<std::string, std::vector<int64_t>>& shapes) {
  int64_t least = 0;
  auto look = [&](const std::string& tensor, const std::vector<ExprP>& indices) {
    auto shape = shapes.find(tensor);
    if (shape == shapes.end() || shape->second.size() != indices.size()) return;
    for (size_t d = 0; d < indices.size(); ++d) {
      bool alone = indices[d]->kind == ExprKind::Var && indices[d]->as<Var>().name == v;
      if (alone && (least == 0 || shape->second[d] < least)) least = shape->second[d];
    }
  };
  forEachExprIn(s, [&](const ExprP& e) {
    if (e->kind == ExprKind::Load) look(e->as<Load>().tensor, e->as<Load>().indices);
  });
  forEachStmt(s, [&](const StmtP& t) {
    if (t->kind == StmtKind::Store) look(t->as<Store>().tensor, t->as<Store>().indices);
    if (t->kind == StmtKind::Reduce) look(t->as<Reduce>().tensor, t->as<Reduce>().indices);
  });
  return least;
}

class Counter : public StmtFunctor<double()> {
 public:
  explicit Counter(const StatementWeight& weight) : weight_(weight) {}
  // Estimating the trips of loops bounded by data.
  Counter(const StatementWeight& weight, std::map<std::string, std::vector<int64_t>> shapes)
      : weight_(weight), shapes_(std::move(shapes)), estimate_(true) {}
  double count(const StmtP& s) { return dispatch(s); }

 private:
  double visitFor(const For& f) override {
    if (estimate_ && (!known(f.begin) || !known(f.end))) {
      int64_t extent = extentSubscripted(f.body, f.var, shapes_);
      if (extent == 0) return 0;
      // The rows: the loops around whose iterators the bounds read, and
      // the loops those loops' bounds read (the outer part of a split).
      double rows = 1;
      std::vector<const For*> reading = {&f};
      for (size_t k = around_.size(); k-- > 0;) {
        auto& [loop, trips] = around_[k];
        bool read = false;
        for (auto* r : reading) read = read || usesVar(r->begin, loop->var) || usesVar(r->end, loop->var);
        if (read) rows *= trips, reading.push_back(loop);
      }
      double trips = std::max(1.0, static_cast<double>(extent) / rows);
      around_.push_back({&f, trips});
      double w = count(f.body);
      around_.pop_back();
      return w * trips;
    }
    return counted(f);
  }
  double counted(const For& f) {
    int64_t b = eval(f.begin), e = eval(f.end);
    int64_t up = f.step > 0 ? f.step : -f.step, extent = f.step > 0 ? e - b : b - e;
    if (extent <= 0) return 0;
    int64_t trips = (extent + up - 1) / up;
    around_.push_back({&f, static_cast<double>(trips)});
    double w = countedTrips(f, b, e, trips);
    around_.pop_back();
    return w;
  }
  double countedTrips(const For& f, int64_t b, int64_t e, int64_t trips) {
    // Past the budget, a loop whose work varies is counted at its middle
    // iteration: an estimate, where counting every iteration of nests
    // whose bounds or guards follow their iterators would take minutes.
    bool varies = controlUses(f.body, f.var);
    if (!varies || enumerated_ + trips > kEnumeratedIterations) {
      env_[f.var] = varies ? b + f.step * (trips / 2) : b;
      double w = count(f.body);
      env_.erase(f.var);
      return w * static_cast<double>(trips);
    }
    enumerated_ += trips;
    double total = 0;
    for (int64_t i = b; f.step > 0 ? i < e : i > e; i += f.step) {
      env_[f.var] = i;
      total += count(f.body);
    }
    env_.erase(f.var);
    return total;
  }
  double visitStore(const Store& s) override { return weight_(s); }
  double visitReduce(const Reduce& r) override { return weight_(r); }
  double visitSeq(const Seq& q) override {
    double total = 0;
    for (auto& t : q.stmts) total += count(t);
    return total;
  }
  double visitLibCall(const LibCall& c) override { return count(c.reference); }
  double visitVarDef(const VarDef& v) override {
    shapes_[v.decl.name] = v.decl.shape;
    return count(v.body);
  }
  double visitAssert(const Assert& a) override { return count(a.body); }
  double visitBarrier(const Barrier&) override { return 0; }
  double visitExchange(const Exchange&) override { return 0; }
  double visitIf(const If& i) override {
    if (decidedByData(i.cond)) return (count(i.then) + (i.otherwise ? count(i.otherwise) : 0)) / 2;
    if (eval(i.cond)) return count(i.then);
    return i.otherwise ? count(i.otherwise) : 0;
  }

  bool known(const ExprP& e) {
    Ranges r;
    for (auto& [k, v] : env_) r[k] = {v, v};
    Interval iv{0, 0};
    return bounds(e, r, &iv);
  }
  int64_t eval(const ExprP& e) {
    Ranges r;
    for (auto& [k, v] : env_) r[k] = {v, v};
    Interval iv{0, 0};
    bounds(e, r, &iv);
    return iv.lo;
  }
  const StatementWeight& weight_;
  std::unordered_map<std::string, int64_t> env_;
  std::map<std::string, std::vector<int64_t>> shapes_;
  bool estimate_ = false;
  std::vector<std::pair<const For*, double>> around_;  // the loops around, with their trips
  static constexpr int64_t kEnumeratedIterations = 1 << 20;
  int64_t enumerated_ = 0;  // iterations counted one by one so far
};

}  // namespace

double countExecutions(const StmtP& nest, const StatementWeight& weight) { return Counter(weight).count(nest); }

double estimatedExecutions(const Program& program, const StatementWeight& weight) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (auto& t : program.tensors) shapes[t.name] = t.shape;
  double total = 0;
  for (auto& n : program.nests) total += Counter(weight, shapes).count(n);
  return total;
}

}  // namespace teml::analysis
