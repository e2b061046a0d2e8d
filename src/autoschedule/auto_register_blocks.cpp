#include "autoschedule/auto_register_blocks.hpp"

#include "autoschedule/auto_register_block.hpp"
#include "autoschedule/loop_queries.hpp"
#include "diag/timing.hpp"
#include "ir/printer.hpp"

namespace teml::autoschedule {

namespace {

struct Candidate {
  RegisterBlock block;
  ir::StmtP body;
  std::vector<Step> steps;
};

std::string describe(const RegisterBlock& b) {
  return std::to_string(b.rows) + "x" + std::to_string(b.width) + "/" + std::to_string(b.tile);
}

}  // namespace

void autoRegisterBlocks(AutoState& state) {
  for (auto& outer : outermostLoops(state.body)) {
    auto contraction = findContraction(state.body, outer, state.target);
    if (!contraction) continue;
    // Each candidate is made on a fork, so that what one leaves behind (a
    // cache's name) does not reach the chosen one, which is replayed here.
    std::vector<Candidate> candidates;
    size_t before = state.steps.size();
    auto start = Clock::now();
    for (auto& block : registerBlockCandidates(*contraction, state.target)) {
      AutoState trial = state.fork();
      if (applyRegisterBlock(trial, *contraction, block))
        candidates.push_back({block, trial.body, {trial.steps.begin() + before, trial.steps.end()}});
      if (!state.tuner && !candidates.empty()) break;  // nothing to measure with: the first that applies
    }
    if (candidates.empty()) continue;
    size_t chosen = 0;
    if (state.tuner && candidates.size() > 1) {
      std::string key = ir::toString(state.body, true) + "\nregister blocks:";
      std::vector<ir::StmtP> bodies;
      for (auto& c : candidates) {
        key += " " + describe(c.block);
        bodies.push_back(c.body);
      }
      chosen = state.tuner->fastest(*state.context, key, bodies, secondsSince(start));
      if (chosen >= candidates.size()) chosen = 0;
    }
    state.replay(candidates[chosen].steps);
  }
}

}  // namespace teml::autoschedule
