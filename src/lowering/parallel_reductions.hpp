// How each reduction under a parallel or SIMD loop stays correct, written
// into the IR (FreeTensor's make_parallel_reduction). For every loop that
// runs in threads or SIMD lanes, the reductions that different iterations
// may make into one element get one strategy:
// - none needed: isl proves that no two iterations meet (the affine test of
//   analysis/concurrency is conservative, isl decides);
// - a private accumulator: a scalar (target fixed for the whole loop) or a
//   small array (the box of elements one iteration updates, threads only,
//   when nothing else in the loop touches the tensor), defined around the
//   loop in the reduction's own element type, named in the loop's
//   reduction clause, copied in before and out after it;
// - an atomic update (threads only), marked on the Reduce.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/local_box.hpp"
#include "ir/stmt.hpp"

namespace teml::lowering {

// The box of `tensor` a private array per thread would hold for reduction
// `r` under loop `f` on threads, where every access to the tensor in the
// loop is a reduction with r's operator and the box stays in place while
// the loop runs; nullopt where the reduction stays an atomic update (also
// where the copy would be too large, or updated too few times to pay for
// zeroing and merging it). The automatic schedule weighs it too.
std::optional<analysis::LocalBox> privateArrayBox(const ir::For& f, const ir::Reduce& r, const ir::TensorDecl& tensor);

// `scheduled`: the nest as the schedule left it, which isl is asked about
// (statements the lowering stage adds are not described to isl); `tensors`:
// the program's; `names`: every tensor name in use (accumulators get fresh
// ones); `cacheDir`: where isl's answers are kept ("": nowhere).
ir::StmtP makeParallelReductions(const ir::StmtP& nest, const ir::StmtP& scheduled,
                                 const std::vector<ir::TensorDecl>& tensors, std::set<std::string>& names,
                                 const std::string& cacheDir = "");

}  // namespace teml::lowering
