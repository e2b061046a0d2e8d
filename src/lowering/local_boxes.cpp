#include "lowering/local_boxes.hpp"

#include <map>

#include "ir/affine.hpp"
#include "analysis/local_box.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

// The tensor a cache's copy-in reads: the first store into `local` of a load.
std::string copiedTensor(const StmtP& body, const std::string& local) {
  std::string source;
  forEachStmt(body, [&](const StmtP& s) {
    if (!source.empty() || s->kind != StmtKind::Store) return;
    auto& st = s->as<Store>();
    if (st.tensor == local && st.value->kind == ExprKind::Load) source = st.value->as<Load>().tensor;
  });
  return source;
}

// Where the box of `source` that the loop reads starts `l.prefetchAhead`
// iterations later, and how many bytes it spans.
void planPrefetch(const For& owner, const std::string& local, const TensorDecl& source, LoopLocal* l) {
  Box box;
  std::string why;
  if (!analysis::localBox(owner.body, source.name, &box, &why)) throw InternalError("lowering: prefetch: " + why);
  int64_t distance = 0, stride = 1;
  for (size_t d = box.offset.size(); d-- > 0;) {
    ir::Affine a;
    if (!ir::toAffine(box.offset[d], &a))
      throw InternalError("lowering: prefetch of '" + local + "': the box of '" + source.name + "' is not affine");
    distance += a.coeff(owner.var) * owner.step * l->prefetchAhead * stride;
    stride *= source.shape[d];
  }
  l->prefetchDistance = distance;
  l->prefetchBytes = box.elementCount() * bytes(source.dtype);
}

// Records each local's box, in whole-tensor indices (accesses still are).
class FindBoxes : public Mutator {
 public:
  explicit FindBoxes(const std::vector<TensorDecl>& tensors) : tensors_(tensors) {}

 protected:
  StmtP mutateFor(const StmtP& s) override {
    StmtP m = Mutator::mutateFor(s);
    auto& f = m->as<For>();
    auto locals = localsOf(f);
    if (locals.empty()) return m;
    for (auto& l : locals) {
      std::string why;
      if (!analysis::localBox(f.body, l.decl.name, &l.box, &why)) throw InternalError("lowering: " + why);
      l.boxed = true;
      if (l.prefetchAhead > 0 && l.box.used) planPrefetch(f, l.decl.name, sourceOf(f, l.decl.name), &l);
    }
    return makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, loopBody(f), locals, f.made);
  }

 private:
  const TensorDecl& sourceOf(const For& f, const std::string& local) {
    std::string name = copiedTensor(loopBody(f), local);
    for (auto& t : tensors_)
      if (t.name == name) return t;
    throw InternalError("lowering: prefetching copy '" + local + "' copies no program tensor");
  }

  const std::vector<TensorDecl>& tensors_;
};

// Gives each local the box's shape and its accesses the box's coordinates;
// an inner local of the same name hides the outer one.
class ToBoxCoordinates : public Mutator {
 protected:
  StmtP mutateVarDef(const StmtP& s) override {
    auto& v = s->as<VarDef>();
    if (!v.loopLocal) return Mutator::mutateVarDef(s);
    if (!v.loopLocal->box.used) return mutate(v.body);  // nothing stored
    auto saved = corners_;
    corners_[v.decl.name] = v.loopLocal->box.offset;
    StmtP body = mutate(v.body);
    corners_ = saved;
    TensorDecl decl = v.decl;
    decl.shape = v.loopLocal->box.extent;
    return std::make_shared<VarDef>(decl, body, v.loopLocal);
  }
  ExprP mutateLoad(const ExprP& e) override {
    ExprP m = Mutator::mutateLoad(e);
    auto& l = m->as<Load>();
    auto c = corners_.find(l.tensor);
    return c == corners_.end() ? m : load(l.tensor, fromCorner(l.indices, c->second), l.dtype);
  }
  StmtP mutateStore(const StmtP& s) override {
    StmtP m = Mutator::mutateStore(s);
    auto& st = m->as<Store>();
    auto c = corners_.find(st.tensor);
    if (c == corners_.end()) return m;
    return makeStore(st.tensor, fromCorner(st.indices, c->second), st.value, st.loc, st.tag);
  }
  StmtP mutateReduce(const StmtP& s) override {
    StmtP m = Mutator::mutateReduce(s);
    auto& r = m->as<Reduce>();
    auto c = corners_.find(r.tensor);
    if (c == corners_.end()) return m;
    return makeReduce(r.op, r.tensor, fromCorner(r.indices, c->second), r.value, r.loc, r.tag, r.atomic);
  }

 private:
  static std::vector<ExprP> fromCorner(const std::vector<ExprP>& idx, const std::vector<ExprP>& corner) {
    if (idx.size() != corner.size()) throw InternalError("lowering: an access of a local tensor has the wrong rank");
    std::vector<ExprP> out;
    for (size_t d = 0; d < idx.size(); ++d) out.push_back(sub(idx[d], corner[d]));
    return out;
  }

  std::map<std::string, std::vector<ExprP>> corners_;  // locals in scope -> their box's corner
};

}  // namespace

StmtP storeLocalBoxes(const StmtP& nest, const std::vector<TensorDecl>& tensors) {
  return ToBoxCoordinates().mutate(FindBoxes(tensors).mutate(nest));
}

}  // namespace teml::lowering
