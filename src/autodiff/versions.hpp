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
  std::vector<TapeLoop> loops;  // around W, outermost first (versions by iteration)
  std::vector<std::string> around;  // the iterators of every loop around W
  // Versions by the element written, where a loop around W has a trip count
  // that data decide (`for k in range(ptr[i], ptr[i + 1])`): the tape has
  // the tensor's shape, indexed by W's indices, and `once` (bools of that
  // shape, cleared when W's nest starts) checks at run time that no two
  // instances of W write one element. Empty: versions by iteration.
  std::string once;
  std::vector<int64_t> shape;   // the tensor's (versions by element)
  SourceLoc loc;
  std::string dataLoop;         // the loop whose trip count data decide
  // An invertible update (`+=`, `*=` by a nonzero constant) that the
  // backward pass meets as it left its element is undone in place, X[I] =
  // inverse, when that costs fewer operations than the tape's traffic: no
  // tape then. Null: kept in the tape.
  ir::ExprP inverse;
  std::string why;              // for -v: undone or kept, and the costs
};

// Per nest: statement id -> its saved write.
using SavedWrites = std::vector<std::map<std::string, SavedWrite>>;

// Versions by iteration where every loop around an overwriting statement
// has a constant trip count and a step of 1 or -1, else by element. Throws
// UserError when versions by element cannot be told apart: a loop around the
// statement whose iterator its indices do not use (its instances would write
// one element again). `names` holds the program's names; the tapes' are added.
// `undoable`: per nest, the writers autodiff/overwritten_reads's metAsLeft
// finds.
SavedWrites saveWrites(const ir::Program& forward, const std::vector<std::set<std::string>>& writers,
                       const std::vector<std::set<std::string>>& undoable, std::set<std::string>& names);

// The program with each saving statement in front of its W (with the
// run-time check of versions by element, whose bools are cleared when the
// nest starts), and the tapes declared (role Saved).
ir::Program recordSaves(const ir::Program& p, const SavedWrites& saves);

// X[I] = tape[version]: W's element back as it was (the loops around have
// the forward's iterators; by element, the version is I).
std::vector<ir::ExprP> versionOf(const SavedWrite& save, const std::vector<ir::ExprP>& indices);
ir::StmtP restore(const SavedWrite& save, const std::vector<ir::ExprP>& indices);

}  // namespace teml::autodiff
