// Versions of overwritten values (FreeTensor's version analysis, for the
// statements autodiff/overwritten_reads finds). Each instance of a
// statement W that overwrites an element the backward pass reads as it was
// first saves the element into a tape with one dimension per loop around
// W, indexed by those loops' iterators (`X.old1[i, j]`: the version is a
// function of the iterators, not a run-time counter). The backward pass
// runs W's instances in reverse and puts each element back before W's
// adjoint, so every adjoint sees the values its forward instance saw.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autodiff/tapes.hpp"
#include "ir/program.hpp"

namespace teml::autodiff {

struct SavedWrite {
  std::string tensor;           // the tensor W writes
  ir::DType dtype = ir::DType::F64;
  std::string tape;             // the program tensor holding the saved elements
  std::vector<TapeLoop> loops;  // around W, outermost first
};

// Per nest: statement id -> its saved write.
using SavedWrites = std::vector<std::map<std::string, SavedWrite>>;

// Throws UserError when a loop around an overwriting statement has no
// constant trip count or a step other than 1 or -1. `names` holds the
// program's names; the tapes' are added.
SavedWrites saveWrites(const ir::Program& forward, const std::vector<std::set<std::string>>& writers,
                       std::set<std::string>& names);

// The program with each saving statement in front of its W, and the tapes
// declared (temporaries).
ir::Program recordSaves(const ir::Program& p, const SavedWrites& saves);

// X[I] = tape[version]: W's element back as it was (the loops around have
// the forward's iterators).
ir::StmtP restore(const SavedWrite& save, const std::vector<ir::ExprP>& indices);

}  // namespace teml::autodiff
