// The CUDA target's own lowering passes, after the shared ones:
// - gpu_scopes: loops on CPU threads or lanes refused (a GPU has neither);
// - gpu_kernels: statements of the host that touch data become one-thread
//   kernels, loops bound to threadIdx alone get a one-block grid, and each
//   kernel's plan (threads per block) is written on its outermost loop;
// - gpu_reductions: reductions that threads or blocks share become atomic;
// - gpu_memory_kinds: where each tensor lives (global, shared, local), and
//   each kernel's shared memory against the GPU's limit;
// - gpu_reduction_trees: a reduction all threads of a block apply to one
//   element, summed in a tree of shared memory instead of atomics;
// - gpu_barriers: statements of a block that write shared memory in thread
//   0 alone (gpu_guards), and barriers where threads meet at an element
//   (gpu_thread_conflicts says where they may);
// - gpu_launches: each kernel's launch (name, grid, arguments) on its plan,
//   which everything after reads.
#pragma once
#include <functional>
#include <vector>

#include "lowering/target_passes.hpp"

namespace teml::lowering {

std::vector<TargetPass> cudaPasses();

// Whether `s` has a loop (itself included) whose kind satisfies `bound`:
// hasLoop(s, &ir::LoopKind::gpuThreads).
bool hasLoop(const ir::StmtP& s, bool (ir::LoopKind::*bound)() const);

// The most iterations `f` runs: its trip count, or for a loop ending at
// min(a, b) (a split loop's tail) the fewer of the counts to a and to b
// that are constants; *known is false where neither is.
int64_t mostIterations(const ir::For& f, bool* known);

// `nest` with each kernel (a loop whose plan names it) replaced by
// `rewrite(kernel)`; the host's statements around them stay.
ir::StmtP eachKernel(const ir::StmtP& nest, const std::function<ir::StmtP(const ir::For& kernel)>& rewrite);

ir::StmtP checkGpuScopes(const ir::StmtP& nest, const ir::Program& program, const target::Target& target);
ir::StmtP makeKernels(const ir::StmtP& nest, const ir::Program& program, const target::Target& target);
ir::StmtP atomicGpuReductions(const ir::StmtP& nest, const ir::Program& program, const target::Target& target);
ir::StmtP chooseGpuMemoryKinds(const ir::StmtP& nest, const ir::Program& program, const target::Target& target);
ir::StmtP sumInTrees(const ir::StmtP& nest, const ir::Program& program, const target::Target& target);
ir::StmtP insertGuardsAndBarriers(const ir::StmtP& nest, const ir::Program& program, const target::Target& target);
ir::StmtP planLaunches(const ir::StmtP& nest, const ir::Program& program, const target::Target& target);

}  // namespace teml::lowering
