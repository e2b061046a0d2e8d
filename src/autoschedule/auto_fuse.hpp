// Producer/consumer fusion of a list of nests (a TeML codegen list), what
// teml's hand schedules of helm, interp and blur do and per-nest passes
// cannot: each nest keeps its outer loop and gets vectors that need no
// reordering across it; then the nests are fused over that loop, every
// intermediate nobody reads afterwards becomes local to it (a buffer in
// cache instead of a tensor in memory), the loop goes on threads and the
// large input each iteration reads is copied in while the next iteration's
// part is fetched (prefetch). Vectors come in two ways:
//  - Rows: the output's last index in SIMD vectors, the sums inside, two
//    rows jammed; a small operand read across the vector is copied
//    transposed, once per outer iteration (helm, blur);
//  - Lanes: the outer loop's elements, one vector of them per iteration,
//    each moved just outside the sums (interp: contractions too short for
//    vectors of their own); intermediates, the input's copy and a block of
//    the result are laid out with the element last.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "autoschedule/step.hpp"
#include "target/target.hpp"

namespace teml::autoschedule {

enum class FusedVectors { Rows, Lanes };

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
// The vectors to take without measuring: lanes when the first nest's
// output rows are shorter than two vectors (a sum over them would run
// mostly in a partial vector), else rows.
FusedVectors preferredVectors(const std::vector<ir::StmtP>& nests, const target::Target& target);
// Takes the steps of `fused` on `schedule`; the fused nest.
ir::StmtP replayFused(schedule::Schedule& schedule, const std::vector<ir::StmtP>& nests, const FusedNests& fused,
                      const target::Target& target);
// The steps in TeML: each nest's (by the name codegen gave it), then the
// fusion, ending with `codegen(...)`.
std::vector<std::string> temlLines(const FusedNests& fused, const std::vector<std::string>& names);

}  // namespace teml::autoschedule
