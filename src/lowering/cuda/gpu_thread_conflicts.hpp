// Which threads of a GPU block may touch one element in two statements of
// a kernel: the question gpu_barriers asks before it puts a barrier
// between them. The answers are conservative: "may" unless the subscripts
// show that an element both reach is reached by one thread (or both run
// in thread 0 alone, or every touch is an atomic update of one kind).
#pragma once
#include <set>
#include <string>

#include "ir/stmt.hpp"

namespace teml::lowering {

// A guard: a loop of one iteration (from 0) bound to threadIdx; the
// statements inside run in thread 0 of that index alone.
bool isGuardLoop(const ir::For* f);
bool isGuard(const ir::StmtP& s);

// May a thread of `b` touch an element that another thread touched in `a`,
// one of them writing (not two atomic updates of one kind)? `ownTensors`:
// each thread's own (gpu/local), never met. `varying`: an iterator with
// different values in the two (the loop around both, where they are of
// different iterations).
bool threadsMayMeet(const ir::StmtP& a, const ir::StmtP& b, const std::set<std::string>& ownTensors,
                    const std::string& varying = "");

// May threads of different iterations of `warpLoop` (a loop over
// threadIdx.y or .z whose iterations are warps) touch one element of a
// tensor it defines (`definedInside`) in `a` and `b`, one writing? Tensors
// defined outside it are apart: the dependence analysis admitted the loop
// on threads. One defined inside is each iteration's copy where some
// subscript of both accesses is the same function of the loop's iterator
// with nothing else that varies between threads (a multiplexed copy's row).
bool warpsMayMeet(const ir::StmtP& a, const ir::StmtP& b, const std::set<std::string>& ownTensors,
                  const std::set<std::string>& definedInside, const std::string& warpLoop);

}  // namespace teml::lowering
