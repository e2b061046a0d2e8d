#include "autoschedule/auto_fuse.hpp"

#include <algorithm>

#include "autoschedule/auto_state.hpp"
#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// A small operand is copied transposed once per outer iteration: worth it
// while the copy costs little against the nest's work.
constexpr int64_t kSmallOperand = 4096;

int64_t trips(const For& f) {
  int64_t b, e;
  if (f.step != 1 || !constValue(f.begin, &b) || !constValue(f.end, &e)) return -1;
  return e - b;
}

bool isVar(const ExprP& e, const std::string& v) {
  return e->kind == ExprKind::Var && static_cast<const Var&>(*e).name == v;
}

std::vector<const Load*> loadsIn(const ExprP& value) {
  std::vector<const Load*> out;
  forEachExpr(value, [&](const ExprP& e) {
    if (e->kind == ExprKind::Load) out.push_back(static_cast<const Load*>(e.get()));
  });
  return out;
}

bool usesAny(const Load& l, const std::string& v) {
  return std::any_of(l.indices.begin(), l.indices.end(), [&](const ExprP& i) { return usesVar(i, v); });
}

// Copies `tensor`'s part per iteration of loop `id` (`how`: cache or
// cache_zeroed); the copy's name, "" when refused.
std::string copyPerIteration(AutoState& s, const std::string& id, const std::string& tensor,
                             const std::string& how = "cache") {
  auto names = [&] {
    std::set<std::string> out;
    for (auto& t : localsOf(*loopWithId(s.body, id))) out.insert(t.decl.name);
    return out;
  };
  auto had = names();
  if (!s.tryStep({how, {id}, {}, tensor})) return "";
  for (auto& name : names())
    if (!had.count(name)) return name;
  return "";
}

// The nest's own steps: the output's last index in vectors with the sums
// inside (a row of the output in registers while the sums run), two rows
// jammed where the vector operands do not change along them, and a small
// operand read across the vector copied transposed per outer iteration.
void vectorRows(AutoState& s, const Program& program) {
  if (s.body->kind != StmtKind::For) return;
  auto chain = perfectChain(s.body, s.body->id);
  if (chain.size() < 2) return;
  std::vector<const For*> loops;
  for (auto& id : chain) loops.push_back(loopWithId(s.body, id));
  auto inner = items(loops.back()->body);
  if (inner.size() != 1) return;
  const std::vector<ExprP>* out = nullptr;
  ExprP value;
  std::string written;
  if (inner[0]->kind == StmtKind::Store) {
    auto& st = static_cast<const Store&>(*inner[0]);
    out = &st.indices, value = st.value, written = st.tensor;
  } else if (inner[0]->kind == StmtKind::Reduce) {
    auto& r = static_cast<const Reduce&>(*inner[0]);
    out = &r.indices, value = r.value, written = r.tensor;
  } else {
    return;
  }
  if (out->empty() || out->back()->kind != ExprKind::Var) return;
  const std::string vectorVar = static_cast<const Var&>(*out->back()).name;
  auto at = std::find_if(loops.begin() + 1, loops.end(), [&](const For* f) { return f->var == vectorVar; });
  if (at == loops.end() || trips(**at) < s.target.lanes(value->dtype)) return;
  const std::string outerId = loops[0]->id, outerVar = loops[0]->var;
  auto isOutput = [&](const For* f) {
    return std::any_of(out->begin(), out->end(), [&](const ExprP& i) { return isVar(i, f->var); });
  };
  bool sums = std::any_of(loops.begin(), loops.end(), [&](const For* f) { return !isOutput(f); });
  std::vector<const Load*> loads = loadsIn(value);

  // Ids and names from the nest as it is now (each step rebuilds it).
  const std::string vectorId = (*at)->id;
  const For* row = nullptr;
  for (auto it = loops.begin() + 1; it != loops.end(); ++it) {
    const For* f = *it;
    if (f->var == vectorVar || !isOutput(f) || trips(*f) < 2) continue;
    bool shared = std::none_of(loads.begin(), loads.end(),
                               [&](const Load* l) { return usesAny(*l, vectorVar) && usesAny(*l, f->var); });
    if (shared) row = f;
  }
  std::string rowId = row ? row->id : "";
  struct Strided {
    std::string tensor;
    std::vector<int64_t> order;
  };
  std::vector<Strided> strided;
  for (auto* l : loads) {
    const TensorDecl* decl = program.find(l->tensor);
    if (!decl || l->tensor == written || decl->elementCount() > kSmallOperand || usesAny(*l, outerVar)) continue;
    if (!std::all_of(l->indices.begin(), l->indices.end(), [](const ExprP& i) { return i->kind == ExprKind::Var; }))
      continue;
    for (size_t d = 0; d + 1 < l->indices.size(); ++d) {
      if (!isVar(l->indices[d], vectorVar)) continue;
      Strided t{l->tensor, {}};
      for (size_t k = 0; k < l->indices.size(); ++k)
        if (k != d) t.order.push_back(static_cast<int64_t>(k) + 1);
      t.order.push_back(static_cast<int64_t>(d) + 1);
      if (std::none_of(strided.begin(), strided.end(), [&](const Strided& x) { return x.tensor == t.tensor; }))
        strided.push_back(t);
    }
  }

  if (!s.tryStep({"vectorize", {vectorId}})) return;
  if (sums && !rowId.empty()) s.tryStep({"unroll_and_jam", {rowId}, {2}});
  for (auto& t : strided) {
    AutoState::Saved before = s.save();
    std::string copy = copyPerIteration(s, outerId, t.tensor);
    if (copy.empty() || !s.tryStep({"var_reorder", {}, t.order, copy})) s.restore(before);
  }
}

