#include "analysis/concurrency_with_isl.hpp"

#include <set>

#include "analysis/legality.hpp"
#include "ir/visitor.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

// Every iteration of `loop` (two at least) sums into the same elements of
// some tensor it meets: a reduction under no branch whose subscripts name
// neither the loop's iterator nor that of a loop inside whose bounds do.
// Its iterations then meet, without asking isl (the question, with the
// sizes in it, took 0.2 s for A^T x at each new shape).
class SharedSums : public Visitor {
 public:
  SharedSums(const For& loop, const std::set<std::string>& met) : met_(met) { moving_.insert(loop.var); }
  bool found = false;
  using Visitor::visit;

 protected:
  void visitFor(const For& f) override {
    if (names(f.begin) || names(f.end)) moving_.insert(f.var);
    Visitor::visitFor(f);
  }
  void visitIf(const If&) override {}  // sums under a branch may skip iterations
  void visitReduce(const Reduce& r) override {
    if (!met_.count(r.tensor)) return;
    bool moves = false;
    for (auto& i : r.indices) moves = moves || names(i);
    found = found || !moves;
  }

 private:
  bool names(const ExprP& e) const {
    for (auto& v : moving_)
      if (usesVar(e, v)) return true;
    return false;
  }
  const std::set<std::string>& met_;
  std::set<std::string> moving_;
};

bool sumsMeet(const For& loop, const std::set<std::string>& met) {
  int64_t begin, end;
  if (!constValue(loop.begin, &begin) || !constValue(loop.end, &end) || (end - begin) / loop.step < 2) return false;
  SharedSums shared(loop, met);
  shared.visit(loop.body);
  return shared.found;
}

}  // namespace

LoopConcurrency concurrencyOf(const ir::StmtP& nest, const ir::For& loop, bool simd, bool avoidStrategies,
                              const std::string& cacheDir) {
  LoopConcurrency out{analyzeConcurrentLoop(loop, simd)};
  bool strategies = false;
  for (auto& [r, s] : out.report.reduces) strategies |= s != ReduceStrategy::Plain;
  if (out.report.ok && (!strategies || !avoidStrategies)) return out;
  std::set<std::string> met = tensorsMet(loop);
  if (!sumsMeet(loop, met) && loopIsIndependent(nest, loop.id, cacheDir, met)) {
    out.independent = true;
    out.apart = met;
    out.report = analyzeConcurrentLoop(loop, simd, met);
    return out;
  }
  if (out.report.ok) return out;
  std::set<std::string> rest = met;
  for (auto& t : tensorsOnlyReduced(loop)) rest.erase(t);
  if (rest.size() == met.size() || !loopIsIndependent(nest, loop.id, cacheDir, rest)) return out;
  out.report = analyzeConcurrentLoop(loop, simd, rest);
  out.apart = rest;
  return out;
}

}  // namespace teml::analysis
