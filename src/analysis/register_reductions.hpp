// Reductions that can live in registers for the whole of a loop: their
// target does not move while the loop runs and nothing else in the loop
// touches their tensor. The vector planner (lowering/vector_plans) masks a
// vector loop's tail only where every sum of its body stays in registers,
// and the C emitter keeps them in vector registers.
#pragma once
#include <vector>

#include "ir/stmt.hpp"

namespace teml::analysis {

std::vector<const ir::Reduce*> registerReductions(const ir::For& f);

// Every reduction of `body` is one of registerReductions(l) for a loop l in `body`.
bool sumsStayInRegisters(const ir::StmtP& body);

}  // namespace teml::analysis
