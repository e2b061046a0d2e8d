// Reverse mode through one expression: for every floating-point element the
// expression loads, the amount `seed` times the expression's partial
// derivative with respect to that load (the chain rule applied from the root
// down). Integer and boolean values carry no gradient: indices, conditions,
// casts from integers and comparisons contribute nothing. min, max and
// select pass the seed to the side they take (the first operand on a tie).
#pragma once
#include <vector>

#include "ir/expr.hpp"

namespace teml::autodiff {

struct Partial {
  const ir::Load* at;       // the element, as the expression loads it
  ir::ExprP contribution;   // seed * d(expression) / d(element), in the element's type
};

std::vector<Partial> partials(const ir::ExprP& e, const ir::ExprP& seed);

}  // namespace teml::autodiff
