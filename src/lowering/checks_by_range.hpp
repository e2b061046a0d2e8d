// Index checks that cost little. A run-time check whose condition holds for
// every value its index tensors hold (`0 <= idx[k] < N` when idx's smallest
// element is at least 0 and its largest below N) is decided once per call:
// the nest first finds each such tensor's smallest and largest element (one
// pass over it, which the C compiler vectorizes), then runs a copy of
// itself without those checks when the ranges prove them all, and as
// written otherwise. Data out of range anywhere in the tensor, even in
// elements the program never reads, only sends the call down the checked
// copy: what fails, fails there, with its message, and nothing else does.
//
// Only tensors the program never writes (caller's inputs) are ranged, so
// their values cannot change while the nest runs.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/stmt.hpp"
#include "ir/tensor_decl.hpp"

namespace teml::lowering {

// The id of the branch between the copy without the proved checks (`then`)
// and the nest as it was (`otherwise`); -v's decisions name the first only.
inline constexpr const char* kChecksByRangeId = "checks_by_range";

// `nest` unchanged when none of its checks follows from the ranges of
// `rangeable` (integer tensors the program never writes, of `tensors`).
ir::StmtP versionChecksByRange(const ir::StmtP& nest, const std::vector<ir::TensorDecl>& tensors,
                               const std::set<std::string>& rangeable, const std::set<std::string>& namesInUse);

}  // namespace teml::lowering
