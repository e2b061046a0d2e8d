#include "autoschedule/auto_sums_in_registers.hpp"

#include <algorithm>
#include <set>

#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// The vectors the explicit vector plan jams around inner loops (vector_plans.cpp).
constexpr int64_t kJammedVectors = 4;
// Rows of a long row's loop jammed together: four, or eight for sums along
// the rows (A^T x: each sum then loaded and stored once for eight rows; 0.47
// -> 0.43 ms in C, NumPy 0.37) unless the rows lie a multiple of 4 KiB
// apart. Eight such rows share the sets of an 8-way L1 cache with the sums
// (column sums of 4096 floats ran 40% slower with eight).
constexpr int64_t kRowsJammed = 4;
constexpr int64_t kRowsJammedAlong = 8;
constexpr int64_t kCacheSetBytes = 4096;

// Some operand read in j lies a multiple of kCacheSetBytes apart from one
// iteration of k to the next.
bool rowsShareCacheSets(const AutoState& state, const For& k, const For& j) {
  bool shared = false;
  forEachExprIn(j.body, [&](const ExprP& e) {
    if (e->kind != ExprKind::Load) return;
    auto& l = e->as<Load>();
    const TensorDecl* decl = state.tensor(l.tensor);
    if (!decl || decl->shape.size() != l.indices.size()) return;
    int64_t stride = bytes(decl->dtype);
    for (size_t d = l.indices.size(); d-- > 0;) {
      if (usesVar(l.indices[d], k.var) && stride % kCacheSetBytes == 0) shared = true;
      stride *= decl->shape[d];
    }
  });
  return shared;
}

// Along `v`, every subscript list either ignores v or ends in v plus
// something without v, and uses v nowhere else.
bool contiguousOrInvariant(const std::vector<ExprP>& indices, const std::string& v) {
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!usesVar(indices[d], v)) continue;
    if (d + 1 != indices.size()) return false;
    const ExprP& e = indices[d];
    if (isVar(e, v)) continue;
    if (e->kind != ExprKind::Binary || e->as<Binary>().op != BinOp::Add) return false;
    auto& b = e->as<Binary>();
    if (!((isVar(b.a, v) && !usesVar(b.b, v)) || (isVar(b.b, v) && !usesVar(b.a, v)))) return false;
  }
  return true;
}

// What the sums in `j`, the only statement of `k`, add into.
enum class Sums {
  None,          // something else
  AlongJ,        // elements that move with j and not with k: kept across k
  OnePerKAlong,  // elements that move with k and not with j: dot products along j, one per k
};

// j holds only sums into elements of one of those kinds, and reads
// contiguously or invariantly along j.
Sums sumsIn(const For& k, const For& j) {
  bool dots = true, along = true, any = false, reads = true;
  forEachStmt(j.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::Seq || s->kind == StmtKind::Assert) return;
    if (s->kind != StmtKind::Reduce || s->as<Reduce>().op != ReduceOp::Add) {
      dots = along = false;
      return;
    }
    auto& r = s->as<Reduce>();
    any = true;
    bool usesK = false, usesJ = false;
    for (auto& i : r.indices) usesK = usesK || usesVar(i, k.var), usesJ = usesJ || usesVar(i, j.var);
    along = along && !usesK && !r.indices.empty() && isVar(r.indices.back(), j.var) && contiguousOrInvariant(r.indices, j.var);
    dots = dots && usesK && !usesJ;
    forEachExpr(r.value, [&](const ExprP& e) {
      if (e->kind == ExprKind::Load) reads = reads && contiguousOrInvariant(e->as<Load>().indices, j.var);
    });
  });
  if (!any || !reads) return Sums::None;
  return along ? Sums::AlongJ : dots ? Sums::OnePerKAlong : Sums::None;
}

// Some load in j reads the same elements for every k (gemv's x[j]): what
// rows of k jammed together load once for all of them.
bool readsAlikeForEveryK(const For& k, const For& j) {
  bool shared = false;
  forEachStmt(j.body, [&](const StmtP& s) {
    if (s->kind != StmtKind::Reduce) return;
    forEachExpr(s->as<Reduce>().value, [&](const ExprP& e) {
      if (e->kind != ExprKind::Load) return;
      bool usesK = false;
      for (auto& i : e->as<Load>().indices) usesK = usesK || usesVar(i, k.var);
      shared = shared || !usesK;
    });
  });
  return shared;
}

