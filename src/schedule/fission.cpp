#include <algorithm>
#include <optional>
#include <set>

#include "ir/mutator.hpp"
#include "schedule/access_rewrite.hpp"
#include "schedule/loop_target.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

// A tensor the body defines, with its VarDef's identity (it stays that statement).
struct Scoped {
  TensorDecl decl;
  std::string id;
  Provenance made;
};

StmtP defined(const std::vector<Scoped>& tensors, StmtP body) {
  for (auto t = tensors.rbegin(); t != tensors.rend(); ++t) body = withIdentity(makeVarDef(t->decl, body), t->id, t->made);
  return body;
}

// Loop r's body as written: the tensors it defines (outermost first) and
// the statements inside them, cut after the k-th.
struct Cut {
  const For* loop;
  std::vector<Scoped> scoped;
  StmtP first, second;
};

Cut cutOf(const For& f, int k) {
  Cut c{&f, {}, nullptr, nullptr};
  StmtP inner = loopBody(f);
  while (inner->kind == StmtKind::VarDef && !inner->as<VarDef>().loopLocal) {
    c.scoped.push_back({inner->as<VarDef>().decl, inner->id, inner->made});
    inner = inner->as<VarDef>().body;
  }
  auto body = items(inner);
  if (body.size() < 2) throw ScheduleError("fission: the body of loop '" + f.var + "' holds a single statement");
  if (k < 1 || k >= static_cast<int>(body.size()))
    throw ScheduleError("fission: the split point " + std::to_string(k) + " must be between 1 and " +
                        std::to_string(body.size() - 1));
  c.first = makeSeq({body.begin(), body.begin() + k});
  c.second = makeSeq({body.begin() + k, body.end()});
  return c;
}

// How many iterations loop f runs at most: its trip count where its bounds
// are constant, else the length c of a chunk [b, b + c) or [b, min(b + c, e))
// (the inner loop of a split one, such as a CSR row's in chunks).
std::optional<int64_t> mostIterations(const For& f) {
  int64_t begin, end;
  if (constValue(f.begin, &begin) && constValue(f.end, &end))
    return f.step > 0 ? std::max<int64_t>(0, (end - begin + f.step - 1) / f.step)
                      : std::max<int64_t>(0, (begin - end - f.step - 1) / -f.step);
  if (f.step != 1 || f.end->kind != ExprKind::Binary) return std::nullopt;
  auto chunk = [&](const ExprP& side) -> std::optional<int64_t> {
    int64_t c;
    if (side->kind == ExprKind::Binary && side->as<Binary>().op == BinOp::Add && equal(side->as<Binary>().a, f.begin) &&
        constValue(side->as<Binary>().b, &c) && c >= 0)
      return c;
    return std::nullopt;
  };
  if (f.end->as<Binary>().op == BinOp::Add) return chunk(f.end);
  if (f.end->as<Binary>().op != BinOp::Min) return std::nullopt;
  for (const ExprP& side : {f.end->as<Binary>().a, f.end->as<Binary>().b})
    if (auto c = chunk(side)) return c;
  return std::nullopt;
}

bool usedOnBothSides(const Cut& c, const std::string& tensor) {
  return tensorsAccessed(c.first).count(tensor) && tensorsAccessed(c.second).count(tensor);
}

// The nearest loop of `top` around `inner` (null where none is).
const For* enclosingLoop(const StmtP& top, const Stmt* inner) {
  const For* nearest = nullptr;
  forEachStmt(top, [&](const StmtP& t) {  // in pre-order: the last loop around `inner` is the nearest
    if (t->kind != StmtKind::For || t.get() == inner) return;
    bool around = false;
    forEachStmt(t->as<For>().body, [&](const StmtP& u) { around = around || u.get() == inner; });
    if (around) nearest = &t->as<For>();
  });
  return nearest;
}

}  // namespace

