// The lowering passes of each target kind, run on every nest after the
// passes all targets share (lowering/lower.cpp), as FreeTensor's lower.h
// adds its GPU passes after the common ones. A new target is a folder
// under src/lowering/ with its list and one line in `targetPasses`.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::lowering {

struct TargetPass {
  std::string name;  // as the pass log (--dump-passes) names it
  std::function<ir::StmtP(const ir::StmtP& nest, const ir::Program& program, const target::Target& target)> run;
};

// The passes of targets of `kind`, in order; throws InternalError for a kind with none registered.
const std::vector<TargetPass>& targetPasses(target::Kind kind);

}  // namespace teml::lowering