// The elements of the outer loop in SIMD lanes (interp's hand schedule):
// the outer loop in blocks of one vector, the block's elements moved inside
// every output loop, just outside the sums, and vectorized; each sum then
// runs on whole vectors however short its own loops are.
void elementLanes(AutoState& s) {
  if (s.body->kind != StmtKind::For) return;
  auto chain = perfectChain(s.body, s.body->id);
  std::vector<const For*> loops;
  for (auto& id : chain) loops.push_back(loopWithId(s.body, id));
  auto inner = items(loops.back()->body);
  if (inner.size() != 1 || (inner[0]->kind != StmtKind::Store && inner[0]->kind != StmtKind::Reduce)) return;
  bool store = inner[0]->kind == StmtKind::Store;
  const auto& out = store ? static_cast<const Store&>(*inner[0]).indices : static_cast<const Reduce&>(*inner[0]).indices;
  DType type = (store ? static_cast<const Store&>(*inner[0]).value : static_cast<const Reduce&>(*inner[0]).value)->dtype;
  int lanes = s.target.lanes(type);
  if (out.empty() || !isVar(out[0], loops[0]->var) || trips(*loops[0]) < 2 * lanes) return;
  std::vector<std::string> outputs, sums;
  for (size_t k = 1; k < loops.size(); ++k) {
    bool output = std::any_of(out.begin(), out.end(), [&](const ExprP& i) { return isVar(i, loops[k]->var); });
    (output ? outputs : sums).push_back(loops[k]->id);
  }
  const std::string element = loops[0]->id;
  AutoState::Saved before = s.save();
  if (!s.tryStep({"split", {element}, {lanes}})) return;
  std::vector<std::string> order = {s.made().at(0)};
  order.insert(order.end(), outputs.begin(), outputs.end());
  order.push_back(element);
  order.insert(order.end(), sums.begin(), sums.end());
  if (order != perfectChain(s.body, order[0]) && !s.tryStep({"reorder", order})) return s.restore(before);
  if (!s.tryStep({"vectorize", {element}})) s.restore(before);
}

// `tensor`'s element dimension (its first) moved last: the lanes' elements side by side.
bool elementsLast(AutoState& s, const std::string& tensor, size_t rank) {
  if (rank < 2) return false;
  std::vector<int64_t> order;
  for (size_t d = 2; d <= rank; ++d) order.push_back(static_cast<int64_t>(d));
  order.push_back(1);
  return s.tryStep({"var_reorder", {}, order, tensor});
}

