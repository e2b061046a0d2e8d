// The Schedule's primitives on loops named by id: each finds the perfect
// nest its loop belongs to (schedule::siteOf), runs the level-based
// transformation on that nest and puts the result in its place.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "ir/affine.hpp"
#include "analysis/local_box.hpp"
#include "ir/mutator.hpp"
#include "schedule/loop_target.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

// The loops a primitive made take ids that no loop of the program has: the
// primitive saw only its nest, and a program has several (fission's `i.f`
// beside an earlier fission's `i.f` would otherwise rename the older loop
// and hand its id to the new one).
class RenameLoops : public Mutator {
 public:
  explicit RenameLoops(std::map<std::string, std::string> names) : names_(std::move(names)) {}

 protected:
  StmtP mutateFor(const StmtP& s) override {
    StmtP out = Mutator::mutateFor(s);
    auto it = names_.find(out->id);
    return it == names_.end() ? out : withIdentity(out, it->second, out->made);
  }

 private:
  std::map<std::string, std::string> names_;
};

StmtP withProgramFreshIds(const StmtP& changed, const StmtP& nest, const StmtP& top) {
  auto inNest = loopIds(nest), inTop = loopIds(top), made = loopIds(changed);
  std::set<std::string> nestIds(inNest.begin(), inNest.end()), topIds(inTop.begin(), inTop.end());
  std::set<std::string> taken = topIds;
  taken.insert(made.begin(), made.end());
  std::map<std::string, std::string> names;
  for (auto& id : made)
    if (!nestIds.count(id) && topIds.count(id) && !names.count(id)) names[id] = freshName(id, taken);
  return names.empty() ? changed : RenameLoops(names).mutate(changed);
}

}  // namespace

Schedule::Applied Schedule::onNest(const std::string& what, const StmtP& top, const StmtP& nest, bool reorders,
                                   const std::function<StmtP()>& fn) {
  // Only `nest` changes: the order of its instances is all there is to
  // check, with the iterators of the loops around it as constants (a far
  // smaller question than the whole program, and an equivalent one).
  StmtP changed;
  StmtP result = apply(
      what, {top}, reorders,
      [&] {
        changed = withProgramFreshIds(fn(), nest, top);
        return replaceStmt(top, nest, changed);
      },
      &nest, &changed);
  auto before = loopIds(top);
  std::set<std::string> old(before.begin(), before.end());
  Applied out{result, {}};
  for (auto& l : loopIds(result))
    if (!old.count(l)) out.created.push_back(l);
  return out;
}

Schedule::Applied Schedule::split(const StmtP& top, const std::string& loop, int64_t factor) {
  auto s = siteOf(top, loop, "stripmine");
  return onNest("stripmine", top, s.nest, false, [&] { return schedule::stripmine(s.nest, s.level, factor); });
}
Schedule::Applied Schedule::splitN(const StmtP& top, const std::string& loop, int64_t blocks) {
  auto s = siteOf(top, loop, "stripmine_n");
  return onNest("stripmine_n", top, s.nest, false, [&] { return schedule::stripmineN(s.nest, s.level, blocks); });
}

Schedule::Applied Schedule::splitParts(const StmtP& top, const std::string& loop, int64_t parts) {
  auto s = siteOf(top, loop, "split");
  return onNest("split", top, s.nest, false, [&] { return schedule::splitParts(s.nest, s.level, parts); });
}

Schedule::Applied Schedule::interchange(const StmtP& top, const std::string& a, const std::string& b) {
  auto [o, i] = sitesOf(top, a, b, "interchange");
  return onNest("interchange", top, o.nest, true, [&] { return schedule::interchange(o.nest, o.level, i.level); });
}

Schedule::Applied Schedule::tile(const StmtP& top, const std::string& loop, int64_t factor) {
  StmtP l = findLoop(top, loop, "tile");
  return onNest("tile", top, l, true, [&] { return schedule::tile(l, factor); });
}

