#include "lowering/checks_by_range.hpp"

#include <map>
#include <optional>

#include "ir/functor.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

// Bounds of an integer expression as expressions in the ranged tensors'
// smallest and largest elements, the loops' bounds and constants.
struct Bounds {
  ExprP lo, hi;
};

// Bounds of an integer expression (nullopt: not known from the ranges):
// through widening casts, loads of ranged tensors, iterators (their loops'
// bounds), selects and + - * // % min max with constants where needed.
class RangeBounds : public ExprFunctor<std::optional<Bounds>(std::set<std::string>&)> {
 public:
  using Result = std::optional<Bounds>;
  RangeBounds(const std::set<std::string>& rangeable, const std::map<std::string, std::string>& loName,
              const std::map<std::string, std::string>& hiName, const std::vector<const For*>& loops)
      : rangeable_(rangeable), loName_(loName), hiName_(hiName), loops_(loops) {}

  Result operator()(const ExprP& e, std::set<std::string>& used) {
    if (!e->isInt() || e->dtype == DType::Bool) return std::nullopt;
    int64_t c;
    if (constValue(e, &c)) return Bounds{intConst(c), intConst(c)};
    return dispatch(e, used);
  }

 protected:
  Result visitIntConst(const IntConst&, std::set<std::string>&) override { return std::nullopt; }
  Result visitFloatConst(const FloatConst&, std::set<std::string>&) override { return std::nullopt; }
  Result visitUnary(const Unary&, std::set<std::string>&) override { return std::nullopt; }
  Result visitCast(const Cast& k, std::set<std::string>& used) override {
    // Widening only: a narrowing cast could wrap.
    if (!k.a->isInt() || k.a->dtype == DType::Bool || (k.dtype == DType::I32 && k.a->dtype == DType::I64))
      return std::nullopt;
    return (*this)(k.a, used);
  }
  Result visitLoad(const Load& l, std::set<std::string>& used) override {
    if (!rangeable_.count(l.tensor)) return std::nullopt;
    used.insert(l.tensor);
    return Bounds{cast(DType::I64, load(loName_.at(l.tensor), {}, l.dtype)),
                  cast(DType::I64, load(hiName_.at(l.tensor), {}, l.dtype))};
  }
  Result visitVar(const Var& v, std::set<std::string>& used) override {
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it) {
      const For& f = **it;
      if (f.var != v.name) continue;
      if (f.step == 0) return std::nullopt;
      // Every value the iterator takes lies in [begin, end - 1] (step > 0) or [end + 1, begin].
      auto first = (*this)(f.begin, used), last = (*this)(f.end, used);
      if (!first || !last) return std::nullopt;
      if (f.step > 0) return Bounds{first->lo, sub(last->hi, intConst(1))};
      return Bounds{add(last->lo, intConst(1)), first->hi};
    }
    return std::nullopt;
  }
  Result visitSelect(const Select& s, std::set<std::string>& used) override {
    auto x = (*this)(s.a, used), y = (*this)(s.b, used);
    if (!x || !y) return std::nullopt;
    return Bounds{min(x->lo, y->lo), max(x->hi, y->hi)};
  }
  Result visitBinary(const Binary& b, std::set<std::string>& used) override {
    auto x = (*this)(b.a, used), y = (*this)(b.b, used);
    if (!x || !y) return std::nullopt;
    int64_t k;
    switch (b.op) {
      case BinOp::Add: return Bounds{add(x->lo, y->lo), add(x->hi, y->hi)};
      case BinOp::Sub: return Bounds{sub(x->lo, y->hi), sub(x->hi, y->lo)};
      case BinOp::Min: return Bounds{min(x->lo, y->lo), min(x->hi, y->hi)};
      case BinOp::Max: return Bounds{max(x->lo, y->lo), max(x->hi, y->hi)};
      case BinOp::Mul:
        if (constValue(b.b, &k)) return k >= 0 ? Bounds{mul(x->lo, b.b), mul(x->hi, b.b)} : Bounds{mul(x->hi, b.b), mul(x->lo, b.b)};
        if (constValue(b.a, &k)) return k >= 0 ? Bounds{mul(b.a, y->lo), mul(b.a, y->hi)} : Bounds{mul(b.a, y->hi), mul(b.a, y->lo)};
        return std::nullopt;
      case BinOp::FloorDiv:
        if (!constValue(b.b, &k) || k <= 0) return std::nullopt;
        return Bounds{floorDiv(x->lo, b.b), floorDiv(x->hi, b.b)};
      case BinOp::Mod:
        if (!constValue(b.b, &k) || k <= 0) return std::nullopt;
        return Bounds{intConst(0), intConst(k - 1)};
      default: return std::nullopt;
    }
  }

 private:
  const std::set<std::string>& rangeable_;
  const std::map<std::string, std::string>& loName_;
  const std::map<std::string, std::string>& hiName_;
  const std::vector<const For*>& loops_;
};