// The loop whose only statement is the loop `id`, index checks aside and
// through a guard without an else (`*guarded` then: a window's bounds).
const For* loopAround(const StmtP& nest, const std::string& id, bool* guarded = nullptr) {
  const For* around = nullptr;
  forEachStmt(nest, [&](const StmtP& s) {
    if (s->kind != StmtKind::For) return;
    auto inner = items(s->as<For>().body);
    bool guard = false;
    for (;;) {
      if (inner.size() == 1 && inner[0]->kind == StmtKind::Assert) {
        inner = items(inner[0]->as<Assert>().body);
      } else if (inner.size() == 1 && inner[0]->kind == StmtKind::If && !inner[0]->as<If>().otherwise) {
        inner = items(inner[0]->as<If>().then), guard = true;
      } else {
        break;
      }
    }
    if (inner.size() == 1 && inner[0]->kind == StmtKind::For && inner[0]->id == id) {
      around = &s->as<For>();
      if (guarded) *guarded = guard;
    }
  });
  return around;
}

bool oneIteration(const For& f) {
  int64_t span;
  return constValue(sub(f.end, f.begin), &span) && span >= 1 && span <= f.step;
}

// The loop whose body is stores and then the loop `id` (a dot product's
// `dot[t] = 0` before its sum over p), and how many stores lead.
std::pair<const For*, int> leadingStores(const StmtP& nest, const std::string& id) {
  std::pair<const For*, int> found{nullptr, 0};
  forEachStmt(nest, [&](const StmtP& s) {
    if (s->kind != StmtKind::For) return;
    auto body = bodyItems(s->as<For>());
    if (body.size() < 2 || body.back()->kind != StmtKind::For || body.back()->id != id) return;
    for (size_t k = 0; k + 1 < body.size(); ++k)
      if (body[k]->kind != StmtKind::Store) return;
    found = {&s->as<For>(), static_cast<int>(body.size()) - 1};
  });
  return found;
}

int64_t sumsCount(const For& j) {
  int64_t n = 0;
  forEachStmt(j.body, [&](const StmtP& s) { n += s->kind == StmtKind::Reduce; });
  return std::max<int64_t>(n, 1);
}

// Dot products jammed `rows` at a time (k's rows) jammed with rows of the
// loop i around their block too: `x.grad[i, k] += y.grad[i, j] * w[k, j]`,
// an MLP layer's gradient, four rows of y.grad by four of w, each row read
// once for four sums (the joint sums of code generation keep one vector
// each: as many sums as a vector has lanes at most). Sixteen such sums of
// 384 floats: 2.4 ms with four, 0.5 ms with sixteen (AMD EPYC, AVX-512).
void jamTheRowsAround(AutoState& state, const std::string& outer, const std::string& blocks, const std::string& jid,
                      int64_t rows) {
  const For* j = loopWithId(state.body, jid);
  std::string sums;
  forEachStmt(j->body, [&](const StmtP& s) {
    if (s->kind == StmtKind::Reduce) sums = s->as<Reduce>().tensor;
  });
  const TensorDecl* decl = state.tensor(sums);
  if (!decl) return;
  int64_t lanes = state.target.lanes(decl->dtype), factor = lanes / rows;
  if (factor < 2 || constantTrips(*j) % lanes) return;
  bool guarded = false;
  const For* i = loopAround(loopWithId(state.body, outer)->self(), blocks, &guarded);
  if (!i || guarded || i->loopKind.concurrent() || constantTrips(*i) < 2 * factor) return;
  bool moves = false;
  forEachStmt(j->body, [&](const StmtP& s) {
    if (s->kind != StmtKind::Reduce) return;
    for (auto& e : s->as<Reduce>().indices) moves = moves || usesVar(e, i->var);
  });
  if (!moves) return;
  AutoState::Saved before = state.save();
  std::string iid = i->id;
  if (!state.tryStep({"split", {iid}, {factor}}) || !state.tryStep({"reorder", {blocks, iid}}) ||
      !state.tryStep({"unroll_and_jam", {iid}, {factor}}))
    state.restore(before);
}

}  // namespace

