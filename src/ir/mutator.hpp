// Base class for passes that rebuild the IR. Override the node kinds a pass
// cares about (one method per kind of ir/nodes.def); the defaults mutate every
// child, tags included, and rebuild a node only when one of them changed.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>

#include "ir/stmt.hpp"

namespace teml::ir {

class Mutator {
 public:
  virtual ~Mutator() = default;
  virtual ExprP mutate(const ExprP& e);
  virtual StmtP mutate(const StmtP& s);

 protected:
#define TEML_EXPR_NODE(Kind) virtual ExprP mutate##Kind(const ExprP& e);
#define TEML_STMT_NODE(Kind) virtual StmtP mutate##Kind(const StmtP& s);
#include "ir/nodes.def"
  std::vector<ExprP> mutateAll(const std::vector<ExprP>& es, bool* changed);
  StmtTag mutateTag(const StmtTag& tag, bool* changed);
};

// Replaces iterators by expressions (a simultaneous substitution).
ExprP substitute(const ExprP& e, const std::map<std::string, ExprP>& subst);
StmtP substitute(const StmtP& s, const std::map<std::string, ExprP>& subst);

// Calls f on every statement of s (pre-order).
void forEachStmt(const StmtP& s, const std::function<void(const StmtP&)>& f);
// Calls f on every expression of e (pre-order) / of s's statements.
void forEachExpr(const ExprP& e, const std::function<void(const ExprP&)>& f);
void forEachExprIn(const StmtP& s, const std::function<void(const ExprP&)>& f);

// Every tensor s stores to, reduces into or loads from.
std::set<std::string> tensorsAccessed(const StmtP& s);
// Every tensor s stores to or reduces into.
std::set<std::string> tensorsWritten(const StmtP& s);

// A tensor local to a loop, with that loop.
struct LocalOf {
  const For* loop;
  LocalTensor tensor;
};
// The local tensors of every loop in s (s included), outer loops first.
std::vector<LocalOf> localTensorsIn(const StmtP& s);

}  // namespace teml::ir
