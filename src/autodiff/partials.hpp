// Reverse mode through one expression: for every floating-point element the
// expression loads, the amount `seed` times the expression's partial
// derivative with respect to that load (the chain rule applied from the root
// down). Integer and boolean values carry no gradient: indices, conditions,
// casts from integers and comparisons contribute nothing. min, max and
// select pass the seed to the side they take (min and max: half to each side on a tie).
// The adjoint of a subexpression with more than one element below it that
// carries a gradient is computed once, into a scalar of its own (reverse
// mode's intermediate adjoints), and the partials below read that scalar:
// the chain-rule products would otherwise repeat in every partial, and
// compilers keep common conditions as boolean values they cannot vectorize.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/expr.hpp"
#include "ir/program.hpp"

namespace teml::autodiff {

struct Partial {
  const ir::Load* at;       // the element, as the expression loads it
  ir::ExprP contribution;   // seed * d(expression) / d(element), in the element's type
};

struct SharedAdjoint {
  ir::TensorDecl scalar;  // a fresh scalar
  ir::ExprP value;        // may read the scalars before it
};

struct Partials {
  std::vector<SharedAdjoint> shared;  // to compute first, in order
  std::vector<Partial> partials;
};

// `carries`: whether a load's element carries a gradient; `freshName`: a name
// for a new scalar.
Partials partials(const ir::ExprP& e, const ir::ExprP& seed, const std::function<bool(const ir::Load&)>& carries,
                  const std::function<std::string()>& freshName);

// For e = exp(u), sigmoid(u), tanh(u) or sqrt(u): de/du written in terms of
// `result`, e's value (exp: result; sigmoid: result * (1 - result); ...),
// so that a backward pass that still has e's value need not compute it
// again. Null for any other e.
ir::ExprP partialOfResult(const ir::ExprP& e, const ir::ExprP& result);

}  // namespace teml::autodiff