void autoSumsInRegisters(AutoState& state) {
  int64_t lanes = state.target.lanes(DType::F32);
  for (auto& jid : innermostLoops(state.body)) {
    const For* j = loopWithId(state.body, jid);
    if (!j) continue;
    auto outermostAround = [&] {
      std::string outer;
      for (auto& o : outermostLoops(state.body)) {
        bool inside = false;
        forEachStmt(loopWithId(state.body, o)->self(), [&](const StmtP& s) { inside = inside || s->id == jid; });
        if (inside) outer = o;
      }
      return outer;
    };
    std::string outer = outermostAround();
    int64_t trips = constantTrips(*j);
    if (j->loopKind.concurrent() || trips < lanes) continue;
    // Dot products that start from stores of their own (gemv written with
    // `y[i] = 0` before its sum): the stores go to a loop of their own first
    // (fission), where the rows can then be jammed.
    if (!loopAround(loopWithId(state.body, outer)->self(), jid)) {
      auto [k, stores] = leadingStores(loopWithId(state.body, outer)->self(), jid);
      if (k && !k->loopKind.concurrent() && constantTrips(*k) >= 2 * kRowsJammed && trips >= kJammedVectors * lanes &&
          sumsIn(*k, *j) == Sums::OnePerKAlong && state.tryStep({"fission", {k->id}, {stores}})) {
        j = loopWithId(state.body, jid);
        outer = outermostAround();
      }
    }
    // The loop right around j, with j its only statement, or around a loop
    // of one iteration that is (rows an earlier pass jammed into j).
    const StmtP& nest = loopWithId(state.body, outer)->self();
    bool guarded = false;
    const For* k = loopAround(nest, jid, &guarded);
    const For* between = nullptr;
    if (k && oneIteration(*k) && !guarded) between = k, k = loopAround(nest, k->id, &guarded);
    if (!k || k->loopKind.concurrent()) continue;
    Sums sums = sumsIn(*k, *j);
    if (sums == Sums::None || (sums == Sums::OnePerKAlong && trips < kJammedVectors * lanes)) continue;
    AutoState::Saved before = state.save();
    std::string kid = k->id;
    if (sums == Sums::AlongJ) {
      // Vectors of j whose sums (one register each per statement) the
      // registers hold beside what they are multiplied by.
      int64_t statements = sumsCount(*j);
      int64_t vectors = (trips + lanes - 1) / lanes;
      int64_t held = std::clamp<int64_t>(state.target.vectorRegisters() / 2 / statements, 1, kJammedVectors);
      if (between || guarded) {
        // Rows jammed already, or rows under a guard (which no jam takes): j
        // in blocks of the vectors the registers hold, each block outside k
        // (attention's P V on AVX2: four jammed rows of 64 floats are 32
        // registers of sums, two vectors at a time 8; 1.8 to 1.35 ms.
        // Longformer's window of rows, each under its bounds check: 512
        // features in 16 blocks of 4 vectors, 0.40 to 0.26 s on 2 threads).
        if (vectors > held && (trips % (held * lanes) || (!guarded && vectors / held > kJammedVectors))) continue;
        std::vector<std::string> order{jid, kid};
        if (vectors > held) {
          if (!state.tryStep({"split", {jid}, {held * lanes}})) continue;
          order.insert(order.begin(), state.made().back());  // the blocks; j runs within one
        }
        if (!state.tryStep({"reorder", order}) || !state.tryStep({"vectorize", {jid}})) {
          state.restore(before);
          continue;
        }
        state.lanesAroundSums.push_back(jid);
        continue;
      }
      if (vectors <= held) {
        // auto_vectorize leaves alone a nest with a vector loop: only where j is its one innermost loop.
        if (innermostLoops(nest).size() != 1) continue;
        if (!state.tryStep({"reorder", {jid, kid}}) || !state.tryStep({"vectorize", {jid}})) state.restore(before);
        continue;
      }
      // One row of more vectors than the registers hold is jammed with the
      // next rows (below) where it is long; an embedding bag's rows of 64
      // floats in blocks of 32 outside the bag took 10% longer on AVX2.
      if (vectors <= kJammedVectors) continue;
    }
    if (between || guarded) continue;
    // Sums of rows that share no load (a row sum) gain nothing from a jam,
    // and four rows read at once were slower than one after the other
    // (4096 x 4096 floats on AMD Zen 4, 1 thread: 2.6-2.8 against 2.1-2.7 ms).
    if (sums == Sums::OnePerKAlong && !readsAlikeForEveryK(*k, *j)) continue;
    // A long row: rows of k four at a time, jammed into it (each sum loaded
    // and stored once for four rows; four dot products reading four rows
    // at once share the loads of what they multiply them by).
    int64_t rows = sums == Sums::AlongJ && !rowsShareCacheSets(state, *k, *j) ? kRowsJammedAlong : kRowsJammed;
    if (constantTrips(*k) < 2 * rows) continue;
    if (!state.tryStep({"split", {kid}, {rows}})) continue;
    std::string blocks = state.made().back();
    if (!state.tryStep({"unroll_and_jam", {kid}, {rows}})) {
      state.restore(before);
      continue;
    }
    if (sums == Sums::OnePerKAlong) jamTheRowsAround(state, outer, blocks, jid, rows);
  }
}

}  // namespace teml::autoschedule