StmtP hoistLocalsAcrossFission(const StmtP& top, const std::string& loopId, int k) {
  StmtP loop = findLoop(top, loopId, "fission");
  const For& f = loop->as<For>();
  Cut c = cutOf(f, k);
  std::vector<LocalTensor> stay, hoisted;
  for (auto& l : localsOf(f)) (!l.isCopy && usedOnBothSides(c, l.decl.name) ? hoisted : stay).push_back(l);
  const For* outer = hoisted.empty() ? nullptr : enclosingLoop(top, loop.get());
  if (!outer) return top;  // nothing to move, or nowhere: analysis/locals refuses the cut, naming the tensor
  std::set<std::string> usedAround = tensorsAccessed(replaceStmt(loopBody(*outer), loop, makeSeq({}))), definedInside;
  forEachStmt(loopBody(*outer), [&](const StmtP& s) {
    if (s->kind == StmtKind::VarDef && !s->as<VarDef>().loopLocal) definedInside.insert(s->as<VarDef>().decl.name);
  });
  for (auto& l : hoisted)  // there the tensor itself is meant, not f's copy; or it is not yet defined
    if (usedAround.count(l.decl.name) || definedInside.count(l.decl.name)) return top;
  std::vector<LocalTensor> outerLocals = localsOf(*outer);
  for (auto& l : hoisted) {
    if (std::find(outerLocals.begin(), outerLocals.end(), l) != outerLocals.end()) return top;
    for (auto& [owner, local] : localTensorsIn(outer->body))
      if (owner != &f && local.decl.name == l.decl.name) return top;  // another loop holds a copy of it too
  }
  outerLocals.insert(outerLocals.end(), hoisted.begin(), hoisted.end());
  StmtP inner = makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, loopBody(f), stay, f.made);
  StmtP outerBody = replaceStmt(loopBody(*outer), loop, inner);
  return replaceStmt(top, findLoop(top, outer->id, "fission"),
                     makeFor(outer->id, outer->var, outer->begin, outer->end, outer->step, outer->loopKind, outerBody,
                             outerLocals, outer->made));
}

StmtP expandAcrossFission(const StmtP& nest, int r, int k) {
  auto chain = loopsToLevel(nest, r, "fission");
  Cut c = cutOf(*chain[r - 1], k);
  const For& f = *c.loop;
  std::vector<Scoped> kept, expanded;
  StmtP body = makeSeq({c.first, c.second});
  for (auto& t : c.scoped) {
    if (!usedOnBothSides(c, t.decl.name)) {
      kept.push_back(t);
      continue;
    }
    std::optional<int64_t> trips = mostIterations(f);
    if (!trips)
      throw ScheduleError("fission: tensor '" + t.decl.name + "' is used on both sides of the cut, and keeping one of it " +
                          "per iteration needs loop '" + f.var + "' to have constant bounds or to be a chunk of a "
                          "split loop");
    ExprP iteration = f.step > 0 ? floorDiv(sub(var(f.var), f.begin), intConst(f.step))
                                 : floorDiv(sub(f.begin, var(f.var)), intConst(-f.step));
    Scoped whole = t;
    whole.decl.shape.insert(whole.decl.shape.begin(), *trips);
    auto perIteration = [&](const std::vector<ExprP>& idx) {  // the iteration as a new first index
      std::vector<ExprP> out{iteration};
      out.insert(out.end(), idx.begin(), idx.end());
      return out;
    };
    body = AccessRewrite(t.decl.name, t.decl.name, perIteration, whole.decl.shape).mutate(body);
    expanded.push_back(whole);
  }
  if (expanded.empty()) return nest;
  return replaceLevel(chain, r, defined(expanded, withBody(f, defined(kept, body))));
}

StmtP fission(const StmtP& nest, int r, int k) {
  auto chain = loopsToLevel(nest, r, "fission");
  Cut c = cutOf(*chain[r - 1], k);
  const For& f = *c.loop;
  std::vector<Scoped> onlyFirst, onlySecond;
  for (auto& t : c.scoped) {
    if (usedOnBothSides(c, t.decl.name))
      throw ScheduleError("fission: tensor '" + t.decl.name + "' is used on both sides of the cut (expandAcrossFission first)");
    (tensorsAccessed(c.second).count(t.decl.name) ? onlySecond : onlyFirst).push_back(t);
  }
  // Each loop keeps the local tensors its statements use (one both use
  // stays with both, which analysis/locals refuses).
  std::vector<LocalTensor> localsA, localsB;
  for (auto& l : localsOf(f)) {
    bool second = tensorsAccessed(c.second).count(l.decl.name) > 0;
    if (!second || tensorsAccessed(c.first).count(l.decl.name)) localsA.push_back(l);
    if (second) localsB.push_back(l);
  }
  StmtP a = makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, defined(onlyFirst, c.first), localsA, f.made);
  StmtP b = makeFor(freshLoopId(nest, f.id + ".f"), f.var, f.begin, f.end, f.step, f.loopKind,
                    defined(onlySecond, c.second), localsB);
  return replaceLevel(chain, r, makeSeq({a, b}));
}

StmtP swap(const StmtP& nest, int r, int a, int b) {
  StmtP container = r == 0 ? nest : loopBody(*loopsToLevel(nest, r, "swap")[r - 1]);
  auto list = items(container);
  int n = static_cast<int>(list.size());
  if (a < 1 || b < 1 || a > n || b > n || a == b)
    throw ScheduleError("swap: statements " + std::to_string(a) + " and " + std::to_string(b) +
                        " do not exist or are the same (the sequence holds " + std::to_string(n) + ")");
  std::swap(list[a - 1], list[b - 1]);
  if (r == 0) return makeSeq(list);
  auto chain = loopsToLevel(nest, r, "swap");
  return replaceLevel(chain, r, withBody(*chain[r - 1], makeSeq(list)));
}

}  // namespace teml::schedule
