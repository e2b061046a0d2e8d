// The lowering stage: between the schedule and an emitter, it writes into
// the IR every decision about how the scheduled program runs on a target,
// so that emitters only print and -v, --emit lowered and the generated code
// read the same decisions. Each pass is a file of this folder:
// - reduction_init: local sums start at their first reduction;
// - carried_dependences: serial loops the C compiler must not vectorize;
// - parallel_reductions: each parallel reduction's strategy (none needed,
//   private accumulator, atomic update);
// - local_boxes: the box of each loop-local tensor that code stores;
// then the passes of the target's kind (target_passes.hpp), for the CPU
// (lowering/cpu/):
// - memory_kinds: stack, heap or register for each tensor a nest defines;
// - vector_plans: how each loop in SIMD lanes is written for the target;
// - copy_plans: how each copy nest is written (flat, gathered, loops);
// - indirect_prefetches: prefetches of the rows that data choose;
// for CUDA (lowering/cuda/cuda_passes.hpp): kernels, atomics, GPU memory.
// The lowered program is an ordinary program: the interpreter runs it with
// the same results (tests compare both).
#pragma once
#include <string>

#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::lowering {

class PassLog;

// `analysisCacheDir`: where the dependence analysis keeps its answers ("": nowhere);
// `log`: where each pass's result goes (lowering/pass_log; null: nowhere).
ir::Program lower(const ir::Program& scheduled, const target::Target& target, const std::string& analysisCacheDir = "",
                  PassLog* log = nullptr);

}  // namespace teml::lowering
