#include "autoschedule/auto_register_block.hpp"

#include <cstdlib>

#include <algorithm>
#include <thread>

#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

namespace {
// The columns' tile: the preferred size, or the multiple of `unit` nearest
// it (from half to twice) that divides the columns. A last, short tile
// keeps its column loops in min(...) bounds, where no explicit vector plan
// reaches them and the sums go through memory: 832 x 832 x 832 took 107 ms
// on two threads in tiles of 128 (the last 64 wide), 7.6 ms in tiles of 64.
// Columns no such tile divides are not tiled (769: 85 ms tiled, 6.2 not).
int64_t columnTile(int64_t columns, int64_t preferred, int64_t unit) {
  if (columns % preferred == 0 || unit <= 0) return preferred;
  int64_t best = 0;
  for (int64_t t = unit * ((preferred / 2 + unit - 1) / unit); t <= 2 * preferred; t += unit)
    if (columns % t == 0 && (best == 0 || std::abs(t - preferred) < std::abs(best - preferred))) best = t;
  return best > 0 ? best : preferred;
}
}  // namespace

using namespace ir;

namespace {


// e is v + (something without v): consecutive v, consecutive elements.
bool unitStride(const ExprP& e, const std::string& v) {
  if (isVar(e, v)) return true;
  if (e->kind != ExprKind::Binary) return false;
  auto& b = e->as<Binary>();
  if (b.op != BinOp::Add) return false;
  return (isVar(b.a, v) && !usesVar(b.b, v)) || (isVar(b.b, v) && !usesVar(b.a, v));
}

bool uses(const Load& l, const std::string& v) {
  return std::any_of(l.indices.begin(), l.indices.end(), [&](const ExprP& i) { return usesVar(i, v); });
}


}  // namespace

