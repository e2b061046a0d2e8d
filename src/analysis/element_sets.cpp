#include "analysis/element_sets.hpp"

#include <set>

#include <isl/ilp.h>
#include <isl/map.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "analysis/isl_model.hpp"
#include "diag/diagnostics.hpp"
#include "ir/accesses.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

[[noreturn]] void islFailed() { throw CannotDistribute("distribute: isl cannot describe the elements a rank touches"); }

isl_set* checked(isl_set* s) {
  if (!s) islFailed();
  return s;
}

std::string boxText(const std::vector<int64_t>& lo, const std::vector<int64_t>& hi) {
  std::string vars, cond;
  for (size_t d = 0; d < lo.size(); ++d) {
    std::string v = "e" + std::to_string(d);
    vars += (d ? ", " : "") + v;
    cond += (d ? " and " : "") + std::to_string(lo[d]) + " <= " + v + " < " + std::to_string(hi[d]);
  }
  return "{ [" + vars + "]" + (cond.empty() ? "" : " : " + cond) + " }";
}

int storesAndReduces(const StmtP& s) {
  int n = 0;
  forEachStmt(s, [&](const StmtP& t) { n += t->kind == StmtKind::Store || t->kind == StmtKind::Reduce; });
  return n;
}

// `step` with each run-time check that guards no store standing for a
// store of its condition into a tensor no step knows (ignored below): its
// reads are then described as a store's are, in the instances that run it
// (a CSR array's order check distributed with the rows: each rank reads
// its block of the row pointers, not all of them). A check with no id to
// describe it by stays, and its reads count whole.
StmtP checksAsStores(const StmtP& step) {
  struct Rewrite : Mutator {
    StmtP mutateAssert(const StmtP& s) override {
      auto& a = s->as<Assert>();
      if (a.id.empty() || storesAndReduces(a.body) != 0) return Mutator::mutateAssert(s);
      auto read = std::make_shared<Store>("teml.check", std::vector<ExprP>{}, a.cond, a.loc, StmtTag{a.id, {}, {}}, a.id, a.made);
      return makeSeq({read, mutate(a.body)});
    }
  };
  return Rewrite().mutate(step);
}

}  // namespace

ElementSet ElementSet::box(isl_ctx* ctx, const std::vector<int64_t>& lo, const std::vector<int64_t>& hi) {
  return ElementSet(checked(isl_set_read_from_str(ctx, boxText(lo, hi).c_str())));
}

ElementSet ElementSet::whole(isl_ctx* ctx, const std::vector<int64_t>& shape) {
  return box(ctx, std::vector<int64_t>(shape.size(), 0), shape);
}

ElementSet ElementSet::none(isl_ctx* ctx, const std::vector<int64_t>& shape) {
  ElementSet w = whole(ctx, shape);
  return w - w;
}

ElementSet ElementSet::operator|(const ElementSet& o) const {
  return ElementSet(checked(isl_set_coalesce(isl_set_union(isl_set_copy(s_), isl_set_copy(o.s_)))));
}
ElementSet ElementSet::operator&(const ElementSet& o) const {
  return ElementSet(checked(isl_set_coalesce(isl_set_intersect(isl_set_copy(s_), isl_set_copy(o.s_)))));
}
ElementSet ElementSet::operator-(const ElementSet& o) const {
  return ElementSet(checked(isl_set_coalesce(isl_set_subtract(isl_set_copy(s_), isl_set_copy(o.s_)))));
}

bool ElementSet::empty() const {
  isl_bool b = isl_set_is_empty(s_);
  if (b == isl_bool_error) islFailed();
  return b == isl_bool_true;
}

bool ElementSet::subsetOf(const ElementSet& o) const {
  isl_bool b = isl_set_is_subset(s_, o.s_);
  if (b == isl_bool_error) islFailed();
  return b == isl_bool_true;
}

bool ElementSet::hull(std::vector<int64_t>& lo, std::vector<int64_t>& hi) const {
  if (empty()) return false;
  isl_size dims = isl_set_dim(s_, isl_dim_set);
  lo.assign(dims, 0);
  hi.assign(dims, 0);
  for (int d = 0; d < dims; ++d) {
    isl_val* a = isl_set_dim_min_val(isl_set_copy(s_), d);
    isl_val* b = isl_set_dim_max_val(isl_set_copy(s_), d);
    bool ok = a && b && isl_val_is_int(a) && isl_val_is_int(b);
    if (ok) {
      lo[d] = isl_val_get_num_si(a);
      hi[d] = isl_val_get_num_si(b) + 1;
    }
    isl_val_free(a);
    isl_val_free(b);
    if (!ok) islFailed();
  }
  return true;
}

