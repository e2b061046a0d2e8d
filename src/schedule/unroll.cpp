#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

constexpr int64_t kMaxUnrolledCopies = 4096;
// Unrolled nests are kept to a size the C compiler handles in reasonable time.
constexpr int64_t kMaxStatements = 100000;

int64_t statementCount(const StmtP& s) {
  int64_t n = 0;
  forEachStmt(s, [&](const StmtP& t) { n += t->kind == StmtKind::Store || t->kind == StmtKind::Reduce; });
  return n;
}


// Copies of `body` for iterator values start, start+step, ... (count copies).
StmtP copies(const StmtP& body, const std::string& v, const ExprP& start, int64_t step, int64_t count) {
  if (statementCount(body) * count > kMaxStatements)
    throw ScheduleError("unrolling would create " + std::to_string(statementCount(body) * count) +
                        " statements; the limit is " + std::to_string(kMaxStatements));
  std::vector<StmtP> out;
  for (int64_t j = 0; j < count; ++j) out.push_back(substitute(body, {{v, add(start, intConst(j * step))}}));
  return makeSeq(out);
}

// Recognizes end == min(begin + c, limit): a loop of c iterations except when
// it is cut short by `limit` (the inner loop of a strip-mined loop).
bool boundedBlock(const For& f, int64_t* c, ExprP* limit) {
  if (f.end->kind != ExprKind::Binary) return false;
  auto& m = f.end->as<Binary>();
  if (m.op != BinOp::Min) return false;
  ExprP diff = sub(m.a, f.begin);
  if (!constValue(diff, c)) return false;
  *limit = m.b;
  return true;
}

// Iterations of a loop whose end - begin is `extent` (a loop with a
// negative step counts down from begin to end).
int64_t tripCount(int64_t extent, int64_t step) {
  if (step < 0) return tripCount(-extent, -step);
  return extent <= 0 ? 0 : (extent + step - 1) / step;
}

// The copies of a partially unrolled loop's iterations share the loop that
// owns its local tensors: sound for a local (each element stays within one
// iteration), not for a cache's copy, which every iteration fills anew.
void requireNoCacheCopy(const For& f) {
  for (auto& l : localsOf(f))
    if (l.isCopy)
      throw ScheduleError("unroll: loop '" + f.var + "' owns '" + l.decl.name +
                          "', a cache's copy that every iteration fills anew; unroll before cache(...)");
}

}  // namespace

StmtP unroll(const StmtP& nest, int r) {
  auto chain = loopsToLevel(nest, r, "unroll");
  const For& f = *chain[r - 1];
  int64_t extent;
  ExprP limit;
  StmtP replacement;
  if (constValue(sub(f.end, f.begin), &extent)) {
    int64_t trips = tripCount(extent, f.step);
    if (trips > kMaxUnrolledCopies)
      throw ScheduleError("unroll: loop '" + f.var + "' has " + std::to_string(trips) +
                          " iterations; full unrolling is limited to " + std::to_string(kMaxUnrolledCopies));
    replacement = copies(loopBody(f), f.var, f.begin, f.step, trips);
  } else if (f.step == 1 && boundedBlock(f, &extent, &limit)) {
    if (extent > kMaxUnrolledCopies)
      throw ScheduleError("unroll: loop '" + f.var + "' has up to " + std::to_string(extent) + " iterations");
    // Full blocks are unrolled; the last, partial block keeps its loop.
    if (auto locals = localsOf(f); !locals.empty())
      throw ScheduleError("unroll: loop '" + f.var + "' owns '" + locals[0].decl.name +
                          "', which full blocks would lose; make it local or cache it after unrolling");
    ExprP full = binary(BinOp::Le, add(f.begin, intConst(extent)), limit);
    replacement = makeIf(full, copies(loopBody(f), f.var, f.begin, 1, extent),
                         makeFor(f.id, f.var, f.begin, limit, 1, f.loopKind, loopBody(f), localsOf(f)));
  } else {
    throw ScheduleError("unroll: the number of iterations of loop '" + f.var + "' ([" + toString(f.begin) +
                        ", " + toString(f.end) + ")) is not a constant; use unroll(l, r, factor)");
  }
  if (r == 1) return replacement;
  return replaceLevel(chain, r - 1, withBody(*chain[r - 2], replacement));
}

