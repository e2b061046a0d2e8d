// A whole lowered program: the tensors it declares, their initial values set
// by the program (TeML's init), each tensor's role, and the loop nests to
// run, in order.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/distribution.hpp"
#include "ir/stmt.hpp"
#include "ir/tensor_decl.hpp"

namespace teml::ir {

// What a program tensor is to the caller and to the passes of a gradient
// program. Set where the tensor is made (front ends, autodiff), read by
// every path that runs a program (the CLI, Python, PyTorch, the GPU): none
// of them works a role out for itself.
enum class TensorRole {
  Input,      // the caller's values, only read
  Output,     // written for the caller
  InOut,      // the caller's values, updated
  Temporary,  // the program's own (a front end's intermediate, a copy), not a result
  Saved,      // elements a statement overwrites, kept by the forward pass for the backward pass
  Tape,       // a local tensor's values, kept by the forward pass for the backward pass
  Gradient,   // X.grad of a tensor the caller differentiates with respect to (--wrt): starts at zero
  Adjoint,    // the gradient of an intermediate: starts at zero in every backward pass
  Weights,    // OUT.grad: the weights of the differentiated sum (--of), the caller's
};
// "input", "output", "inout", "temporary", "saved", "tape", "gradient", "adjoint", "weights"
const char* roleName(TensorRole r);
// The caller gives or receives its values: input, output, inout, gradient, weights.
bool isCallers(TensorRole r);

struct Program {
  std::vector<TensorDecl> tensors;
  std::map<std::string, double> initialValues;  // tensor -> value every element starts with
  std::vector<StmtP> nests;                     // executed in this order
  std::map<std::string, TensorRole> roles;      // of each program tensor (ir::assignCallerRoles)
  // A gradient program: its first backward nest (the nests before it are the
  // forward pass, which fills tapes and saved values). None: not a gradient.
  // Passes after the gradient stage keep nests one to one (the automatic
  // schedule does), so the index stays right.
  std::optional<size_t> backwardStart;
  Distribution distribution;                    // lowered for several MPI ranks (ranks > 1)
  // Tensors the nests define (VarDef, not loop-local) whose every element is
  // stored before anything reads it (analysis/written_before_read): code
  // generation leaves them unfilled, so that no call pays to zero them and
  // an MPI rank is resident only in the part it touches.
  std::set<std::string> temporariesWrittenFirst;

  // The last tensor of that name: a view that appends the tensors a nest
  // defines finds the innermost.
  const TensorDecl* find(const std::string& name) const {
    for (auto t = tensors.rbegin(); t != tensors.rend(); ++t)
      if (t->name == name) return &*t;
    return nullptr;
  }
  // The role set for `name`; InternalError for a tensor without one.
  TensorRole roleOf(const std::string& name) const;
  bool isTemporary(const std::string& name) const { return !isCallers(roleOf(name)); }
};

// Roles for the tensors a front end left without one, by the rule of the
// languages that declare no access (TeML, TeIL, the iterator language): a
// tensor some nest writes is a result (output), any other an input. Front
// ends that know more (free-form's annotations, TeIL's intermediates) set
// theirs first. Called where each front end's program is complete; drops
// the roles of tensors no longer declared.
void assignCallerRoles(Program& p);

}  // namespace teml::ir