Schedule::Applied Schedule::reorder(const StmtP& original, const std::vector<std::string>& order) {
  if (order.empty()) throw ScheduleError("reorder: no loops given");
  StmtP top = schedule::sinkBranches(original, std::set<std::string>(order.begin(), order.end()));
  // The named loops take, in the order given, the levels they occupy now.
  std::vector<int> levels;
  for (auto& id : order) {
    sitesOf(top, order[0], id, "reorder");  // refuses loops of different nests
    levels.push_back(siteOf(top, id, "reorder").level);
  }
  if (std::set<int>(levels.begin(), levels.end()).size() != levels.size())
    throw ScheduleError("reorder: a loop is named twice");
  std::vector<int> slots = levels;
  std::sort(slots.begin(), slots.end());
  StmtP nest = siteOf(top, order[0], "reorder").nest;
  return onNest("reorder", top, nest, true, [&] {
    // Where each level's loop goes: the named ones to their slots, the others
    // stay. Sorted by swaps of neighbours, each swapping a pair the order
    // asks to invert, so a loop whose bounds use an outer one's iterator
    // never passes it unless the order itself asks so (a direct swap of two
    // distant levels could).
    std::map<int, int> goesTo;
    for (int l = slots.front(); l <= slots.back(); ++l) goesTo[l] = l;
    for (size_t k = 0; k < levels.size(); ++k) goesTo[levels[k]] = slots[k];
    StmtP cur = nest;
    for (bool swapped = true; swapped;) {
      swapped = false;
      for (int l = slots.front(); l < slots.back(); ++l) {
        if (goesTo[l] < goesTo[l + 1]) continue;
        cur = schedule::interchange(cur, l, l + 1);
        std::swap(goesTo[l], goesTo[l + 1]);
        swapped = true;
      }
    }
    return cur;
  });
}

Schedule::Applied Schedule::merge(const StmtP& top, const std::string& outer, const std::string& inner) {
  auto [o, i] = sitesOf(top, outer, inner, "merge");
  if (i.level != o.level + 1 || findLoop(top, outer, "merge") != findLoop(o.nest, outer, "merge"))
    throw ScheduleError("merge: loop '" + inner + "' is not the single loop directly inside '" + outer + "'");
  return onNest("merge", top, o.nest, true, [&] { return schedule::merge(o.nest, o.level); });
}

Schedule::Applied Schedule::fuse(const StmtP& top, const std::string& first, const std::string& second) {
  StmtP a = findLoop(top, first, "fuse"), b = findLoop(top, second, "fuse");
  // Only the two loops' instances change order: they are all there is to
  // check, as for onNest (a far smaller question than the whole program).
  StmtP pair = makeSeq({a, b}), fused;
  StmtP result = apply(
      "fuse", {top}, true,
      [&] {
        fused = schedule::fuseOuter(a, b, 1);
        return replacePair(top, a, b, fused, "fuse");
      },
      &pair, &fused);
  return {result, {}};
}

// One loop's site, then the level-based primitive there.
#define TEML_ON_LOOP(what, reorders, call)                                 \
  auto s = siteOf(top, loop, what);                                        \
  return onNest(what, top, s.nest, reorders, [&] { return call; });

Schedule::Applied Schedule::fission(const StmtP& top, const std::string& loop, int k) {
  // A tensor of the body used on both sides of the cut first gets one
  // element per iteration, around the loop (always legal), so that the
  // check compares the split alone.
  // The loop's local tensors used on both sides become local to the loop
  // around it, likewise.
  StmtP hoisted = schedule::hoistLocalsAcrossFission(top, loop, k);
  StmtP first = hoisted == top ? top : apply("fission", {top}, false, [&] { return hoisted; });
  auto s = siteOf(first, loop, "fission");
  StmtP expanded = schedule::expandAcrossFission(s.nest, s.level, k);
  StmtP start = expanded == s.nest ? first : apply("fission", {first}, false, [&] { return replaceStmt(first, s.nest, expanded); });
  auto t = siteOf(start, loop, "fission");
  return onNest("fission", start, t.nest, true, [&] { return schedule::fission(t.nest, t.level, k); });
}
Schedule::Applied Schedule::swap(const StmtP& top, const std::string& loop, int a, int b) {
  TEML_ON_LOOP("swap", true, schedule::swap(s.nest, s.level, a, b))
}
Schedule::Applied Schedule::unroll(const StmtP& top, const std::string& loop) {
  TEML_ON_LOOP("unroll", false, schedule::unroll(s.nest, s.level))
}
Schedule::Applied Schedule::unroll(const StmtP& top, const std::string& loop, int64_t factor) {
  TEML_ON_LOOP("unroll", false, schedule::unrollPartial(s.nest, s.level, factor))
}
Schedule::Applied Schedule::hoistProduct(const StmtP& top, const std::string& loop) {
  TEML_ON_LOOP("hoist_product", false, schedule::hoistProduct(s.nest, s.level))
}
Schedule::Applied Schedule::factorSum(const StmtP& top, const std::string& loop) {
  TEML_ON_LOOP("factor_sum", false, schedule::factorSum(s.nest, s.level))
}
Schedule::Applied Schedule::unrollAndJam(const StmtP& top, const std::string& loop, int64_t factor) {
  TEML_ON_LOOP("unroll_and_jam", true, schedule::unrollAndJam(s.nest, s.level, factor))
}
Schedule::Applied Schedule::blend(const StmtP& top, const std::string& loop) {
  TEML_ON_LOOP("blend", true, schedule::blend(s.nest, s.level))
}
Schedule::Applied Schedule::separateTail(const StmtP& top, const std::string& loop) {
  TEML_ON_LOOP("separate_tail", false, schedule::separateTail(s.nest, s.level))
}
Schedule::Applied Schedule::separateInterior(const StmtP& top, const std::string& loop) {
  auto s = siteOf(top, loop, "separate_interior");
  auto around = loopsAround(top, s.nest);
  return onNest("separate_interior", top, s.nest, false,
                [&] { return schedule::separateInterior(s.nest, s.level, around); });
}
// Race checks hold under --no-check too; a refusal then says so.
#define TEML_RACE_CHECKED(body)                                                 \
  try {                                                                         \
    body                                                                        \
  } catch (const ScheduleError& e) {                                            \
    if (e.kind() != Refusal::Illegal || raceNote().empty()) throw;              \
    throw ScheduleError(e.what() + raceNote(), e.kind());                       \
  }