StmtP unrollPartial(const StmtP& nest, int r, int64_t factor) {
  auto chain = loopsToLevel(nest, r, "unroll");
  const For& f = *chain[r - 1];
  if (factor < 1) throw ScheduleError("unroll: the factor must be positive, not " + std::to_string(factor));
  if (factor > kMaxUnrolledCopies) throw ScheduleError("unroll: the factor is too large");
  if (f.step != 1)
    throw ScheduleError("unroll: loop '" + f.var + "' has step " + std::to_string(f.step) +
                        "; partial unrolling needs a unit-step loop");
  if (factor == 1) return nest;
  requireNoCacheCopy(f);
  ExprP extent = max(sub(f.end, f.begin), intConst(0));
  // Main loop: iterations begin, begin+factor, ... while all `factor` copies fit.
  StmtP main = makeFor(f.id, f.var, f.begin, sub(f.end, intConst(factor - 1)), factor, f.loopKind,
                       copies(loopBody(f), f.var, var(f.var), 1, factor), localsOf(f));
  ExprP remStart = add(f.begin, mul(floorDiv(extent, intConst(factor)), intConst(factor)));
  int64_t n;
  std::vector<StmtP> parts = {main};
  if (!(constValue(extent, &n) && n % factor == 0))
    parts.push_back(makeFor(freshLoopId(nest, f.id + ".rem"), f.var, remStart, f.end, 1, f.loopKind, loopBody(f), localsOf(f)));
  StmtP replacement = makeSeq(parts);
  if (r == 1) return replacement;
  return replaceLevel(chain, r - 1, withBody(*chain[r - 2], replacement));
}

StmtP unrollAndJam(const StmtP& nest, int r, int64_t factor) {
  auto chain = loopsToLevel(nest, r, "unroll_and_jam");
  const For& f = *chain[r - 1];
  if (factor < 1) throw ScheduleError("unroll_and_jam: the factor must be positive, not " + std::to_string(factor));
  if (factor > kMaxUnrolledCopies) throw ScheduleError("unroll_and_jam: the factor is too large");
  if (f.step != 1)
    throw ScheduleError("unroll_and_jam: loop '" + f.var + "' has step " + std::to_string(f.step));
  int depth = perfectDepth(nest);
  if (depth <= r)
    throw ScheduleError("unroll_and_jam: loop '" + f.var + "' at level " + std::to_string(r) +
                        " has no loop nested inside it to jam into");
  auto all = loopsToLevel(nest, depth, "unroll_and_jam");
  for (int l = r + 1; l <= depth; ++l)
    if (usesVar(all[l - 1]->begin, f.var) || usesVar(all[l - 1]->end, f.var))
      throw ScheduleError("unroll_and_jam: the bounds of inner loop '" + all[l - 1]->var +
                          "' depend on '" + f.var + "'; the copies cannot share it");
  if (factor == 1) return nest;
  // The innermost body, repeated for f.var, f.var+1, ..., inside the inner loops.
  StmtP jammed = copies(loopBody(*all[depth - 1]), f.var, var(f.var), 1, factor);
  for (int l = depth; l > r; --l) jammed = withBody(*all[l - 1], jammed);
  ExprP extent = max(sub(f.end, f.begin), intConst(0));
  StmtP main = makeFor(f.id, f.var, f.begin, sub(f.end, intConst(factor - 1)), factor, f.loopKind, jammed, localsOf(f));
  std::vector<StmtP> parts = {main};
  int64_t n;
  if (!(constValue(extent, &n) && n % factor == 0)) {
    ExprP remStart = add(f.begin, mul(floorDiv(extent, intConst(factor)), intConst(factor)));
    parts.push_back(makeFor(freshLoopId(nest, f.id + ".rem"), f.var, remStart, f.end, 1, f.loopKind, loopBody(f), localsOf(f)));
  }
  StmtP replacement = makeSeq(parts);
  if (r == 1) return replacement;
  return replaceLevel(chain, r - 1, withBody(*chain[r - 2], replacement));
}

}  // namespace teml::schedule

namespace teml::schedule {

using namespace ir;

StmtP blend(const StmtP& nest, int r) {
  auto chain = loopsToLevel(nest, r, "blend");
  const For& f = *chain[r - 1];
  int64_t extent;
  if (!constValue(sub(f.end, f.begin), &extent))
    throw ScheduleError("blend: the number of iterations of loop '" + f.var + "' is not a constant");
  int64_t trips = tripCount(extent, f.step);
  if (trips > kMaxUnrolledCopies)
    throw ScheduleError("blend: loop '" + f.var + "' has " + std::to_string(trips) + " iterations");
  // Statement by statement, one copy per iteration: S1(i0) S1(i1) ... S2(i0) ...
  std::vector<StmtP> out;
  for (auto& s : items(loopBody(f))) out.push_back(copies(s, f.var, f.begin, f.step, trips));
  StmtP replacement = makeSeq(out);
  if (r == 1) return replacement;
  return replaceLevel(chain, r - 1, withBody(*chain[r - 2], replacement));
}

}  // namespace teml::schedule
