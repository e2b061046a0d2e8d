// Affine views of index expressions and interval bounds of integer
// expressions: small arithmetic on the IR that front ends (bounds of
// accesses), schedules and the analyses share; dependences are isl's
// (src/analysis).
#pragma once
#include <map>
#include <string>

#include "ir/expr.hpp"

namespace teml::ir {

struct Affine {
  std::map<std::string, int64_t> coeffs;  // iterator -> coefficient (no zeros)
  int64_t constant = 0;
  int64_t coeff(const std::string& v) const {
    auto it = coeffs.find(v);
    return it == coeffs.end() ? 0 : it->second;
  }
};

// False where e is not affine in its iterators (min, max, division, loads).
bool toAffine(const ExprP& e, Affine* out);

// e with its affine parts written as one sum (`8 * o + t - 4` for
// `t - (5 + (0 - 8 * o)) + 1`), inside min and max too: bounds that
// schedules build stay readable and compare term by term.
ExprP collectTerms(const ExprP& e);

struct Interval {
  int64_t lo, hi;  // inclusive
};
using Ranges = std::map<std::string, Interval>;

// Bounds of an integer expression given the ranges of its iterators; false
// when some iterator has no range or the expression is not integer.
bool bounds(const ExprP& e, const Ranges& ranges, Interval* out);

}  // namespace teml::ir