std::optional<Contraction> findContraction(const StmtP& body, const std::string& outer, const target::Target& target) {
  auto chain = perfectChain(body, outer);
  std::vector<const For*> loops;
  for (auto& id : chain) {
    const For* f = loopWithId(body, id);
    if (constantTrips(*f) < 1 || f->loopKind.concurrent() || !localsOf(*f).empty()) return std::nullopt;
    loops.push_back(f);
  }
  auto inner = items(loops.back()->body);
  if (inner.size() != 1 || inner[0]->kind != StmtKind::Reduce) return std::nullopt;
  auto& red = inner[0]->as<Reduce>();
  if (red.op != ReduceOp::Add || red.indices.empty() || isIntegral(red.value->dtype)) return std::nullopt;

  auto loopOf = [&](const std::string& var) -> const For* {
    for (auto* f : loops)
      if (f->var == var) return f;
    return nullptr;
  };
  std::vector<std::string> outputVars;
  for (auto& i : red.indices) {
    if (i->kind != ExprKind::Var || !loopOf(i->as<Var>().name)) return std::nullopt;
    outputVars.push_back(i->as<Var>().name);
  }
  Contraction c;
  c.lanes = target.lanes(red.value->dtype);
  const For* column = loopOf(outputVars.back());
  c.column = column->id;
  c.columnTrips = constantTrips(*column);
  if (c.columnTrips < c.lanes) return std::nullopt;

  // Loads that use the column must read consecutive elements along it, in their last index only.
  std::vector<const Load*> columnLoads;
  bool indirect = false;
  forEachExpr(red.value, [&](const ExprP& e) {
    if (e->kind != ExprKind::Load) return;
    auto& l = e->as<Load>();
    for (auto& i : l.indices) forEachExpr(i, [&](const ExprP& x) { indirect = indirect || x->kind == ExprKind::Load; });
    if (uses(l, column->var)) columnLoads.push_back(&l);
  });
  if (indirect || columnLoads.empty()) return std::nullopt;
  for (auto* l : columnLoads) {
    for (size_t k = 0; k + 1 < l->indices.size(); ++k)
      if (usesVar(l->indices[k], column->var)) return std::nullopt;
    if (!unitStride(l->indices.back(), column->var)) return std::nullopt;
  }

  std::vector<std::string> sumVars;
  for (auto* f : loops)
    if (std::find(outputVars.begin(), outputVars.end(), f->var) == outputVars.end()) sumVars.push_back(f->var);
  // The row loop: the innermost output loop whose rows share each column
  // vector (no column operand uses it); failing that, one whose column
  // operands do not change along the sums (S[i][j] in S[i][j] * A[i][k] *
  // B[k][j]: loaded once per block, kept in registers).
  auto rowScore = [&](const For& f) {
    if (&f == column || constantTrips(f) < 2) return 0;
    bool shared = true, invariant = true;
    for (auto* l : columnLoads) {
      if (!uses(*l, f.var)) continue;
      shared = false;
      invariant = invariant && std::none_of(sumVars.begin(), sumVars.end(), [&](const std::string& v) { return uses(*l, v); });
    }
    return shared ? 2 : invariant ? 1 : 0;
  };
  const For* row = nullptr;
  for (auto* f : loops)
    if (std::find(outputVars.begin(), outputVars.end(), f->var) != outputVars.end() && rowScore(*f) > 0 &&
        (!row || rowScore(*f) >= rowScore(*row)))
      row = f;
  // Without a row loop nothing reuses a block of a column operand. Where a
  // sum walks such an operand across rows of memory (A[i][j] summed over
  // i), a column block would read a line or two of each row, rows a page
  // apart: streaming the rows (the sum outside, the columns in lanes inside,
  // auto_loop_order's form) reads memory in order.
  if (!row)
    for (auto* l : columnLoads)
      for (size_t k = 0; k + 1 < l->indices.size(); ++k)
        for (auto& v : sumVars)
          if (usesVar(l->indices[k], v)) return std::nullopt;
  for (auto* f : loops) {
    bool output = std::find(outputVars.begin(), outputVars.end(), f->var) != outputVars.end();
    if (!output) c.sums.push_back(f->id);
    else if (f == row) c.row = f->id, c.rowTrips = constantTrips(*f);
    else if (f != column) c.batch.push_back(f->id);
  }
  if (c.sums.empty()) return std::nullopt;
  const For* firstSum = loopWithId(body, c.sums[0]);
  c.sumTrips = constantTrips(*firstSum);
  for (auto* l : columnLoads) {
    bool plain = std::all_of(l->indices.begin(), l->indices.end(), [](const ExprP& i) { return i->kind == ExprKind::Var; });
    if (plain && uses(*l, firstSum->var) && (!row || !uses(*l, row->var))) c.packed = l->tensor;
  }
  return c;
}

std::vector<RegisterBlock> registerBlockCandidates(const Contraction& c, const target::Target& target) {
  // mm's block (examples/mm/best.teml): VLEN + 2 rows of two vectors, VLEN the doubles in a register.
  int64_t vlen = target.lanes(DType::F64);
  std::vector<int64_t> rows = {vlen + 2, vlen, 4};
  // A block that divides the rows leaves no remainder nest (250 rows: 5).
  for (int64_t d = vlen + 2; d >= 3; --d)
    if (c.rowTrips % d == 0) {
      if (std::find(rows.begin(), rows.end(), d) == rows.end()) rows.push_back(d);
      break;
    }
  std::vector<int64_t> widths = {2 * c.lanes, c.lanes};
  std::vector<int64_t> tiles = {0};
  const int64_t tile = 128;
  // Packed tiles pay off when a block of rows reuses them.
  // Tiles that leave a short last one are left out (columnTile).
  if (!c.packed.empty() && !c.row.empty() && c.columnTrips >= 2 * tile && c.sumTrips >= 2 * tile &&
      c.columnTrips % columnTile(c.columnTrips, tile, 2 * c.lanes) == 0)
    tiles = {tile, 0};
  std::vector<RegisterBlock> out;
  for (int64_t t : tiles)
    for (int64_t w : widths) {
      if (w > c.columnTrips) continue;
      for (int64_t r : rows) {
        r = c.row.empty() ? 1 : std::min(r, c.rowTrips);
        RegisterBlock b{r, w, t};
        bool seen = std::any_of(out.begin(), out.end(), [&](const RegisterBlock& o) {
          return o.rows == b.rows && o.width == b.width && o.tile == b.tile;
        });
        if (!seen) out.push_back(b);
      }
    }
  // Row blocks that leave a large remainder go last: the remainder rows run
  // in a nest of their own (32 rows in blocks of 10 leave 2, in blocks of 8
  // none). Remainders under 5% do not count (1024 rows in blocks of 10).
  // A short last column block costs little: it runs as masked vectors in
  // registers (lowering/single_iteration_loops).
  auto waste = [](int64_t trips, int64_t block) {
    double w = block > 0 && trips > 0 ? static_cast<double>(trips % block) / static_cast<double>(trips) : 0;
    return w < 0.05 ? 0 : w;
  };
  std::stable_sort(out.begin(), out.end(), [&](const RegisterBlock& a, const RegisterBlock& b) {
    return waste(c.rowTrips, a.rows) < waste(c.rowTrips, b.rows);
  });
  // Whole rows, when a few of them fit in the first-level cache.
  if (!c.row.empty() && c.columnTrips <= 32 * c.lanes) out.push_back({2, 0, 0});
  return out;
}


