// How each copy nest is written (ir::CopyForm, analysis/copy_nests.hpp): a
// nest that moves one contiguous block of memory becomes one flat copy
// (non-temporal vector stores when the destination is not a loop-local
// tensor, holds at least 64 MiB and nothing else in the nest reads it), unless it fills a
// cache's copy that prefetches ahead; one that transposes into whole
// vectors of the destination is gathered; the rest stay loops.
#pragma once
#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::lowering {

ir::StmtP planCopies(const ir::StmtP& nest, const ir::Program& program, const target::Target& target);

}  // namespace teml::lowering
