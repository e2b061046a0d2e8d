#include <algorithm>

#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

std::string rangeText(const For& f) {
  return "'" + f.var + "' in [" + toString(f.begin) + ", " + toString(f.end) + ")";
}

// Loop b's header equals a's once b's outer iterators are renamed to a's.
void requireSameRange(const For& a, const For& b, const std::map<std::string, ExprP>& rename,
                      const std::string& what, int level) {
  ExprP bb = substitute(b.begin, rename), be = substitute(b.end, rename);
  if (!equal(a.begin, bb) || !equal(a.end, be) || a.step != b.step)
    throw ScheduleError(what + ": the loops at level " + std::to_string(level) +
                        " iterate over different ranges: " + rangeText(a) + " and " + rangeText(b));
}

// The local tensors of both loops (each once).
std::vector<LocalTensor> bothLocals(const For& a, const For& b) {
  std::vector<LocalTensor> out = localsOf(a);
  for (auto& l : localsOf(b))
    if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  return out;
}

// The loops over `from` inside s iterate over `to` instead.
StmtP renameLoop(const StmtP& s, const std::string& from, const std::string& to) {
  class Renamer : public Mutator {
   public:
    Renamer(std::string f, std::string t) : from_(std::move(f)), to_(std::move(t)) {}

   protected:
    StmtP mutateFor(const StmtP& s) override {
      auto& f = s->as<For>();
      if (f.var != from_) return Mutator::mutateFor(s);
      StmtP body = substitute(loopBody(f), {{from_, var(to_)}});
      return makeFor(f.id, to_, f.begin, f.end, f.step, f.loopKind, mutate(body), localsOf(f));
    }

   private:
    std::string from_, to_;
  };
  return Renamer(from, to).mutate(s);
}

}  // namespace

StmtP fuseOuter(const StmtP& a, const StmtP& b, int r) {
  auto ca = loopsToLevel(a, r, "fuse_outer (first nest)");
  auto cb = loopsToLevel(b, r, "fuse_outer (second nest)");
  std::map<std::string, ExprP> rename;
  for (int l = 1; l <= r; ++l) {
    requireSameRange(*ca[l - 1], *cb[l - 1], rename, "fuse_outer", l);
    if (cb[l - 1]->var != ca[l - 1]->var) rename[cb[l - 1]->var] = var(ca[l - 1]->var);
  }
  // b's inner loops whose iterators are named like a's fused ones get fresh names first.
  StmtP tail = loopBody(*cb[r - 1]);
  auto taken = namesIn(a);
  auto innerB = boundVars(tail);
  taken.insert(innerB.begin(), innerB.end());
  for (int l = 1; l <= r; ++l)
    if (cb[l - 1]->var != ca[l - 1]->var && innerB.count(ca[l - 1]->var))
      tail = renameLoop(tail, ca[l - 1]->var, freshName(ca[l - 1]->var, taken));
  tail = substitute(tail, rename);
  StmtP fused = makeSeq({loopBody(*ca[r - 1]), tail});
  for (int l = r; l >= 1; --l) {
    const For& f = *ca[l - 1];
    fused = makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, fused, bothLocals(f, *cb[l - 1]));
  }
  return fused;
}

StmtP fuseInner(const StmtP& nest, int r) {
  StmtP container;
  std::vector<const For*> chain;
  if (r == 1) {
    container = nest;
  } else {
    chain = loopsToLevel(nest, r - 1, "fuse_inner");
    container = loopBody(*chain[r - 2]);
  }
  auto loops = items(container);
  if (loops.size() < 2)
    throw ScheduleError("fuse_inner: level " + std::to_string(r) + " holds a single loop; there is nothing to fuse");
  std::vector<StmtP> bodies;
  std::vector<LocalTensor> locals;
  const For* first = nullptr;
  for (auto& s : loops) {
    if (s->kind != StmtKind::For)
      throw ScheduleError("fuse_inner: level " + std::to_string(r) + " holds a statement that is not a loop");
    auto& f = s->as<For>();
    for (auto& l : localsOf(f))
      if (std::find(locals.begin(), locals.end(), l) == locals.end()) locals.push_back(l);
    if (!first) {
      first = &f;
      bodies.push_back(loopBody(f));
      continue;
    }
    requireSameRange(*first, f, {}, "fuse_inner", r);
    bodies.push_back(f.var == first->var ? loopBody(f) : substitute(loopBody(f), {{f.var, var(first->var)}}));
  }
  StmtP fused = makeFor(first->id, first->var, first->begin, first->end, first->step, first->loopKind,
                        makeSeq(bodies), locals);
  return r == 1 ? fused : replaceLevel(chain, r - 1, withBody(*chain[r - 2], fused));
}

}  // namespace teml::schedule
