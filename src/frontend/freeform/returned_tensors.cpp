// An entry function that returns its results, as FreeTensor's programs end
// (`y = teml.empty(...)`, ..., `return y`; or `return y, z`, or
// `return {"y": y}`): each returned tensor becomes an output parameter,
// named as the caller knows it, and its elements outlive the call.
#include <cmath>

#include "frontend/freeform/builder.hpp"
#include "ir/mutator.hpp"
#include "ir/rename_tensor.hpp"

namespace teml::freeform {

using namespace ir;

namespace {

[[noreturn]] void fail(SourceLoc loc, const std::string& m) { throw UserError(loc, m); }

// `body` without the VarDef of `tensor` (its statements stay); that VarDef's
// declaration in `decl`.
class TakeVarDef : public Mutator {
 public:
  explicit TakeVarDef(std::string tensor) : tensor_(std::move(tensor)) {}
  std::optional<TensorDecl> decl;

 protected:
  StmtP mutateVarDef(const StmtP& s) override {
    auto& v = static_cast<const VarDef&>(*s);
    if (v.decl.name != tensor_ || v.loopLocal) return Mutator::mutateVarDef(s);
    decl = v.decl;
    return mutate(v.body);
  }

 private:
  std::string tensor_;
};

// `body` with the tensor or the loops' iterator named `from` named `to`
// (the accesses: renameTensor; the definitions and iterators here).
class GiveWay : public Mutator {
 public:
  GiveWay(std::string from, std::string to) : from_(std::move(from)), to_(std::move(to)) {}

 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = static_cast<const For&>(*s);
    if (f.var != from_) return Mutator::mutateFor(s);
    StmtP body = mutate(substitute(f.body, {{from_, var(to_)}}));
    return makeFor(f.id, to_, f.begin, f.end, f.step, f.loopKind, body, {}, f.made);
  }
  StmtP mutateVarDef(const StmtP& s) override {
    auto& v = static_cast<const VarDef&>(*s);
    if (v.decl.name != from_) return Mutator::mutateVarDef(s);
    TensorDecl decl = v.decl;
    decl.name = to_;
    return std::make_shared<VarDef>(decl, mutate(v.body), v.loopLocal, v.id, v.made);
  }

 private:
  std::string from_, to_;
};

}  // namespace

std::vector<StmtP> Builder::entryReturn(const Node& s) {
  if (!iterators_.empty()) fail(s.loc, "'return' inside a loop: the entry function returns its tensors once, at its end");
  frames_.back().returned = Value{};  // what follows is not run
  if (s.kids.empty()) return withChecks({});
  const NodeP& what = s.kids[0];
  std::vector<std::pair<std::string, NodeP>> items;  // the caller's name, the expression
  if (what->kind == NodeKind::Dict) {
    returnForm_ = "dict";
    for (size_t k = 0; k + 1 < what->kids.size(); k += 2) {
      if (what->kids[k]->kind != NodeKind::Str)
        fail(what->kids[k]->loc, "the keys of a returned dict are strings: the names of the outputs");
      items.push_back({what->kids[k]->text, what->kids[k + 1]});
    }
  } else if (what->kind == NodeKind::Tuple) {
    returnForm_ = "tuple";
    for (size_t k = 0; k < what->kids.size(); ++k) {
      const NodeP& e = what->kids[k];
      items.push_back({e->kind == NodeKind::Name ? e->text : "out" + std::to_string(k), e});
    }
  } else {
    returnForm_ = "one";
    items.push_back({what->kind == NodeKind::Name ? what->text : "out", what});
  }
  std::vector<StmtP> copies;
  for (auto& [name, e] : items) {
    for (auto& r : returned_)
      if (r.name == name) fail(e->loc, "the entry function returns two outputs named '" + name + "'");
    if (access_.count(name))
      fail(e->loc, "the entry function returns '" + name + "', which is a parameter: return a tensor it makes (" +
                       "with teml.empty, teml.zeros or teml.full), or name the parameter \"output\" or \"inout\"");
    Value v = eval(e);
    if (v.kind != Value::Kind::Tensor && v.kind != Value::Kind::Scalar && !v.isNumber())
      fail(e->loc, "the entry function returns tensors (or numbers); this is " + std::string(kindWord(v.kind)));
    bool own = v.kind == Value::Kind::Tensor && v.tensor->isWhole() && !access_.count(v.tensor->tensor);
    for (auto& r : returned_)
      if (own && r.tensor == v.tensor->tensor) own = false;
    std::string tensor = own ? v.tensor->tensor : "";
    if (!own) {  // a part of a tensor, an expression, a number, a tensor returned twice: a copy
      TensorP src = asTensor(v, e->loc);
      DType dtype = v.isNumber() ? v.numType : src->dtype;
      TensorP t = defineTensor(name, src->shape, dtype, e->loc);
      if (!(v.kind == Value::Kind::Tensor && v.tensor->fresh && (v.tensor->fill == 0 || std::isnan(v.tensor->fill)))) {
        auto stores = storeInto(*t, v, std::nullopt, false, e->loc);
        copies.insert(copies.end(), stores.begin(), stores.end());
      }
      tensor = t->tensor;
    }
    returned_.push_back({name, tensor, e->loc});
  }
  return withChecks(copies);
}

StmtP Builder::returnedAsOutputs(StmtP body) {
  for (auto& r : returned_) {
    TakeVarDef take(r.tensor);
    body = take.mutate(body);
    if (!take.decl) throw InternalError("the returned tensor '" + r.tensor + "' is not defined in the entry's scope");
    TensorDecl decl = *take.decl;
    if (r.tensor != r.name) {
      if (names_.count(r.name)) {  // a tensor or a loop inside a helper (libop's `y`, `k`): it gives way
        std::string other = freshName(r.name);
        body = GiveWay(r.name, other).mutate(renameTensor(body, r.name, other));
      }
      body = renameTensor(body, r.tensor, r.name);
      decl.name = r.name;
      names_.insert(r.name);
    }
    program_.tensors.push_back(decl);
    access_[r.name] = Access::Output;
  }
  return body;
}

}  // namespace teml::freeform
