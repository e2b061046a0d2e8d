#include "analysis/copy_nests.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "ir/affine.hpp"
#include "ir/mutator.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

// How far each loop of the nest moves an access, in elements of its storage.
bool elementStrides(const std::string& tensor, const std::vector<ExprP>& idx, const std::vector<const For*>& loops,
                    const DeclOf& storage, std::map<std::string, int64_t>* out) {
  const TensorDecl* decl = storage(tensor);
  if (!decl) return false;
  const std::vector<int64_t>& extent = decl->shape;
  if (extent.size() != idx.size()) return false;
  int64_t stride = 1;
  for (size_t d = idx.size(); d-- > 0;) {
    Affine a;
    if (!toAffine(idx[d], &a)) return false;
    for (auto* l : loops) (*out)[l->var] += a.coeff(l->var) * stride;
    stride *= extent[d];
  }
  return true;
}

}  // namespace

const Store* copyNest(const For& f, const DeclOf& storage, std::vector<const For*>* loops) {
  const StmtP* s = nullptr;
  for (const For* l = &f;;) {
    if (l->loopKind.concurrent() || l->step != 1) return nullptr;  // a local: the body is a VarDef
    loops->push_back(l);
    s = &l->body;
    if ((*s)->kind != StmtKind::For) break;
    l = static_cast<const For*>(s->get());
  }
  if (loops->size() < 2 || (*s)->kind != StmtKind::Store) return nullptr;
  auto* st = static_cast<const Store*>(s->get());
  if (st->value->kind != ExprKind::Load) return nullptr;
  auto& ld = st->value->as<Load>();
  const TensorDecl *to = storage(st->tensor), *from = storage(ld.tensor);
  // Flat and vector copies are written for float elements.
  if (!to || !from || st->tensor == ld.tensor || to->dtype != from->dtype || !isFloat(to->dtype)) return nullptr;
  return st;
}

bool contiguousBlock(const std::string& tensor, const std::vector<ExprP>& idx, const std::vector<const For*>& loops,
                     const DeclOf& storage, std::vector<ExprP>* first) {
  const TensorDecl* decl = storage(tensor);
  if (!decl) return false;
  const std::vector<int64_t>& extent = decl->shape;
  size_t n = loops.size(), rank = idx.size();
  if (rank < n || extent.size() != rank) return false;
  std::map<std::string, ExprP> starts;
  for (auto* l : loops) starts[l->var] = l->begin;
  for (size_t d = 0; d < rank; ++d) {
    Affine a;
    if (!toAffine(idx[d], &a)) return false;
    size_t k = d + n >= rank ? d + n - rank : n;  // the loop this dimension should follow
    for (size_t j = 0; j < n; ++j)
      if (a.coeff(loops[j]->var) != (j == k ? 1 : 0)) return false;
    if (k == 0 || k == n) continue;
    // An inner dimension: the loop runs over all of it, from its first element.
    int64_t begin, end;
    if (!constValue(loops[k]->begin, &begin) || !constValue(loops[k]->end, &end)) return false;
    a.coeffs.erase(loops[k]->var);
    if (!a.coeffs.empty() || a.constant + begin != 0 || end - begin != extent[d]) return false;
  }
  first->clear();
  for (auto& e : idx) first->push_back(substitute(e, starts));
  return true;
}

bool gatheredOrder(const Store& st, const std::vector<const For*>& loops, const DeclOf& storage, int width,
                   std::vector<CopyLoop>* out) {
  auto& ld = st.value->as<Load>();
  // Rectangular: no loop's range depends on another loop of the nest.
  std::vector<CopyLoop> order;
  for (auto* l : loops) {
    for (auto* other : loops)
      if (usesVar(l->begin, other->var) || usesVar(l->end, other->var)) return false;
    int64_t span;
    if (!constValue(sub(l->end, l->begin), &span) || span < 1) return false;
    order.push_back({l->var, span, 0, 0});
  }
  // Every iteration writes its own element (each destination index is a
  // different loop's iterator plus an invariant), so any order is the same copy.
  std::set<std::string> seen;
  for (auto& e : st.indices) {
    Affine a;
    if (!toAffine(e, &a)) return false;
    const For* moving = nullptr;
    for (auto* l : loops)
      if (a.coeff(l->var) != 0) {
        if (moving || a.coeff(l->var) != 1) return false;
        moving = l;
      }
    if (moving && !seen.insert(moving->var).second) return false;
  }
  if (seen.size() != loops.size()) return false;
  std::map<std::string, int64_t> toStride, fromStride;
  if (!elementStrides(st.tensor, st.indices, loops, storage, &toStride) ||
      !elementStrides(ld.tensor, ld.indices, loops, storage, &fromStride))
    return false;
  for (auto& c : order) c.to = toStride[c.var], c.from = fromStride[c.var];
  std::sort(order.begin(), order.end(), [](const CopyLoop& a, const CopyLoop& b) { return a.to > b.to; });
  std::vector<CopyLoop> merged{order.front()};
  for (size_t k = 1; k < order.size(); ++k) {
    CopyLoop& outer = merged.back();
    const CopyLoop& inner = order[k];
    if (outer.to == inner.span * inner.to && outer.from == inner.span * inner.from) {
      outer = {outer.var + "_" + inner.var, outer.span * inner.span, inner.to, inner.from};
    } else {
      merged.push_back(inner);
    }
  }
  const CopyLoop& last = merged.back();
  if (last.to != 1 || last.span < width || (merged.size() == loops.size() && last.from == 1)) return false;
  *out = merged;
  return true;
}

}  // namespace teml::analysis
