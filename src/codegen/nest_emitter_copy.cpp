// Copy nests: a nest of plain loops around one copy dst[...] = src[...].
// One whose inner loops run, in order, over whole trailing dimensions of
// both tensors (a cache's copy-out of whole rows, say) moves one contiguous
// block of memory: one flat copy, memcpy, or non-temporal vector stores when
// dst may bypass the caches. One that transposes runs in dst's order with
// whole vectors gathered from src's stride.
#include <algorithm>

#include "analysis/affine.hpp"
#include "codegen/c_text.hpp"
#include "codegen/nest_emitter.hpp"
#include "diag/diagnostics.hpp"
#include "analysis/local_box.hpp"

namespace teml::codegen {

using namespace ir;

// The first element of the block `tensor[idx]` covers over `loops`, when the
// block is contiguous in the tensor's storage (a local stores its box).
bool NestEmitter::contiguousBlock(const std::string& tensor, const std::vector<ExprP>& idx,
                                  const std::vector<const For*>& loops, std::vector<ExprP>* first) {
  auto local = activeLocals_.find(tensor);
  const TensorDecl* decl = view_.find(tensor);
  if (!decl) return false;
  const std::vector<int64_t>& extent = local == activeLocals_.end() ? decl->shape : local->second.extent;
  size_t n = loops.size(), rank = idx.size();
  if (rank < n || extent.size() != rank) return false;
  std::map<std::string, ExprP> starts;
  for (auto* l : loops) starts[l->var] = l->begin;
  for (size_t d = 0; d < rank; ++d) {
    analysis::Affine a;
    if (!analysis::toAffine(idx[d], &a)) return false;
    size_t k = d + n >= rank ? d + n - rank : n;  // the loop this dimension should follow
    for (size_t j = 0; j < n; ++j)
      if (a.coeff(loops[j]->var) != (j == k ? 1 : 0)) return false;
    if (k == 0 || k == n) continue;
    // An inner dimension: the loop runs over all of it, from its first element.
    int64_t begin, end, offset = 0;
    if (!constValue(loops[k]->begin, &begin) || !constValue(loops[k]->end, &end)) return false;
    if (local != activeLocals_.end() && !constValue(local->second.offset[d], &offset)) return false;
    a.coeffs.erase(loops[k]->var);
    if (!a.coeffs.empty() || a.constant + begin != offset || end - begin != extent[d]) return false;
  }
  first->clear();
  for (auto& e : idx) first->push_back(substitute(e, starts));
  return true;
}

// A perfect nest of at least two plain loops around one copy dst[...] =
// src[...] between two tensors of one element type: the copy, with the
// loops outermost first; null otherwise.
const Store* NestEmitter::copyNest(const For& f, std::vector<const For*>* loops) {
  const StmtP* s = nullptr;
  for (const For* l = &f;;) {
    if (l->loopKind.threads() || l->loopKind.lanes() || l->step != 1) return nullptr;  // a local: the body is a VarDef
    loops->push_back(l);
    s = &l->body;
    if ((*s)->kind != StmtKind::For) break;
    l = static_cast<const For*>(s->get());
  }
  if (loops->size() < 2 || (*s)->kind != StmtKind::Store) return nullptr;
  auto* st = static_cast<const Store*>(s->get());
  if (st->value->kind != ExprKind::Load) return nullptr;
  auto& ld = static_cast<const Load&>(*st->value);
  const TensorDecl *to = view_.find(st->tensor), *from = view_.find(ld.tensor);
  // Flat and vector copies are written for float elements.
  if (!to || !from || st->tensor == ld.tensor || to->dtype != from->dtype || !isFloat(to->dtype)) return nullptr;
  return st;
}

bool NestEmitter::emitContiguousCopy(const For& f, int indent) {
  std::vector<const For*> loops;
  const Store* copy = copyNest(f, &loops);
  if (!copy) return false;
  auto& st = *copy;
  auto& ld = static_cast<const Load&>(*st.value);
  const TensorDecl *to = view_.find(st.tensor), *from = view_.find(ld.tensor);
  std::vector<ExprP> toFirst, fromFirst;
  if (prefetching_.count(st.tensor)) return false;  // the reordered copy interleaves the prefetches
  if (!contiguousBlock(st.tensor, st.indices, loops, &toFirst) || !contiguousBlock(ld.tensor, ld.indices, loops, &fromFirst))
    return false;
  int64_t perRow = 1;
  for (size_t k = 1; k < loops.size(); ++k) perRow *= static_cast<const IntConst&>(*sub(loops[k]->end, loops[k]->begin)).value;
  bool single = to->dtype == DType::F32;
  std::string type = cType(to->dtype);
  std::string t = names_.claim("to"), fr = names_.claim("from"), n = names_.claim("n");
  line(indent, "{");
  line(indent + 1, type + " *restrict " + t + " = &" + access(st.tensor, toFirst) + ";");
  line(indent + 1, "const " + type + " *restrict " + fr + " = &" + access(ld.tensor, fromFirst) + ";");
  line(indent + 1, "long " + n + " = " + expr(mul(sub(loops[0]->end, loops[0]->begin), intConst(perRow)), 0, false, false) + ";");
  int64_t bytes = to->elementCount() * (single ? 4 : 8);
  if (!activeLocals_.count(st.tensor) && !notOnlyStored_.count(st.tensor) && bytes >= kStreamingBytes) {
    // Scalars up to a vector boundary of dst, whole vectors past the caches, scalars for the rest.
    std::string i = names_.claim("f"), w = std::to_string(target_.vectorBytes / (single ? 4 : 8));
    std::string vec = single ? "teml_vf" : "teml_vd";
    line(indent + 1, "long " + i + " = 0;");
    line(indent + 1, "for (; " + i + " < " + n + " && ((unsigned long)(" + t + " + " + i + ")) % " +
                         std::to_string(target_.vectorBytes) + " != 0; " + i + "++) " + t + "[" + i + "] = " + fr + "[" + i + "];");
    line(indent + 1, "for (; " + i + " + " + w + " <= " + n + "; " + i + " += " + w + ") teml_stream_" + vec.substr(5) +
                         "(" + t + " + " + i + ", (" + vec + "_aligned)*(const " + vec + " *)(" + fr + " + " + i + "));");
    line(indent + 1, "for (; " + i + " < " + n + "; " + i + "++) " + t + "[" + i + "] = " + fr + "[" + i + "];");
    streamed_ = true;
    names_.release(i);
  } else {
    line(indent + 1, "if (" + n + " > 0) memcpy(" + t + ", " + fr + ", " + n + " * sizeof(" + type + "));");
  }
  line(indent, "}");
  names_.release(n);
  names_.release(fr);
  names_.release(t);
  return true;
}

namespace {

// One loop of a copy nest: its span and how far one step moves the source
// and the destination, in elements.
struct CopyLoop {
  std::string var;
  int64_t span, to, from;
};

}  // namespace

// How far each loop of the nest moves an access, in elements of its storage.
bool NestEmitter::elementStrides(const std::string& tensor, const std::vector<ExprP>& idx,
                                 const std::vector<const For*>& loops, std::map<std::string, int64_t>* out) {
  auto local = activeLocals_.find(tensor);
  const TensorDecl* decl = view_.find(tensor);
  if (!decl) return false;
  const std::vector<int64_t>& extent = local == activeLocals_.end() ? decl->shape : local->second.extent;
  if (extent.size() != idx.size()) return false;
  int64_t stride = 1;
  for (size_t d = idx.size(); d-- > 0;) {
    analysis::Affine a;
    if (!analysis::toAffine(idx[d], &a)) return false;
    for (auto* l : loops) (*out)[l->var] += a.coeff(l->var) * stride;
    stride *= extent[d];
  }
  return true;
}

int64_t NestEmitter::prefetchPlan(const std::string& copy, const std::string& source, const std::string& from,
                                  int indent, std::string* base) {
  auto p = prefetching_.find(copy);
  if (p == prefetching_.end()) return 0;
  const For& owner = *p->second.owner;
  const TensorDecl* t = view_.find(source);
  analysis::LocalBox box;
  std::string why;
  if (!t || !analysis::localBox(owner.body, source, &box, &why)) throw InternalError("code generation: prefetch: " + why);
  // The box `ahead` iterations later starts this many elements further.
  int64_t delta = 0, stride = 1;
  for (size_t d = box.offset.size(); d-- > 0;) {
    analysis::Affine a;
    if (!analysis::toAffine(box.offset[d], &a)) throw InternalError("code generation: prefetch: box offset not affine");
    delta += a.coeff(owner.var) * owner.step * p->second.ahead * stride;
    stride *= t->shape[d];
  }
  int64_t size = bytes(t->dtype);
  int64_t bytes = box.elementCount() * size;
  *base = names_.claim("ahead");
  // Fetch only what lies inside the tensor: the last iterations have no next box.
  line(indent, "unsigned long " + *base + " = (unsigned long)" + from + " + " + std::to_string(delta * size) + ";");
  line(indent, "if (" + *base + " + " + std::to_string(bytes) + " > (unsigned long)" + tensorNames_.at(source) + " + " +
                   std::to_string(t->elementCount() * size) + "UL) " + *base + " = 0;");
  return bytes;
}

bool NestEmitter::emitReorderedCopy(const For& f, int indent) {
  std::vector<const For*> loops;
  const Store* copy = copyNest(f, &loops);
  if (!copy) return false;
  auto& st = *copy;
  auto& ld = static_cast<const Load&>(*st.value);
  const TensorDecl *to = view_.find(st.tensor), *from = view_.find(ld.tensor);
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
    analysis::Affine a;
    if (!analysis::toAffine(e, &a)) return false;
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
  if (!elementStrides(st.tensor, st.indices, loops, &toStride) || !elementStrides(ld.tensor, ld.indices, loops, &fromStride))
    return false;
  for (auto& c : order) c.to = toStride[c.var], c.from = fromStride[c.var];
  // Destination order (largest stride outermost), then neighbours that step
  // through both tensors as one loop merged.
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
  int width = target_.vectorBytes / (to->dtype == DType::F64 ? 8 : 4);
  // Worth it when the innermost loop writes whole vectors of the destination.
  if (last.to != 1 || last.span < width || (merged.size() == loops.size() && last.from == 1)) return false;
  std::map<std::string, ExprP> starts;
  for (auto* l : loops) starts[l->var] = l->begin;
  std::vector<ExprP> toFirst, fromFirst;
  for (auto& e : st.indices) toFirst.push_back(substitute(e, starts));
  for (auto& e : ld.indices) fromFirst.push_back(substitute(e, starts));
  std::string type = cType(to->dtype), vec = to->dtype == DType::F64 ? "teml_vd" : "teml_vf";
  std::string t = names_.claim("to"), fr = names_.claim("from");
  line(indent, "{");
  line(indent + 1, type + " *restrict " + t + " = &" + access(st.tensor, toFirst) + ";");
  line(indent + 1, "const " + type + " *restrict " + fr + " = &" + access(ld.tensor, fromFirst) + ";");
  std::string ahead;
  int64_t lines = (prefetchPlan(st.tensor, ld.tensor, fr, indent + 1, &ahead) + 63) / 64;
  std::string q = lines > 0 ? names_.claim("q") : "";
  auto fetch = [&](int at, const std::string& first, const std::string& end) {
    line(at, "if (" + ahead + ") for (long " + q + " = " + first + "; " + q + " < " + end + "; " + q +
                 "++) __builtin_prefetch((const void *)(" + ahead + " + 64 * " + q + "), 0, 1);");
  };
  std::vector<std::string> vars;
  std::string toOffset, fromOffset;
  for (size_t k = 0; k < merged.size(); ++k) {
    vars.push_back(names_.claim(merged[k].var));
    if (k + 1 < merged.size()) {
      toOffset += vars[k] + " * " + std::to_string(merged[k].to) + " + ";
      fromOffset += vars[k] + " * " + std::to_string(merged[k].from) + " + ";
      line(indent + 1 + static_cast<int>(k), "for (long " + vars[k] + " = 0; " + vars[k] + " < " +
                                                 std::to_string(merged[k].span) + "; " + vars[k] + "++) {");
      if (k == 0 && lines > 0) {
        // The lines of the next box, spread evenly over the outermost loop.
        std::string l = std::to_string(lines), n = std::to_string(merged[0].span);
        fetch(indent + 2, vars[0] + " * " + l + " / " + n, "(" + vars[0] + " + 1) * " + l + " / " + n);
      }
    }
  }
  int in = indent + static_cast<int>(merged.size());
  const std::string& m = vars.back();
  std::string lanes;
  for (int l = 0; l < width; ++l)
    lanes += std::string(l ? ", " : "") + fr + "[" + fromOffset + "(" + m + " + " + std::to_string(l) + ") * " +
             std::to_string(last.from) + "]";
  // Whole vectors gathered from the source's stride, then the rest.
  line(in, "long " + m + " = 0;");
  std::string store = "*(" + vec + " *)&" + t + "[" + toOffset + m + "] = (" + vec + "){" + lanes + "};";
  std::string header = "for (; " + m + " + " + std::to_string(width) + " <= " + std::to_string(last.span) + "; " + m +
                       " += " + std::to_string(width) + ")";
  if (lines > 0 && merged.size() == 1) {
    // One flat loop: the lines of the next box spread over its vectors.
    std::string l = std::to_string(lines), n = std::to_string(last.span);
    line(in, header + " {");
    fetch(in + 1, m + " * " + l + " / " + n, "(" + m + " + " + std::to_string(width) + ") * " + l + " / " + n);
    line(in + 1, store);
    line(in, "}");
  } else {
    line(in, header + " " + store);
  }
  line(in, "for (; " + m + " < " + std::to_string(last.span) + "; " + m + "++) " + t + "[" + toOffset + m + "] = " + fr +
               "[" + fromOffset + m + " * " + std::to_string(last.from) + "];");
  for (size_t k = merged.size() - 1; k-- > 0;) line(indent + 1 + static_cast<int>(k), "}");
  line(indent, "}");
  for (auto it = vars.rbegin(); it != vars.rend(); ++it) names_.release(*it);
  if (!q.empty()) names_.release(q);
  if (!ahead.empty()) names_.release(ahead);
  names_.release(fr);
  names_.release(t);
  return true;
}

}  // namespace teml::codegen
