// replace_array's whole-program side (the 2017 paper's transformation, in
// TeML as replace_array(l, level, old, new)): recognizing a transposition and
// checking, once every nest is known, that each replacement keeps the results.
#pragma once
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"
#include "ir/program.hpp"

namespace teml::teml_lang {

struct Replacement {
  std::string old, replacement;
  bool isVirtual;  // a virtual transposition (one storage, new layout) or a physical copy
  SourceLoc loc;
};

// When `value` is old[v_0, ..., v_n-1] and `targetVars` lists the same plain
// iterators in another order, the tensor `old` and sigma (old dimension k is
// dimension sigma[k] of the target); false otherwise.
bool transpositionOf(const ir::ExprP& value, const std::vector<std::string>& targetVars, std::string* old,
                     std::vector<int>* sigma);

// Throws UserError (at the replace_array's line) unless, over the nests of
// `program` in their order:
//  - a virtually transposed tensor is no longer accessed, and the program
//    computes its transposition (a tensor given as data keeps its layout);
//  - a physical copy is computed after the last write of the original and
//    before any other nest reads it, and no nest writes both.
void checkReplacements(const std::vector<Replacement>& replacements, const ir::Program& program);

}  // namespace teml::teml_lang
