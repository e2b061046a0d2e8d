// Loop ids are unique within a nest. Primitives that copy statements
// (unrolling, jamming, remainders) repeat the ids of the loops they copy;
// this pass keeps the first occurrence's id (in program order) and gives
// each later copy `id#k`, so a loop can always be named, and analyses keyed
// by loop id (isl's schedule positions, local tensors' owners) never
// confuse two loops.
#pragma once
#include "ir/stmt.hpp"

namespace teml::ir {

StmtP uniqueLoopIds(const StmtP& nest);

}  // namespace teml::ir
