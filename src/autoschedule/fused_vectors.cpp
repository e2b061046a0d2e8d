#include "autoschedule/fused_vectors.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// A small operand is copied transposed once per outer iteration: worth it
// while the copy costs little against the nest's work.
constexpr int64_t kSmallOperand = 4096;



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

// The loops of the perfect nest from `nest`'s top and the one store or
// update inside them (none when the nest is not of that form).
struct PerfectNest {
  std::vector<const For*> loops;
  std::vector<ExprP> indices;  // of the written element
  ExprP value;
  std::string tensor;
};

std::optional<PerfectNest> perfectNest(const StmtP& nest) {
  if (nest->kind != StmtKind::For) return std::nullopt;
  PerfectNest p;
  for (auto& id : perfectChain(nest, nest->id)) p.loops.push_back(loopWithId(nest, id));
  auto inner = items(p.loops.back()->body);
  if (inner.size() != 1) return std::nullopt;
  if (inner[0]->kind == StmtKind::Store) {
    auto& st = inner[0]->as<Store>();
    p.indices = st.indices, p.value = st.value, p.tensor = st.tensor;
  } else if (inner[0]->kind == StmtKind::Reduce) {
    auto& r = inner[0]->as<Reduce>();
    p.indices = r.indices, p.value = r.value, p.tensor = r.tensor;
  } else {
    return std::nullopt;
  }
  return p;
}

}  // namespace

std::string copyPerIteration(AutoState& s, const std::string& id, const std::string& tensor, const std::string& how) {
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
  auto nest = perfectNest(s.body);
  if (!nest || nest->loops.size() < 2) return;
  const std::vector<const For*>& loops = nest->loops;
  const std::vector<ExprP>& out = nest->indices;
  if (out.empty() || out.back()->kind != ExprKind::Var) return;
  const std::string vectorVar = out.back()->as<Var>().name;
  auto at = std::find_if(loops.begin() + 1, loops.end(), [&](const For* f) { return f->var == vectorVar; });
  if (at == loops.end() || constantTrips(**at) < s.target.lanes(nest->value->dtype)) return;
  const std::string outerId = loops[0]->id, outerVar = loops[0]->var;
  auto isOutput = [&](const For* f) {
    return std::any_of(out.begin(), out.end(), [&](const ExprP& i) { return isVar(i, f->var); });
  };
  bool sums = std::any_of(loops.begin(), loops.end(), [&](const For* f) { return !isOutput(f); });
  std::vector<const Load*> loads = loadsIn(nest->value);

  // Ids and names from the nest as it is now (each step rebuilds it).
  const std::string vectorId = (*at)->id;
  const For* row = nullptr;
  for (auto it = loops.begin() + 1; it != loops.end(); ++it) {
    const For* f = *it;
    if (f->var == vectorVar || !isOutput(f) || constantTrips(*f) < 2) continue;
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
    if (!decl || l->tensor == nest->tensor || decl->elementCount() > kSmallOperand || usesAny(*l, outerVar)) continue;
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
  auto nest = perfectNest(s.body);
  if (!nest) return;
  const std::vector<const For*>& loops = nest->loops;
  const std::vector<ExprP>& out = nest->indices;
  int lanes = s.target.lanes(nest->value->dtype);
  if (out.empty() || !isVar(out[0], loops[0]->var) || constantTrips(*loops[0]) < 2 * lanes) return;
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

bool elementsLast(AutoState& s, const std::string& tensor, size_t rank) {
  if (rank < 2) return false;
  std::vector<int64_t> order;
  for (size_t d = 2; d <= rank; ++d) order.push_back(static_cast<int64_t>(d));
  order.push_back(1);
  return s.tryStep({"var_reorder", {}, order, tensor});
}

FusedVectors preferredVectors(const std::vector<StmtP>& nests, const target::Target& target) {
  auto nest = nests.empty() ? std::nullopt : perfectNest(nests[0]);
  if (!nest || nest->indices.empty()) return FusedVectors::Rows;
  for (auto* f : nest->loops)
    if (isVar(nest->indices.back(), f->var))
      return constantTrips(*f) >= 0 && constantTrips(*f) < 2 * target.lanes(nest->value->dtype) ? FusedVectors::Lanes
                                                                                 : FusedVectors::Rows;
  return FusedVectors::Rows;
}

}  // namespace teml::autoschedule
