#include "ir/scoped_visitor.hpp"

namespace teml::ir {

ScopedVisitor::ScopedVisitor(const std::vector<TensorDecl>& programTensors) {
  for (auto& t : programTensors) tensors_[t.name].push_back({&t, false});
}

void ScopedVisitor::visitFor(const For& f) {
  visit(f.begin);
  visit(f.end);
  loops_.push_back(&f);
  visit(f.body);
  loops_.pop_back();
}

void ScopedVisitor::visitVarDef(const VarDef& v) {
  tensors_[v.decl.name].push_back({&v.decl, true});
  visit(v.body);
  tensors_[v.decl.name].pop_back();
}

bool ScopedVisitor::isBound(const std::string& iterator) const {
  for (auto* f : loops_)
    if (f->var == iterator) return true;
  return false;
}

const TensorDecl* ScopedVisitor::tensor(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() || it->second.empty() ? nullptr : it->second.back().decl;
}

bool ScopedVisitor::isScoped(const std::string& name) const {
  auto it = tensors_.find(name);
  return it != tensors_.end() && !it->second.empty() && it->second.back().scoped;
}

}  // namespace teml::ir
