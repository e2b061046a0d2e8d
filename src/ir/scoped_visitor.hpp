// A Visitor that knows what is in scope at every node (FreeTensor's
// SymbolTable): the loops around it, outermost first, and the tensors
// defined around it — program tensors, loops' local tensors, VarDefs, the
// innermost definition of a name winning. A pass derives from it and calls
// the base visitFor / visitVarDef where it overrides them.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/visitor.hpp"

namespace teml::ir {

class ScopedVisitor : public Visitor {
 public:
  explicit ScopedVisitor(const std::vector<TensorDecl>& programTensors = {});

 protected:
  // The bounds are visited outside the loop's scope, the body inside it.
  void visitFor(const For& f) override;
  void visitVarDef(const VarDef& v) override;

  const std::vector<const For*>& loops() const { return loops_; }
  bool isBound(const std::string& iterator) const;
  // The innermost definition of `name` in scope, or null.
  const TensorDecl* tensor(const std::string& name) const;
  // Defined during this walk (a VarDef or a loop's local tensor), not a program tensor.
  bool isScoped(const std::string& name) const;

 private:
  struct Definition {
    const TensorDecl* decl;
    bool scoped;
  };
  std::vector<const For*> loops_;
  std::map<std::string, std::vector<Definition>> tensors_;  // innermost last
};

}  // namespace teml::ir
