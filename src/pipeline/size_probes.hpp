// The same free-form entry at other sizes, for kernels that serve every
// shape (backend/cpu/size_generic_kernels.hpp): what its C looks like when
// the sizes read from the inputs' shapes change tells which numerals are
// theirs.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frontend/freeform/freeform.hpp"

namespace teml::pipeline {

// The C (by `emit`) of the entry compiled as `options` say but at other
// values of the sizes in `inputSizes` of 128 or more, each set of values a
// probe: every such size 256 larger, about half and about three times as
// large (each the same modulo 256, so tiles and vectors divide them as they
// divide the given sizes), and one larger where 16 does not divide it (the
// counts that vectors leave over change); where the first changes more than
// numerals, each size 256 larger alone. Smaller sizes stay as they are, so
// their numerals stay constants, which the C compiler unrolls and folds: a
// new value of one gets a kernel of its own. A probe whose C differs from
// `base` in more than numerals, or at which the program is refused, is
// dropped. Probes stop after about half a second (TEML_SIZE_PROBE_SECONDS), each expected to take as
// long as the longest compile so far (at first `baseSeconds`, what compiling
// `base` took): a program that takes longer to compile gets no probe and a
// kernel per shape until its second shape (backend/cpu/size_generic_kernels).
std::vector<std::string> sizeProbes(const std::string& source, const freeform::FreeformOptions& options,
                                    const std::map<std::string, int64_t>& inputSizes,
                                    const std::function<std::string(const ir::Program&)>& emit,
                                    const std::string& base, double baseSeconds);

}  // namespace teml::pipeline