// The nest without the checks that the ranges prove, and what proves them.
class StripProvenChecks : public Mutator {
 public:
  StripProvenChecks(const std::set<std::string>& rangeable, const std::map<std::string, std::string>& loName,
                    const std::map<std::string, std::string>& hiName)
      : rangeable_(rangeable), loName_(loName), hiName_(hiName) {}

  std::vector<ExprP> guards;
  std::set<std::string> ranged;  // tensors whose ranges the guards read

 protected:
  StmtP mutateFor(const StmtP& s) override {
    loops_.push_back(&s->as<For>());
    StmtP out = Mutator::mutateFor(s);
    loops_.pop_back();
    return out;
  }

  StmtP mutateAssert(const StmtP& s) override {
    auto& a = s->as<Assert>();
    std::set<std::string> used;
    if (auto guard = surely(a.cond, used)) {
      guards.push_back(guard);
      ranged.insert(used.begin(), used.end());
      return mutate(a.body);
    }
    return Mutator::mutateAssert(s);
  }

 private:
  // A condition on the ranges under which `cond` holds wherever it is evaluated.
  ExprP surely(const ExprP& cond, std::set<std::string>& used) {
    if (cond->kind != ExprKind::Binary) return nullptr;
    auto& b = cond->as<Binary>();
    if (b.op == BinOp::And || b.op == BinOp::Or) {
      std::set<std::string> usedA, usedB;
      ExprP x = surely(b.a, usedA), y = surely(b.b, usedB);
      if (b.op == BinOp::And && !(x && y)) return nullptr;
      if (b.op == BinOp::Or && !(x && y)) {  // one side that always holds is enough
        if (!x && !y) return nullptr;
        used.insert((x ? usedA : usedB).begin(), (x ? usedA : usedB).end());
        return x ? x : y;
      }
      used.insert(usedA.begin(), usedA.end());
      used.insert(usedB.begin(), usedB.end());
      return binary(b.op, x, y);
    }
    if (b.op != BinOp::Ge && b.op != BinOp::Gt && b.op != BinOp::Le && b.op != BinOp::Lt) return nullptr;
    // Two sides that both read ranges (ptr[i] <= ptr[i + 1]) compare elements with each other: the
    // ranges prove that only when all elements are equal, so such a check stays.
    std::set<std::string> usedA, usedB;
    auto x = bounds(b.a, usedA), y = bounds(b.b, usedB);
    if (!x || !y || (!usedA.empty() && !usedB.empty())) return nullptr;
    used.insert(usedA.begin(), usedA.end());
    used.insert(usedB.begin(), usedB.end());
    switch (b.op) {
      case BinOp::Ge: return binary(BinOp::Ge, x->lo, y->hi);
      case BinOp::Gt: return binary(BinOp::Gt, x->lo, y->hi);
      case BinOp::Le: return binary(BinOp::Le, x->hi, y->lo);
      default: return binary(BinOp::Lt, x->hi, y->lo);
    }
  }

  std::optional<Bounds> bounds(const ExprP& e, std::set<std::string>& used) {
    return RangeBounds(rangeable_, loName_, hiName_, loops_)(e, used);
  }

  const std::set<std::string>& rangeable_;
  const std::map<std::string, std::string>& loName_;
  const std::map<std::string, std::string>& hiName_;
  std::vector<const For*> loops_;
};

// A fold of this many elements or more, in a nest that runs on threads, is
// split into chunks of kChunk on threads (its min and max combined by
// reduction clauses): a pass over SpMV's 400,000 column numbers took
// 40 us on one thread, streamed from memory.
constexpr int64_t kChunk = 1 << 16;

