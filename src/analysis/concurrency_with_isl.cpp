#include "analysis/concurrency_with_isl.hpp"

#include <set>

#include "analysis/legality.hpp"

namespace teml::analysis {

LoopConcurrency concurrencyOf(const ir::StmtP& nest, const ir::For& loop, bool simd, bool avoidStrategies,
                              const std::string& cacheDir) {
  LoopConcurrency out{analyzeConcurrentLoop(loop, simd)};
  bool strategies = false;
  for (auto& [r, s] : out.report.reduces) strategies |= s != ReduceStrategy::Plain;
  if (out.report.ok && (!strategies || !avoidStrategies)) return out;
  std::set<std::string> met = tensorsMet(loop);
  if (loopIsIndependent(nest, loop.id, cacheDir, met)) {
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
