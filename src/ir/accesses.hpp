// The one answer to "what does this statement read and write". Every
// analysis, schedule and emitter asks it instead of walking the IR itself,
// so they agree on loads inside subscripts, loop bounds and conditions.
#pragma once
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::ir {

enum class AccessKind { Read, Store, Reduce };

struct Access {
  AccessKind kind;
  std::string tensor;
  std::vector<ExprP> indices;
  const Stmt* stmt;            // the statement the access belongs to (for a read in a loop bound: the For)
  ReduceOp op = ReduceOp::Add;  // of a Reduce
  bool inControl = false;      // a read in a loop bound, a branch or assertion condition, or a value an assertion shows
};

struct AccessOptions {
  bool loadsInSubscripts = true;  // loads inside indices (indirect accesses) count as reads
  bool control = true;            // reads in loop bounds, conditions and assertions count
  bool libraryCalls = true;       // the reference nest of a LibCall counts
};

// Every access of `s` in program order; a Store's or Reduce's reads come
// before its write.
std::vector<Access> accessesOf(const StmtP& s, AccessOptions options = {});

// The reads of evaluating `e` (loads inside subscripts included when asked).
std::vector<Access> readsOf(const ExprP& e, const Stmt* stmt = nullptr, bool loadsInSubscripts = true);
// Whether evaluating `e` reads `tensor`.
bool reads(const ExprP& e, const std::string& tensor);

}  // namespace teml::ir