// lo = hi = t[0, ..., 0], then every element of t folded in with min and max,
// in t's element type.
// The last two dimensions are walked as one (t[e / W][e % W], which the C
// emitter writes as the flat element e): a fold over rows as short as a
// bag's 32 indices would otherwise reduce its vectors to scalars once a
// row (an embedding bag's check took 33 us a call for 1 MiB, 8 us flat).
StmtP rangeOf(const TensorDecl& t, const std::string& lo, const std::string& hi, std::set<std::string>& names,
              bool threads) {
  const size_t rank = t.shape.size();
  const size_t loops = rank >= 2 ? rank - 1 : rank;
  std::vector<ExprP> first(rank, intConst(0)), at;
  std::vector<std::string> vars;
  std::vector<int64_t> trips;
  for (size_t d = 0; d < loops; ++d) {
    std::string v = t.name + ".e" + std::to_string(d);
    while (!names.insert(v).second) v += "_";
    vars.push_back(v);
    at.push_back(var(v));
    trips.push_back(d + 1 == loops && rank >= 2 ? t.shape[d] * t.shape[d + 1] : t.shape[d]);
  }
  if (rank >= 2) {
    ExprP flat = at.back(), width = intConst(t.shape.back());
    at.back() = floorDiv(flat, width);
    at.push_back(binary(BinOp::Mod, flat, width));
  }
  ExprP element = load(t.name, at, t.dtype);  // folded in its own type, which vectorizes (int32 on AVX2)
  std::vector<ExprP> iterators;
  for (auto& v : vars) iterators.push_back(var(v));
  StmtP fold = makeSeq({makeReduce(ReduceOp::Min, lo, {}, element, {}, StmtTag{lo + ".fold", vars, iterators}),
                        makeReduce(ReduceOp::Max, hi, {}, element, {}, StmtTag{hi + ".fold", vars, iterators})});
  if (threads && loops == 1 && trips[0] >= 2 * kChunk) {
    std::string chunk = t.name + ".chunk";
    while (!names.insert(chunk).second) chunk += "_";
    ExprP from = binary(BinOp::Mul, var(chunk), intConst(kChunk));
    ExprP to = binary(BinOp::Min, binary(BinOp::Add, from, intConst(kChunk)), intConst(trips[0]));
    LoopKind onThreads;
    onThreads.scope = ParallelScope::Threads;
    fold = makeFor(chunk, chunk, intConst(0), intConst((trips[0] + kChunk - 1) / kChunk), 1, onThreads,
                   makeFor(vars[0], vars[0], from, to, 1, LoopKind{}, fold));
  } else {
    for (size_t d = loops; d-- > 0;)
      fold = makeFor(vars[d], vars[d], intConst(0), intConst(trips[d]), 1, LoopKind{}, fold);
  }
  ExprP start = load(t.name, first, t.dtype);
  return makeSeq({makeStore(lo, {}, start, {}, StmtTag{lo + ".start", {}, {}}),
                  makeStore(hi, {}, start, {}, StmtTag{hi + ".start", {}, {}}), fold});
}

// Some loop of the nest runs on threads.
bool onThreads(const StmtP& nest) {
  bool threads = false;
  forEachStmt(nest, [&](const StmtP& s) {
    threads = threads || (s->kind == StmtKind::For && s->as<For>().loopKind.threads());
  });
  return threads;
}

}  // namespace

StmtP versionChecksByRange(const StmtP& nest, const std::vector<TensorDecl>& tensors, const std::set<std::string>& rangeable,
                           const std::set<std::string>& namesInUse) {
  std::set<std::string> names = namesInUse;
  std::map<std::string, std::string> loName, hiName;
  std::set<std::string> candidates;
  for (auto& t : tensors) {
    if (!rangeable.count(t.name) || !isIntegral(t.dtype) || t.dtype == DType::Bool || t.elementCount() == 0) continue;
    candidates.insert(t.name);
    for (auto [suffix, table] : {std::make_pair(".lo", &loName), std::make_pair(".hi", &hiName)}) {
      std::string n = t.name + suffix;
      while (!names.insert(n).second) n += "_";
      (*table)[t.name] = n;
    }
  }
  if (candidates.empty()) return nest;
  StripProvenChecks strip(candidates, loName, hiName);
  StmtP fast = strip.mutate(nest);
  if (strip.guards.empty()) return nest;
  ExprP guard = strip.guards.front();
  for (size_t k = 1; k < strip.guards.size(); ++k) guard = binary(BinOp::And, guard, strip.guards[k]);
  std::vector<StmtP> seq;
  for (auto& t : tensors)
    if (strip.ranged.count(t.name))
      seq.push_back(rangeOf(t, loName.at(t.name), hiName.at(t.name), names, onThreads(nest)));
  seq.push_back(withIdentity(makeIf(guard, fast, nest), kChecksByRangeId, {}));
  StmtP out = makeSeq(seq);
  for (auto& t : tensors)
    if (strip.ranged.count(t.name))
      for (auto* n : {&loName.at(t.name), &hiName.at(t.name)}) out = makeVarDef(TensorDecl{*n, t.dtype, {}}, out);
  return out;
}

}  // namespace teml::lowering
