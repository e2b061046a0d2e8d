// The backward program of a forward nest: statements in reverse order, loops
// run backwards (unless their order cannot matter), and each store or reduction into a tensor that carries a
// gradient replaced by its adjoint updates:
//   y[I] = e    ->  x.grad[J] += y.grad[I] * de/dx[J] for each load x[J] of e,
//                   then y.grad[I] = 0 (the value before the store did not reach y)
//   y[I] += e   ->  x.grad[J] += y.grad[I] * de/dx[J]
//   y[I] *= e   ->  x.grad[J] += y.grad[I] * y[I] * de/dx[J] (y[I] put back as it was),
//                   then y.grad[I] = y.grad[I] * e
// Guards keep their conditions, checks stay in front of what they guard.
// A tensor defined inside the program (a VarDef) is available where the
// backward pass needs it: its scope in the backward program first runs the
// statements that write it again (and the tensors defined inside), or
// loads its version from the tape the forward pass stored it in
// (autodiff/tapes), then the adjoints, with its own gradient defined there. The forward values read
// are the forward pass's final ones, rewound: each statement that
// overwrote an element the backward pass reads puts it back before its
// adjoint (autodiff/versions).
#pragma once
#include <map>
#include <set>
#include <string>

#include "autodiff/tapes.hpp"
#include "autodiff/versions.hpp"
#include "ir/stmt.hpp"

namespace teml::autodiff {

// `active`: tensors that carry a gradient; `gradientOf` names each one's
// gradient tensor. Null when the nest contributes nothing.
// `resultsKept`: the stores y[I] = exp(u) (sigmoid, tanh, sqrt) whose
// element the backward pass meets as they left it (autodiff/
// overwritten_reads's metAsLeft): the partial reads y[I] back instead of
// computing exp(u) again.
ir::StmtP backwardNest(const ir::StmtP& nest, const std::set<std::string>& active,
                       const std::map<std::string, std::string>& gradientOf,
                       const std::map<std::string, TapeChoice>& tapes,
                       const std::map<std::string, SavedWrite>& saves, const std::set<std::string>& resultsKept);

}  // namespace teml::autodiff
