// A read-only walk over the IR. Every method's default visits every child
// (loop bounds, indices, values, conditions, bodies, a library call's
// reference nest; not a statement's tag, which is bookkeeping), so a pass
// overrides only the nodes it cares about and calls the base method to go on.
// Overriding visit(ExprP) or visit(StmtP) sees every node, in pre-order when
// the override acts before calling the base.
#pragma once
#include "ir/functor.hpp"

namespace teml::ir {

class Visitor : protected ExprFunctor<void()>, protected StmtFunctor<void()> {
 public:
  virtual void visit(const ExprP& e) { ExprFunctor<void()>::dispatch(e); }
  virtual void visit(const StmtP& s) { StmtFunctor<void()>::dispatch(s); }
  void visit(const std::vector<ExprP>& es) {
    for (auto& e : es) visit(e);
  }

 protected:
#define TEML_EXPR_NODE(Kind) void visit##Kind(const Kind& node) override;
#define TEML_STMT_NODE(Kind) void visit##Kind(const Kind& node) override;
#include "ir/nodes.def"
};

}  // namespace teml::ir
