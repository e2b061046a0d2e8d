// The TeIL front end: `alloc x : [sizes]` declarations and `x = e`
// assignments of collective tensor expressions (add, mul, prod, red+, red*,
// redmax, redmin, transp, diag, expa, proj, contr), typed by types/ and
// lowered to the loop IR. docs/teil.md is the reference.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "types/teil_types.hpp"

namespace teml::teil {

struct Alloc {
  std::string name;
  types::Shape shape;
  SourceLoc loc;
};

struct Assign {
  std::string target;
  types::TExprP value;
  SourceLoc loc;
};

struct TeilProgram {
  std::vector<Alloc> allocs;
  std::vector<Assign> statements;
  std::set<std::string> temporaries;  // allocations added by rewriting, not the user's
};

// Sizes (in `alloc` and as integer arguments) are literals or names bound in `sizes`.
TeilProgram parseTeil(const std::string& source, const std::map<std::string, int64_t>& sizes);
// OK-Prog and OK-Stmt: unique allocations, every statement's expression has
// its target's shape. Throws UserError naming the rule.
void checkTeil(const TeilProgram& p);
// Algebraic rewriting by the equations of the TeIL paper's Section 3.6:
// proj i m (expa i n e) = e; diag i0 i1 (transp i0 i1 e) = diag i0 i1 e;
// red+ i (expa i n e) = n * e (redmax, redmin: e); a transposition undone by
// the same one disappears; parentheses go. Types are preserved.
TeilProgram rewriteTeil(const TeilProgram& p);
// The program in TeIL syntax (a rewritten one may hold "scale n e").
std::string toString(const TeilProgram& p);
// Contraction lifting: an assignment x = contr ... (contr ... (prod of three
// or more operands)) becomes a sequence of assignments of single (binary)
// contractions into new tensors _c1, _c2, ..., smallest result first, and a
// final transposition into x: (A x B x C)(u) costs O(n^4) instead of O(n^6),
// and the outer product is never formed. Other statements are kept. The
// input must be well-typed (checkTeil); so is the output.
TeilProgram liftContractions(const TeilProgram& p);
// One loop nest per assignment and per reduction inside an expression; an
// assignment whose expression reads its target sees the target's old values.
ir::Program buildTeil(const TeilProgram& p);

}  // namespace teml::teil
