// Sums over a loop whose terms share a factor: `t[I] += c * g` where c (a
// product of factors) uses no iterator of the loop or of loops inside it and
// reads no tensor written inside it, so that the sum over the loop equals
// c times the sum of g (up to the rounding of floating-point numbers).
// factor_sum marks such a loop; the lowering stage then keeps
// only g's sum in a register and multiplies by c once after the loop.
#pragma once
#include <optional>

#include "ir/stmt.hpp"

namespace teml::analysis {

struct FactoredSum {
  ir::ExprP shared;   // c: the same for every iteration of the loop
  ir::ExprP varying;  // g: what the sum adds up
};

// r is a `+=` inside f whose target stays put while f runs and whose value
// is a floating-point product with both kinds of factors; nothing otherwise.
std::optional<FactoredSum> factoredSum(const ir::Reduce& r, const ir::For& f);

}  // namespace teml::analysis
