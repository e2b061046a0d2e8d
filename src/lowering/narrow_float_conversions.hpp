// An integer iterator expression converted to a float goes through a 32-bit
// integer where the constant bounds of the loops around it keep it in
// range: float(2 * j + 1) becomes float(int32(2 * j + 1)). AVX2 converts
// 32-bit lanes to floats but not 64-bit ones, so without this a pixel loop
// that computes its coordinates from its iterator stays scalar.
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

ir::StmtP narrowFloatConversions(const ir::StmtP& nest);

}  // namespace teml::lowering
