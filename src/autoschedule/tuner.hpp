// A measured choice among candidate schedules of one nest (docs/auto-schedule.md,
// "Measured search"). The automatic schedule asks it where heuristics alone
// do not decide; the driver's implementation compiles the candidates, runs
// them on this machine and keeps the choice in the kernel cache.
#pragma once
#include <string>
#include <vector>

#include "ir/program.hpp"

namespace teml::autoschedule {

class Tuner {
 public:
  virtual ~Tuner() = default;
  // The index of the fastest of `candidates`, each a whole nest computing
  // the same as the others over `context`'s tensors. `key` names the nest
  // and the way the candidates were made: the same key, the same candidates
  // in the same order (so a stored choice holds). `secondsSpent`: what
  // making the candidates took, counted against the tuning budget.
  virtual size_t fastest(const ir::Program& context, const std::string& key, const std::vector<ir::StmtP>& candidates,
                         double secondsSpent = 0) = 0;
};

}  // namespace teml::autoschedule