// Tensors the statements of `body` write, in program order, each once.
std::vector<std::string> writtenIn(const StmtP& body) {
  std::vector<std::string> out;
  forEachStmt(body, [&](const StmtP& s) {
    std::string t;
    if (s->kind == StmtKind::Store) t = static_cast<const Store&>(*s).tensor;
    if (s->kind == StmtKind::Reduce) t = static_cast<const Reduce&>(*s).tensor;
    if (!t.empty() && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  });
  return out;
}

// Intermediates: tensors a nest writes and a later nest reads (what no nest
// reads is a result).
std::vector<std::string> intermediates(const std::vector<StmtP>& nests) {
  std::vector<std::string> out;
  for (size_t k = 0; k + 1 < nests.size(); ++k)
    for (auto& t : writtenIn(nests[k])) {
      bool read = false;
      for (size_t later = k + 1; later < nests.size(); ++later)
        forEachExprIn(nests[later], [&](const ExprP& e) {
          read = read || (e->kind == ExprKind::Load && static_cast<const Load&>(*e).tensor == t);
        });
      if (read && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
  return out;
}

// Every store and update of `tensor` in `body` is at [element][...].
bool writtenAtElement(const StmtP& body, const std::string& tensor, const std::string& element) {
  bool ok = true;
  forEachStmt(body, [&](const StmtP& s) {
    const std::vector<ExprP>* at = nullptr;
    if (s->kind == StmtKind::Store && static_cast<const Store&>(*s).tensor == tensor) at = &static_cast<const Store&>(*s).indices;
    if (s->kind == StmtKind::Reduce && static_cast<const Reduce&>(*s).tensor == tensor) at = &static_cast<const Reduce&>(*s).indices;
    if (at) ok = ok && !at->empty() && isVar(at->front(), element);
  });
  return ok;
}

// The largest tensor the fused loop only reads, and only at the element's
// first index (u[e][..]): its part is copied in per iteration while the
// next iteration's is fetched.
std::string streamedInput(const StmtP& body, const std::string& element, const Program& program,
                          const std::vector<std::string>& written) {
  std::map<std::string, bool> plain;  // tensor -> every load indexes it [element][...]
  forEachExprIn(body, [&](const ExprP& e) {
    if (e->kind != ExprKind::Load) return;
    auto& l = static_cast<const Load&>(*e);
    bool ok = !l.indices.empty() && isVar(l.indices[0], element);
    for (size_t k = 1; ok && k < l.indices.size(); ++k) ok = !usesVar(l.indices[k], element);
    auto [it, fresh] = plain.emplace(l.tensor, ok);
    if (!fresh) it->second = it->second && ok;
  });
  std::string best;
  int64_t largest = 0;
  for (auto& [tensor, ok] : plain) {
    const TensorDecl* decl = program.find(tensor);
    if (!ok || !decl || std::find(written.begin(), written.end(), tensor) != written.end()) continue;
    if (decl->elementCount() > largest) best = tensor, largest = decl->elementCount();
  }
  return best;
}

// The nests fused one after another over their outermost loops (null: refused).
StmtP fuseAtOuterLoops(schedule::Schedule& schedule, const std::vector<StmtP>& nests) {
  StmtP fused = nests[0];
  try {
    for (size_t k = 1; k < nests.size(); ++k) fused = schedule.fuseOuter(fused, nests[k], 1);
  } catch (const schedule::ScheduleError&) {
    return nullptr;
  }
  return fused;
}

}  // namespace

FusedVectors preferredVectors(const std::vector<StmtP>& nests, const target::Target& target) {
  if (nests.empty() || nests[0]->kind != StmtKind::For) return FusedVectors::Rows;
  auto chain = perfectChain(nests[0], nests[0]->id);
  const For* last = loopWithId(nests[0], chain.back());
  auto inner = items(last->body);
  if (inner.size() != 1 || inner[0]->kind != StmtKind::Reduce) return FusedVectors::Rows;
  auto& r = static_cast<const Reduce&>(*inner[0]);
  if (r.indices.empty() || r.indices.back()->kind != ExprKind::Var) return FusedVectors::Rows;
  for (auto& id : chain) {
    const For* f = loopWithId(nests[0], id);
    if (isVar(r.indices.back(), f->var))
      return trips(*f) >= 0 && trips(*f) < 2 * target.lanes(r.value->dtype) ? FusedVectors::Lanes : FusedVectors::Rows;
  }
  return FusedVectors::Rows;
}

std::optional<FusedNests> autoFuse(const schedule::Schedule& schedule, const std::vector<StmtP>& nests,
                                   const Program& program, const std::set<std::string>& kept,
                                   const target::Target& target, FusedVectors vectors) {
  if (nests.size() < 2 || nests[0]->kind != StmtKind::For) return std::nullopt;
  const std::string element = static_cast<const For&>(*nests[0]).var;
  schedule::Schedule trial = schedule.checked();
  FusedNests fused;
  std::vector<StmtP> bodies;
  for (auto& nest : nests) {
    AutoState s(trial, nest, target);
    if (vectors == FusedVectors::Rows) vectorRows(s, program);
    else elementLanes(s);
    bodies.push_back(s.body);
    fused.nestSteps.push_back(s.steps);
  }
  // Fused as TeML's fuse_outer(f, m, 1) fuses, so that the steps print and replay as TeML.
  StmtP fusedNest = fuseAtOuterLoops(trial, bodies);
  if (!fusedNest) return std::nullopt;
  AutoState group(trial, fusedNest, target);
  const std::string outer = fusedNest->id;
  const bool lanes = vectors == FusedVectors::Lanes;
  auto written = writtenIn(group.body);
  std::vector<std::string> local;
  for (auto& t : intermediates(nests))
    if (!kept.count(t) && program.find(t) && group.tryStep({"local", {outer}, {}, t})) local.push_back(t);
  if (local.empty()) return std::nullopt;
  group.tryStep({"parallelize", {outer}});
  if (lanes)
    for (auto& t : local) elementsLast(group, t, program.find(t)->shape.size());
  std::string input = streamedInput(group.body, element, program, written);
  if (!input.empty()) {
    AutoState::Saved before = group.save();
    std::string copy = copyPerIteration(group, outer, input);
    if (copy.empty() || (lanes && !elementsLast(group, copy, program.find(input)->shape.size())) ||
        !group.tryStep({"prefetch", {}, {}, copy}))
      group.restore(before);
  }
  // Results in lanes are assembled in a block (in the tensor's own layout,
  // so that it leaves as one contiguous run of non-temporal stores); the
  // block of a result that still holds its starting zeros starts as zeros
  // instead of being read (cache_zeroed).
  for (auto& t : written) {
    if (!lanes || std::find(local.begin(), local.end(), t) != local.end() || !writtenAtElement(group.body, t, element))
      continue;
    if (copyPerIteration(group, outer, t, "cache_zeroed").empty()) copyPerIteration(group, outer, t);
  }
  fused.body = group.body;
  fused.steps = group.steps;
  return fused;
}

StmtP replayFused(schedule::Schedule& schedule, const std::vector<StmtP>& nests, const FusedNests& fused,
                  const target::Target& target) {
  std::vector<StmtP> bodies;
  for (size_t k = 0; k < nests.size(); ++k) {
    AutoState s(schedule, nests[k], target);
    if (!s.replay(fused.nestSteps[k])) return nullptr;
    bodies.push_back(s.body);
  }
  StmtP fusedNest = fuseAtOuterLoops(schedule, bodies);
  if (!fusedNest) return nullptr;
  AutoState group(schedule, fusedNest, target);
  return group.replay(fused.steps) ? group.body : nullptr;
}

std::vector<std::string> temlLines(const FusedNests& fused, const std::vector<std::string>& names) {
  std::vector<std::string> lines, current;
  for (size_t k = 0; k < names.size(); ++k) {
    if (fused.nestSteps[k].empty()) {
      current.push_back(names[k]);
      continue;
    }
    std::string result = names[k] + "_auto";
    for (auto& line : temlLines(fused.nestSteps[k], names[k], result)) lines.push_back(line);
    current.push_back(result);
  }
  std::string name = names[0] + "_fused";
  lines.push_back("# " + name + ": the nests fused over their outer loop, then " + std::to_string(fused.steps.size()) +
                  " steps");
  std::string in = current[0];
  int made = 0;
  auto next = [&] { return name + "_" + std::to_string(++made); };
  for (size_t k = 1; k < current.size(); ++k) {
    std::string out = next();
    lines.push_back(out + " = fuse_outer(" + in + ", " + current[k] + ", 1)");
    in = out;
  }
  for (auto& step : fused.steps) {
    std::string out = next();
    lines.push_back(temlText(step, in, out));
    in = out;
  }
  lines.push_back("codegen(" + in + ")");
  return lines;
}

}  // namespace teml::autoschedule
