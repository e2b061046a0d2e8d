// Loops over the entries of one row of a compressed-row (CSR) array,
//   for i in ...:
//       for k in range(P[i + c], P[i + c + 1]):      (or counted down, as
//           ...                                        the backward pass runs it)
// When P does not decrease, the rows of different i do not overlap: k alone
// tells which i it belongs to, so writes indexed by k in different
// iterations of i never meet. The free-form front end checks it at run
// time, row by row (rowOrderCheck around the row loop: P[i + c] <= P[i + c
// + 1], one comparison a row), and the dependence analysis relies on it
// only for row loops inside that check.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "ir/stmt.hpp"
#include "ir/tensor_decl.hpp"

namespace teml::ir {

// A loop over a row: its row array P and the row, r in P[r] .. P[r + 1].
struct CsrRow {
  std::string rows;
  ExprP row;
};

// The row `k` runs over (step 1, or -1 from P[r + 1] - 1 down), if it does.
std::optional<CsrRow> csrRowOf(const For& k);

// assert P[row] <= P[row + 1] around `loop`, naming P and the row.
StmtP rowOrderCheck(const std::string& rows, DType dtype, const ExprP& row, SourceLoc loc, const StmtP& loop);

// The same check for every row of P (of `length` entries), as a loop.
StmtP wholeRowOrderCheck(const std::string& rows, DType dtype, int64_t length, SourceLoc loc);

// The array an order check (of either kind) is about, if `a` is one.
std::optional<std::string> rowOrderChecked(const Assert& a);

// The row loops of `s` inside their row order check, by id.
std::map<std::string, std::pair<const For*, CsrRow>> checkedRowLoops(const StmtP& s);

}  // namespace teml::ir
