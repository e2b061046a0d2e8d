// Reverse-mode differentiation of a whole program (every front end's loop
// IR): the forward nests as they are, then the backward nests in reverse
// order (autodiff/backward). The result is an ordinary program: lowering,
// scheduling and both executors apply to it.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autodiff/tapes.hpp"
#include "ir/program.hpp"

namespace teml::autodiff {

struct GradientRequest {
  std::vector<std::string> wrt;  // float tensors whose gradients are wanted
  std::vector<std::string> of;   // float tensors whose (weighted) sum is differentiated
  TapeMode tapes = TapeMode::Auto;
};

struct GradientProgram {
  ir::Program program;
  // Each tensor with a gradient -> the program tensor holding it ("x.grad").
  // An `of` tensor's starts as ones: the weights of the sum (a caller may
  // give others); the backward pass uses it up.
  std::map<std::string, std::string> gradientOf;
  // For each tensor defined inside the program: stored or recomputed, and why.
  std::map<std::string, TapeChoice> tapes;
  // For each statement that overwrites values the backward pass reads: its
  // update undone in place, or the values kept in a tape, and why (-v).
  std::vector<std::string> versions;
};

// Told each pass of the gradient stage with the program before and after
// it and the seconds it took (teml --dump-passes).
using PassObserver =
    std::function<void(const std::string& pass, const ir::Program& before, const ir::Program& after, double seconds)>;

// Throws UserError naming a tensor that is not the program's, is not
// float, or whose overwritten values the backward pass would need. Its
// passes: running_reductions (running maxima and minima as reductions, the
// program the backward pass is derived from), tapes (the forward program
// storing what the backward pass reads), backward (the backward nests).
GradientProgram gradient(const ir::Program& forward, const GradientRequest& request,
                         const PassObserver& observe = nullptr);

}  // namespace teml::autodiff