namespace {

using Boxes = std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>;

// A few slices of a piece that is no box: at most this many in all.
constexpr int kMostSlices = 4096;

// `piece` as boxes: itself where it is one, else its slices along its first
// dimension with more than one index (a column and a corner of a matrix
// left by a subtraction), each as boxes in turn; false past kMostSlices.
bool sliceIntoBoxes(const ElementSet& piece, Boxes& out, int& slices) {
  std::vector<int64_t> lo, hi;
  if (!piece.hull(lo, hi)) return true;
  isl_ctx* ctx = isl_set_get_ctx(piece.get());
  if (ElementSet::box(ctx, lo, hi).subsetOf(piece)) {
    out.push_back({lo, hi});
    return true;
  }
  size_t d = 0;
  while (d < lo.size() && hi[d] - lo[d] <= 1) ++d;
  if (d == lo.size()) return false;
  for (int64_t v = lo[d]; v < hi[d]; ++v) {
    if (++slices > kMostSlices) return false;
    std::vector<int64_t> sliceLo = lo, sliceHi = hi;
    sliceLo[d] = v;
    sliceHi[d] = v + 1;
    if (!sliceIntoBoxes(piece & ElementSet::box(ctx, sliceLo, sliceHi), out, slices)) return false;
  }
  return true;
}

}  // namespace

std::optional<std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>> ElementSet::boxes() const {
  Boxes out;
  std::vector<int64_t> lo, hi;
  if (!hull(lo, hi)) return out;
  isl_ctx* ctx = isl_set_get_ctx(s_);
  if (box(ctx, lo, hi).subsetOf(*this)) return Boxes{{lo, hi}};
  ElementSet pieces(checked(isl_set_make_disjoint(isl_set_copy(s_))));
  std::vector<ElementSet> parts;
  isl_set_foreach_basic_set(
      pieces.get(),
      [](isl_basic_set* b, void* user) {
        static_cast<std::vector<ElementSet>*>(user)->emplace_back(isl_set_from_basic_set(b));
        return isl_stat_ok;
      },
      &parts);
  int slices = 0;
  for (auto& p : parts)
    if (!sliceIntoBoxes(p, out, slices)) return std::nullopt;
  return out;
}

namespace {
bool sameAccess(const isl_model::Access& a, const isl_model::Access& b) {
  if (a.tensor != b.tensor || a.indices.size() != b.indices.size()) return false;
  for (size_t d = 0; d < a.indices.size(); ++d)
    if (!ir::equal(a.indices[d], b.indices[d])) return false;
  return true;
}
}  // namespace

