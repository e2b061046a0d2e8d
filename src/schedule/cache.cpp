#include <algorithm>

#include "ir/affine.hpp"
#include "analysis/coverage.hpp"
#include "analysis/local_box.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "ir/rename_tensor.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

struct Uses {
  bool reads = false, stores = false;
  std::set<ReduceOp> reduces;
};

Uses usesOf(const StmtP& body, const std::string& t) {
  Uses u;
  forEachStmt(body, [&](const StmtP& s) {
    if (s->kind != StmtKind::LibCall) return;
    auto& c = s->as<LibCall>();
    if (std::find(c.tensors.begin(), c.tensors.end(), t) != c.tensors.end())
      throw ScheduleError("cache: '" + t + "' is used by a library call");
  });
  for (auto& a : accessesOf(body)) {
    if (a.tensor != t) continue;
    if (a.kind == AccessKind::Read) u.reads = true;
    if (a.kind == AccessKind::Store) u.stores = true;
    if (a.kind == AccessKind::Reduce) u.reduces.insert(a.op);
  }
  return u;
}

// for c0 in [max(off0, 0), min(off0 + n0, extent0)) ...: to[c] op= from[c]
// over the box, clamped to the tensor's bounds (the box may reach past them)
// where the ranges of the enclosing iterators (`outer`) do not rule that out:
// a clamp hides from the race analysis that parallel iterations copy
// different boxes. An instance of the copy is one element in one iteration
// of the loops around it (`chain`): its tag names both.
StmtP copyNest(const analysis::LocalBox& box, const TensorDecl& decl, const std::string& to, const std::string& from,
               std::optional<ReduceOp> op, const std::string& id, std::set<std::string>& taken,
               const ir::Ranges& outer, const std::vector<const For*>& chain) {
  std::vector<std::string> vars;
  std::vector<ExprP> idx;
  for (size_t d = 0; d < box.offset.size(); ++d) {
    vars.push_back(freshName("c" + std::to_string(d + 1), taken));
    idx.push_back(var(vars.back()));
  }
  StmtTag tag{id, {}, {}};
  for (auto* l : chain) {
    tag.names.push_back(l->var);
    tag.origin.push_back(var(l->var));
  }
  tag.names.insert(tag.names.end(), vars.begin(), vars.end());
  tag.origin.insert(tag.origin.end(), idx.begin(), idx.end());
  StmtP s = op ? makeReduce(*op, to, idx, load(from, idx, decl.dtype), SourceLoc{}, tag)
               : makeStore(to, idx, load(from, idx, decl.dtype), SourceLoc{}, tag);
  for (size_t d = box.offset.size(); d-- > 0;) {
    ExprP begin = box.offset[d], end = add(box.offset[d], intConst(box.extent[d]));
    ir::Interval b, e;
    if (!ir::bounds(begin, outer, &b) || b.lo < 0) begin = max(begin, intConst(0));
    if (!ir::bounds(end, outer, &e) || e.hi > decl.shape[d]) end = min(end, intConst(decl.shape[d]));
    s = makeFor(id + ".c" + std::to_string(d + 1), vars[d], begin, end, 1, LoopKind{}, s);
  }
  return s;
}

}  // namespace

StmtP cache(const StmtP& nest, int r, const TensorDecl& tensor, const std::string& cacheName, bool reduce,
            bool zeroed) {
  const char* what = reduce ? "cache_reduce" : zeroed ? "cache_zeroed" : "cache";
  auto chain = loopsToLevel(nest, r, what);
  const For& f = *chain[r - 1];
  const std::string& t = tensor.name;
  Uses u = usesOf(loopBody(f), t);
  if (!u.reads && !u.stores && u.reduces.empty())
    throw ScheduleError(std::string(what) + ": loop '" + f.var + "' does not use '" + t + "'");
  if (reduce && (u.reads || u.stores || u.reduces.size() != 1))
    throw ScheduleError("cache_reduce: loop '" + f.var + "' must only update '" + t +
                        "' with one kind of reduction (+=, *=, max= or min=); use cache otherwise");
  analysis::LocalBox box;
  std::string why;
  if (!analysis::localBox(loopBody(f), t, &box, &why)) throw ScheduleError(std::string(what) + ": " + why);
  if (!box.used || box.extent.size() != tensor.shape.size() || box.elementCount() <= 0)  // fuzz seed 3867
    throw ScheduleError(std::string(what) + ": loop '" + f.var + "' touches no element of '" + t +
                        "' (its accesses lie in loops of no iterations): there is nothing to copy");
  // A box that moves with a loop inside f has no place before f's body (fuzz seed 5353: after skew and
  // stripmine, in1's rows started at an expression of the inner loop's j_o).
  forEachStmt(loopBody(f), [&](const StmtP& s) {
    if (s->kind != StmtKind::For) return;
    const std::string& inner = s->as<For>().var;
    for (auto& o : box.offset)
      if (usesVar(o, inner))
        throw ScheduleError(std::string(what) + ": the elements of '" + t + "' that loop '" + f.var + "' uses start at " +
                            toString(o) + ", which moves with loop '" + inner + "' inside it; " + what +
                            " at that loop instead");
  });
  auto taken = namesIn(nest);
  ir::Ranges outer;
  for (auto* l : chain) {
    ir::Interval b, e;
    if (ir::bounds(l->begin, outer, &b) && ir::bounds(l->end, outer, &e)) outer[l->var] = {b.lo, e.hi - 1};
  }
  std::string id = std::string(reduce ? "R" : "C") + "." + f.id + "." + t;
  TensorDecl local = tensor;
  local.name = cacheName;
  // A body that only stores t, somewhere over the whole box, overwrites
  // whatever a copy-in would bring: the copy starts unfilled instead.
  bool overwritten = !reduce && !u.reads && u.reduces.empty() && analysis::storeCoversBox(f, t, box, tensor.shape);
  std::vector<StmtP> body;
  if (!reduce && !overwritten && !zeroed) body.push_back(copyNest(box, tensor, cacheName, t, std::nullopt, id + ".in", taken, outer, chain));
  body.push_back(renameTensor(loopBody(f), t, cacheName));
  if (reduce) body.push_back(copyNest(box, tensor, t, cacheName, *u.reduces.begin(), id + ".out", taken, outer, chain));
  else if (u.stores || !u.reduces.empty()) body.push_back(copyNest(box, tensor, t, cacheName, std::nullopt, id + ".out", taken, outer, chain));
  std::vector<LocalTensor> locals = localsOf(f);
  // A copy-in (or the body's stores) defines every element the body reads;
  // a zeroed copy is a fresh block of zeros in every iteration instead.
  if (zeroed) locals.push_back(LocalTensor(local, LoopLocal{0, false, false}));
  else locals.push_back(LocalTensor(local, LoopLocal{reduce ? reduceIdentity(*u.reduces.begin()) : 0, true, !reduce}));
  StmtP owner = makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, makeSeq(body), locals);
  return replaceLevel(chain, r, owner);
}

}  // namespace teml::schedule
