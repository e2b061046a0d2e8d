// Producer/consumer fusion of a list of nests (a TeML codegen list), what
// teml's hand schedules of helm, interp and blur do and per-nest passes
// cannot: each nest gets vectors that keep its outer loop in place
// (fused_vectors.hpp); then the nests are fused over that loop, every
// intermediate nobody reads afterwards becomes local to it (a buffer in
// cache instead of a tensor in memory), the loop goes on threads and the
// large input each iteration reads is copied in while the next iteration's
// part is fetched (prefetch). With elements in lanes, intermediates and the
// input's copy are laid out with the element last, and each result gets a
// block per iteration that starts as zeros where the result still does.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "autoschedule/fused_vectors.hpp"
#include "autoschedule/step.hpp"

namespace teml::autoschedule {

struct FusedNests {
  ir::StmtP body;                            // the one nest they became
  std::vector<std::vector<Step>> nestSteps;  // each nest's own steps, before fusing
  std::vector<Step> steps;                   // after fusing them over their outer loops, on the fused nest
};

// The fused schedule of `nests`, or nothing when they do not fuse or no
// intermediate becomes local (fusion alone gains nothing). Steps are
// decided on a checked copy of `schedule` and left untaken: replay them
// with replayFused. `kept`: tensors read after these nests (outputs).
std::optional<FusedNests> autoFuse(const schedule::Schedule& schedule, const std::vector<ir::StmtP>& nests,
                                   const ir::Program& program, const std::set<std::string>& kept,
                                   const target::Target& target, FusedVectors vectors);
// Takes the steps of `fused` on `schedule`; the fused nest.
ir::StmtP replayFused(schedule::Schedule& schedule, const std::vector<ir::StmtP>& nests, const FusedNests& fused,
                      const target::Target& target);
// The steps in TeML: each nest's (by the name codegen gave it), then the
// fusion, ending with `codegen(...)`.
std::vector<std::string> temlLines(const FusedNests& fused, const std::vector<std::string>& names);

}  // namespace teml::autoschedule
