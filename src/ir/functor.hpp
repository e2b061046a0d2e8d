// Dispatch on node kinds. ExprFunctor and StmtFunctor call one method per
// kind with the node as its own type and must handle every kind (pure
// virtual methods): use them for evaluators, printers and emitters. The
// Visitor (visitor.hpp) and the Mutator (mutator.hpp) are built on them and
// recurse into every child by default. Outside src/ir nothing switches on a
// node's kind.
#pragma once
#include <stdexcept>

#include "ir/stmt.hpp"

namespace teml::ir {

template <class Signature>
class ExprFunctor;

template <class R, class... Args>
class ExprFunctor<R(Args...)> {
 public:
  virtual ~ExprFunctor() = default;
  R operator()(const ExprP& e, Args... args) { return dispatch(e, args...); }

 protected:
  R dispatch(const ExprP& e, Args... args) {
    switch (e->kind) {
#define TEML_EXPR_NODE(Kind) \
  case ExprKind::Kind: return visit##Kind(static_cast<const Kind&>(*e), args...);
#include "ir/nodes.def"
    }
    throw std::logic_error("ExprFunctor: unknown expression kind");
  }
#define TEML_EXPR_NODE(Kind) virtual R visit##Kind(const Kind& node, Args... args) = 0;
#include "ir/nodes.def"
};

template <class Signature>
class StmtFunctor;

template <class R, class... Args>
class StmtFunctor<R(Args...)> {
 public:
  virtual ~StmtFunctor() = default;
  R operator()(const StmtP& s, Args... args) { return dispatch(s, args...); }

 protected:
  R dispatch(const StmtP& s, Args... args) {
    switch (s->kind) {
#define TEML_STMT_NODE(Kind) \
  case StmtKind::Kind: return visit##Kind(static_cast<const Kind&>(*s), args...);
#include "ir/nodes.def"
    }
    throw std::logic_error("StmtFunctor: unknown statement kind");
  }
#define TEML_STMT_NODE(Kind) virtual R visit##Kind(const Kind& node, Args... args) = 0;
#include "ir/nodes.def"
};

}  // namespace teml::ir