StepAccesses stepAccesses(isl_ctx* ctx, const StmtP& written, const std::map<std::string, std::vector<int64_t>>& shapes,
                          const std::vector<LoopBlock>& blocks) {
  const StmtP step = checksAsStores(written);
  StepAccesses out;
  isl_ctx_reset_operations(ctx);  // the budget is for one question, not for every rank's
  for (auto& [t, shape] : shapes) {
    out.read.emplace(t, ElementSet::none(ctx, shape));
    out.written.emplace(t, ElementSet::none(ctx, shape));
    out.perhapsWritten.emplace(t, ElementSet::none(ctx, shape));
  }
  std::set<const Stmt*> inBranches;
  forEachStmt(step, [&](const StmtP& s) {
    if (s->kind != StmtKind::If) return;
    forEachStmt(s, [&](const StmtP& w) {
      if (w->kind == StmtKind::Store || w->kind == StmtKind::Reduce) inBranches.insert(w.get());
    });
  });
  auto occ = isl_model::occurrences(step);
  if (static_cast<int>(occ.size()) != storesAndReduces(step))
    throw CannotDistribute("distribute: a statement the lowering stage made has no id to describe it by");
  auto add = [&](std::map<std::string, ElementSet>& into, isl_model::Occurrence& o, const isl_model::Access& a) {
    auto shape = shapes.find(a.tensor);
    if (shape == shapes.end() || o.scoped.count(a.tensor)) return;  // the step's own tensor
    isl_model::UMap m = isl_model::accessRelation(ctx, o, a);
    isl_union_set* range = isl_union_map_range(m.copy());
    if (!range) islFailed();
    if (isl_union_set_is_empty(range) == isl_bool_true) {  // no instance in this block: nothing touched
      isl_union_set_free(range);
      return;
    }
    isl_set* s = isl_set_from_union_set(range);
    // Names from around the step (a time loop's iterator that only a value
    // reads) that the elements do not depend on.
    for (int k = s ? isl_set_n_param(s) : 0; k-- > 0;)
      if (isl_set_involves_dims(s, isl_dim_param, k, 1) == isl_bool_false) s = isl_set_project_out(s, isl_dim_param, k, 1);
    if (!s || isl_set_n_param(s) != 0) {
      const char* name = s ? isl_set_get_dim_name(s, isl_dim_param, 0) : nullptr;
      std::string on = name && name[0] == 'P'  // an iterator (isl_model names them P<name>)
                           ? "the iterator '" + std::string(name + 1) +
                                 "' of a loop around the step (the steps in a time loop must touch the same "
                                 "elements in every iteration)"
                           : "values isl cannot name";
      isl_set_free(s);
      throw CannotDistribute("distribute: the elements of '" + a.tensor + "' a rank touches depend on " + on);
    }
    ElementSet elements(checked(isl_set_reset_tuple_id(s)));
    elements = elements & ElementSet::whole(ctx, shape->second);  // an index loaded from data: any element
    into.at(a.tensor) = into.at(a.tensor) | elements;
    for (auto& i : a.indices)
      if (!readsOf(i).empty()) out.indirect.insert(a.tensor);  // an index loaded from data
  };
  try {
    for (auto& o : occ) {
      const std::vector<std::string> around = o.constraints;
      std::vector<std::string> mine;  // the rank's block
      for (auto& b : blocks) {
        if (o.vars.size() <= b.level) {
          if (b.level == 0) throw CannotDistribute("distribute: a statement outside the distributed loop");
          continue;  // between a grid's two loops (an accumulator the lowering added): every rank of the row runs it
        }
        mine.push_back(std::to_string(b.first) + " <= " + o.vars[b.level] + " < " + std::to_string(b.last));
      }
      o.constraints.insert(o.constraints.end(), mine.begin(), mine.end());
      // A read written again (y[col[k]] + y[col[k]], the loop bounds' reads
      // before each) touches the same elements: one relation each. The reads
      // of the loops' bounds and the branches' conditions around come first,
      // each in the instances around where it is read.
      std::vector<const isl_model::Access*> distinct;
      for (size_t k = 0; k < o.reads.size(); ++k) {
        const isl_model::Access& r = o.reads[k];
        bool seen = false;
        for (auto* d : distinct) seen = seen || sameAccess(*d, r);
        if (seen) continue;
        distinct.push_back(&r);
        if (k < o.controlDepth.size()) {
          isl_model::Occurrence at = o;
          at.constraints.assign(around.begin(), around.begin() + static_cast<long>(o.controlDepth[k]));
          at.constraints.insert(at.constraints.end(), mine.begin(), mine.end());
          add(out.read, at, r);
        } else {
          add(out.read, o, r);
        }
      }
      add(out.written, o, o.write);
      // The elements such a write names are a bound, not what it writes.
      bool throughData = false;
      for (auto& i : o.write.indices) throughData = throughData || !readsOf(i).empty();
      if (inBranches.count(o.node) || throughData || !o.controlReads.empty()) add(out.perhapsWritten, o, o.write);
      if (o.isReduce) {
        out.reduceOps[o.write.tensor].insert(o.op);
        for (auto& i : o.write.indices)
          if (!readsOf(i).empty() && shapes.count(o.write.tensor) && !o.scoped.count(o.write.tensor))
            out.scattered.insert(o.write.tensor);
        add(out.read, o, o.write);  // a reduction reads what it adds to
      } else {
        out.stored.insert(o.write.tensor);
      }
    }
  } catch (const isl_model::IslFailure&) {
    islFailed();
  }
  // A read that decides no store (a check alone in its loop): the whole tensor.
  for (auto& a : accessesOf(step))
    if (a.kind == AccessKind::Read && a.stmt && shapes.count(a.tensor) && storesAndReduces(a.stmt->self()) == 0)
      out.read.at(a.tensor) = ElementSet::whole(ctx, shapes.at(a.tensor));
  return out;
}

}  // namespace teml::analysis