bool applyRegisterBlock(AutoState& state, const Contraction& c, const RegisterBlock& block) {
  AutoState::Saved before = state.save();
  auto fail = [&] {
    state.restore(before);
    return false;
  };
  std::vector<std::string> outside = c.batch;  // the loops outside the row loop, outermost first
  std::string sumBlocks;
  int64_t tile = block.tile > 0 ? columnTile(c.columnTrips, block.tile, 2 * c.lanes) : 0;
  if (block.tile > 0) {
    if (!state.tryStep({"split", {c.column}, {tile}})) return fail();
    outside.push_back(state.made().at(0));
    if (!state.tryStep({"split", {c.sums[0]}, {block.tile}})) return fail();
    sumBlocks = state.made().at(0);
  }
  std::vector<std::string> order = outside;
  if (!sumBlocks.empty()) order.push_back(sumBlocks);
  if (!c.row.empty()) order.push_back(c.row);
  if (block.width == 0) {
    order.insert(order.end(), c.sums.begin(), c.sums.end());
    order.push_back(c.column);
  } else {
    order.push_back(c.column);
    order.insert(order.end(), c.sums.begin(), c.sums.end());
  }
  if (!state.tryStep({"reorder", order})) return fail();
  int64_t columns = block.tile > 0 ? tile : c.columnTrips;
  std::string columnBlocks;
  if (block.width > 0 && block.width < columns) {
    if (!state.tryStep({"split", {c.column}, {block.width}})) return fail();
    if (columns % block.width != 0) columnBlocks = state.made().at(0);
  }
  if (!state.tryStep({"vectorize", {c.column}})) return fail();
  // The outermost loop with work for every thread runs on threads (a
  // sum's blocks never do: their updates would race).
  int64_t threads = state.target.threads > 0 ? state.target.threads : std::thread::hardware_concurrency();
  if (!c.row.empty()) outside.push_back(c.row);
  for (auto& id : outside) {
    int64_t n = constantTrips(*loopWithId(state.body, id));
    if (n >= 0 && n < threads) continue;
    if (state.tryStep({"parallelize", {id}})) break;
  }
  // Sums kept in registers across the sum loops add up only the part that
  // changes with them (refused, and not taken, where every factor does).
  if (block.width > 0) state.tryStep({"factor_sum", {c.sums.front()}});
  if (block.rows > 1) {
    // Factors the rows share are multiplied once for all of them (refused,
    // and not taken, where there are none).
    state.tryStep({"hoist_product", {c.row}});
    if (!state.tryStep({"unroll_and_jam", {c.row}, {block.rows}})) return fail();
  }
  // Whole column blocks apart from the last, short one: their vectors need no masks.
  if (!columnBlocks.empty() && !state.tryStep({"separate_tail", {columnBlocks}})) return fail();
  if (block.tile > 0 && !state.tryStep({"cache", {sumBlocks}, {}, c.packed})) return fail();
  return true;
}

}  // namespace teml::autoschedule