Schedule::Applied Schedule::parallelize(const StmtP& top, const std::string& loop, ThreadSchedule threads) {
  TEML_RACE_CHECKED(TEML_ON_LOOP("parallelize", false, schedule::parallelize(s.nest, s.level, threads)))
}
Schedule::Applied Schedule::parallelize(const StmtP& top, const std::string& loop, ParallelScope scope) {
  TEML_RACE_CHECKED(TEML_ON_LOOP("parallelize", false, schedule::parallelizeOnGpu(s.nest, s.level, scope)))
}
Schedule::Applied Schedule::distribute(const StmtP& top, const std::string& loop) {
  Applied a = [&]() -> Applied { TEML_RACE_CHECKED(TEML_ON_LOOP("distribute", false, schedule::distribute(s.nest, s.level))) }();
  schedule::checkDistributedNesting(a.result);
  return a;
}
Schedule::Applied Schedule::vectorize(const StmtP& top, const std::string& loop) {
  TEML_RACE_CHECKED(TEML_ON_LOOP("vectorize", false, schedule::vectorize(s.nest, s.level)))
}
Schedule::Applied Schedule::setMemType(const StmtP& top, const std::string& tensor, MemKind kind) {
  return Applied{schedule::setMemType(top, tensor, kind), {}};
}
Schedule::Applied Schedule::asLib(const StmtP& top, const std::string& loop) {
  StmtP l = findLoop(top, loop, "as_lib");
  return onNest("as_lib", top, l, false, [&] { return schedule::asLib(l, program_); });
}

Schedule::Applied Schedule::skew(const StmtP& top, const std::string& outer, const std::string& inner, int64_t factor) {
  auto [o, i] = sitesOf(top, outer, inner, "skew");
  return onNest("skew", top, o.nest, true, [&] { return schedule::skew(o.nest, o.level, i.level, factor); });
}

Schedule::Applied Schedule::interchangeSkewed(const StmtP& top, const std::string& outer, const std::string& inner) {
  auto [o, i] = sitesOf(top, outer, inner, "interchange_skewed");
  if (i.level != o.level + 1)
    throw ScheduleError("interchange_skewed: loop '" + inner + "' is not the whole body of loop '" + outer + "'");
  return onNest("interchange_skewed", top, o.nest, true, [&] { return schedule::interchangeSkewed(o.nest, o.level); });
}

Schedule::Applied Schedule::makeLocal(const StmtP& top, const std::string& loop, const std::string& tensor, int line) {
  const TensorDecl* decl = program_.find(tensor);
  if (!decl) return makeDefinedLocal(top, loop, tensor, line);
  // A front end that declares roles (free-form's parameters) says whose the
  // tensor is: the caller's values would not survive the loop.
  if (auto role = program_.roles.find(tensor); role != program_.roles.end() && ir::isCallers(role->second))
    throw ScheduleError("local: '" + tensor + "' is a parameter (" + ir::roleName(role->second) +
                        "): the caller's values cannot live inside a loop");
  LocalTensor t(*decl);
  auto init = program_.initialValues.find(tensor);
  if (init != program_.initialValues.end()) t.init = init->second;
  localLines_[tensor] = line;
  TEML_ON_LOOP("local", false, schedule::makeLocal(s.nest, s.level, t))
}

