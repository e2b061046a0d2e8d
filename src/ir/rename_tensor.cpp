#include "ir/rename_tensor.hpp"

#include "ir/mutator.hpp"

namespace teml::ir {

namespace {

class Rename : public Mutator {
 public:
  Rename(const std::string& from, const std::string& to) : from_(from), to_(to) {}

 protected:
  ExprP mutateLoad(const ExprP& e) override {
    auto& l = static_cast<const Load&>(*e);
    bool changed = false;
    auto idx = mutateAll(l.indices, &changed);
    if (l.tensor == from_) return load(to_, std::move(idx), l.dtype);
    return changed ? load(l.tensor, std::move(idx), l.dtype) : e;
  }
  StmtP mutateStore(const StmtP& s) override {
    StmtP m = Mutator::mutateStore(s);
    auto& n = static_cast<const Store&>(*m);
    if (n.tensor != from_) return m;
    return std::make_shared<Store>(to_, n.indices, n.value, n.loc, n.tag, n.id, n.made);
  }
  StmtP mutateReduce(const StmtP& s) override {
    StmtP m = Mutator::mutateReduce(s);
    auto& n = static_cast<const Reduce&>(*m);
    if (n.tensor != from_) return m;
    return std::make_shared<Reduce>(n.op, to_, n.indices, n.value, n.loc, n.tag, n.atomic, n.id, n.made);
  }

 private:
  const std::string &from_, &to_;
};

}  // namespace

StmtP renameTensor(const StmtP& s, const std::string& from, const std::string& to) { return Rename(from, to).mutate(s); }

}  // namespace teml::ir