// A tensor the program defines around the loop (an intermediate of
// libop's softmax) moves into it: its definition goes, and the loop owns
// it as it owns a program tensor made local, storing one iteration's box.
// It starts as zeros, as the definition did.
Schedule::Applied Schedule::makeDefinedLocal(const StmtP& top, const std::string& loop, const std::string& tensor,
                                             int line) {
  StmtP definition;
  forEachStmt(top, [&](const StmtP& s) {
    if (s->kind == StmtKind::VarDef && s->as<VarDef>().decl.name == tensor && !definition) definition = s;
  });
  if (!definition || !localAround(definition, loop, tensor))
    throw ScheduleError("local: '" + tensor + "' is neither a program tensor nor defined around loop '" + loop + "'");
  const VarDef& v = definition->as<VarDef>();
  StmtP elsewhere = replaceStmt(v.body, findLoop(v.body, loop, "local"), makeSeq({}));
  if (tensorsAccessed(elsewhere).count(tensor))
    throw ScheduleError("local: '" + tensor + "' is used outside loop '" + loop + "' too");
  StmtP moved = replaceStmt(top, definition, v.body);  // checked as a whole once the loop owns it
  localLines_[tensor] = line;
  LocalTensor t(v.decl);
  auto s = siteOf(moved, loop, "local");
  return onNest("local", moved, s.nest, false, [&] { return schedule::makeLocal(s.nest, s.level, t); });
}

std::string Schedule::freshCopyName(const StmtP& top, const std::string& tensor, int line) {
  // No program tensor and no local has it.
  auto locals = schedule::localTensors(top);
  std::string name = tensor + "_cache";
  for (int k = 2; program_.find(name) || locals.count(name) || localLines_.count(name); ++k)
    name = tensor + "_cache" + std::to_string(k);
  localLines_[name] = line;
  return name;
}

// The declaration of the tensor `tensor` defined around loop `loop`, if any.
const TensorDecl* Schedule::localAround(const StmtP& top, const std::string& loop, const std::string& tensor) {
  const TensorDecl* found = nullptr;
  forEachStmt(top, [&](const StmtP& s) {
    if (s->kind != StmtKind::VarDef || s->as<VarDef>().decl.name != tensor) return;
    forEachStmt(s->as<VarDef>().body, [&](const StmtP& t) {
      if (t->kind == StmtKind::For && t->as<For>().id == loop) found = &s->as<VarDef>().decl;
    });
  });
  return found;
}

Schedule::Applied Schedule::cache(const StmtP& top, const std::string& loop, const std::string& tensor, bool reduce,
                                  int line) {
  const std::string what = reduce ? "cache_reduce" : "cache";
  const TensorDecl* decl = program_.find(tensor);
  if (!decl) decl = localAround(top, loop, tensor);  // a tensor the program defines, as GAT's acc
  if (!decl) throw ScheduleError(what + ": '" + tensor + "' is neither a program tensor nor defined around loop '" + loop + "'");
  std::string name = freshCopyName(top, tensor, line);
  TEML_ON_LOOP(what, false, schedule::cache(s.nest, s.level, *decl, name, reduce))
}

Schedule::Applied Schedule::cacheZeroed(const StmtP& top, const std::string& loop, const std::string& tensor, int line) {
  const std::string what = "cache_zeroed";
  const TensorDecl* decl = program_.find(tensor);
  if (!decl) throw ScheduleError(what + ": '" + tensor + "' is not a program tensor");
  if (options_.givenContents.count(tensor) || program_.initialValues.count(tensor))
    throw ScheduleError(what + ": '" + tensor + "' does not start as zeros (it is " +
                        (program_.initialValues.count(tensor) ? "initialized" : "given contents") + ")");
  for (auto& earlier : admitted_)
    if (tensorsWritten(earlier).count(tensor))
      throw ScheduleError(what + ": an earlier nest writes '" + tensor + "', so it no longer holds zeros");
  if (top->kind != StmtKind::For || top->id != loop)
    throw ScheduleError(what + ": only at a nest's outermost loop (level 1), before anything else touches '" + tensor + "'");
  auto& f = top->as<For>();
  analysis::LocalBox box;
  std::string why;
  if (!analysis::localBox(loopBody(f), tensor, &box, &why)) throw ScheduleError(what + ": " + why);
  // Disjoint blocks: along some dimension an iteration's block starts at
  // least its own size after the previous iteration's.
  bool disjoint = false;
  for (size_t d = 0; d < box.offset.size(); ++d) {
    ir::Affine a;
    disjoint = disjoint || (ir::toAffine(box.offset[d], &a) && std::abs(a.coeff(f.var) * f.step) >= box.extent[d]);
  }
  if (!disjoint)
    throw ScheduleError(what + ": iterations of '" + f.var + "' share elements of '" + tensor +
                        "'; each must have a block of its own");
  std::string name = freshCopyName(top, tensor, line);
  zeroedCopies_[name] = tensor;
  TEML_ON_LOOP(what, false, schedule::cache(s.nest, s.level, *decl, name, false, true))
}

#undef TEML_ON_LOOP

}  // namespace teml::schedule
