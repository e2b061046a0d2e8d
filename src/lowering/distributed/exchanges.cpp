#include "lowering/distributed/exchanges.hpp"

#include <isl/ctx.h>

#include <algorithm>
#include <utility>

#include "analysis/element_sets.hpp"
#include "analysis/isl_model.hpp"
#include "diag/diagnostics.hpp"
#include "ir/fresh_name.hpp"
#include "ir/mutator.hpp"
#include "ir/unique_statement_ids.hpp"
#include "ir/visitor.hpp"
#include "lowering/distributed/hoist_inspectors.hpp"
#include "lowering/distributed/inspector.hpp"

namespace teml::lowering {

using namespace ir;
using analysis::ElementSet;
using analysis::StepAccesses;

namespace {

const For* distributedStep(const StmtP& step) {
  if (step->kind == StmtKind::For && step->as<For>().loopKind.distributed) return &step->as<For>();
  const For* inner = nullptr;
  forEachStmt(step, [&](const StmtP& s) {
    if (s != step && s->kind == StmtKind::For && s->as<For>().loopKind.distributed) inner = &s->as<For>();
  });
  if (inner)
    throw UserError(inner->made.loc, "distribute: loop '" + inner->var +
                                         "' runs inside another statement; the ranks split loops at the top level of "
                                         "the program, or of the body of a loop around them");
  return nullptr;
}

// The distributed loop inside a distributed step (a grid of ranks), and
// how many loops deep in the step it is.
class InnerDistributed : public Visitor {
 public:
  const For* loop = nullptr;
  size_t level = 0;

 protected:
  void visitFor(const For& f) override {
    if (depth_ > 0 && f.loopKind.distributed && !loop) loop = &f, level = depth_;
    ++depth_;
    Visitor::visitFor(f);
    --depth_;
  }

 private:
  size_t depth_ = 0;
};

// Whether a distributed loop inside `step` makes it a grid's step.
bool holdsGrid(const StmtP& step) {
  InnerDistributed inner;
  inner.visit(step);
  return inner.loop != nullptr;
}

int64_t constant(const ExprP& e, const For& f) {
  if (e->kind != ExprKind::IntConst)
    throw UserError(f.made.loc, "distribute: loop '" + f.var + "' has bounds that are not constants");
  return e->as<IntConst>().value;
}

// Whether a loop inside `s` (not `s` itself) is distributed.
bool holdsDistributed(const StmtP& s) {
  bool found = false;
  forEachStmt(s, [&](const StmtP& x) {
    found |= x != s && x->kind == StmtKind::For && x->as<For>().loopKind.distributed;
  });
  return found;
}

// Whether expressions use `t` only through its parity: inside `% 2` of sums
// and products (`t % 2`, `(t + 1) % 2`); `underParity` when they are inside one.
class ParityOnly : public Visitor {
 public:
  ParityOnly(std::string t, bool underParity) : t_(std::move(t)), under_(underParity) {}
  bool ok = true;

 protected:
  void visitVar(const Var& v) override { ok = ok && (v.name != t_ || under_); }
  void visitBinary(const Binary& b) override {
    int64_t two;
    bool parity = b.op == BinOp::Mod && constValue(b.b, &two) && two == 2;
    bool ring = b.op == BinOp::Add || b.op == BinOp::Sub || b.op == BinOp::Mul;
    within(parity || (under_ && ring), [&] { Visitor::visitBinary(b); });
  }
  void visitLoad(const Load& l) override { within(false, [&] { Visitor::visitLoad(l); }); }
  void visitUnary(const Unary& u) override { within(false, [&] { Visitor::visitUnary(u); }); }
  void visitSelect(const Select& c) override { within(false, [&] { Visitor::visitSelect(c); }); }

 private:
  template <class F>
  void within(bool under, F body) {
    bool outer = under_;
    under_ = under;
    body();
    under_ = outer;
  }
  std::string t_;
  bool under_;
};

bool parityOnly(const ExprP& e, const std::string& t, bool underParity) {
  ParityOnly check(t, underParity);
  check.visit(e);
  return check.ok;
}

// A time loop whose body chooses elements by the parity of its iterator
// only (two buffers taking turns: `w[t % 2]` read, `w[(t + 1) % 2]`
// written), in subscripts, loop bounds and conditions; values may use it
// freely. Its iterations then run in pairs, in each of which the body
// touches the same elements: the loop over pairs is planned as a time loop
// of two steps, and an odd last iteration after it.
bool choosesByParity(const For& f) {
  bool ok = true, uses = false;
  auto subscript = [&](const ExprP& e) {
    uses = uses || usesVar(e, f.var);
    ok = ok && parityOnly(e, f.var, false);
  };
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::Store)
      for (auto& i : s->as<Store>().indices) subscript(i);
    if (s->kind == StmtKind::Reduce)
      for (auto& i : s->as<Reduce>().indices) subscript(i);
    if (s->kind == StmtKind::For) subscript(s->as<For>().begin), subscript(s->as<For>().end);
    if (s->kind == StmtKind::If) subscript(s->as<If>().cond);
  });
  forEachExprIn(f.body, [&](const ExprP& e) {
    if (e->kind == ExprKind::Load)
      for (auto& i : e->as<Load>().indices) subscript(i);
  });
  return ok && uses;
}

// `(2 p + 1) % 2` as 1: a parity the loop over pairs fixes (inPairs), so that
// the code computes no remainder per access. `e % 2` is folded where e, a
// sum of products of `p` and constants, has one parity at p = 0 and p = 1.
class FixedParities : public Mutator {
 public:
  explicit FixedParities(std::string p) : p_(std::move(p)) {}

 protected:
  ExprP mutateBinary(const ExprP& e) override {
    auto& b = e->as<Binary>();
    int64_t two, at0, at1;
    if (b.op == BinOp::Mod && constValue(b.b, &two) && two == 2 && parityOnly(b.a, p_, true) &&
        constValue(substitute(e, {{p_, intConst(0)}}), &at0) && constValue(substitute(e, {{p_, intConst(1)}}), &at1) &&
        at0 == at1)
      return intConst(at0, e->dtype);
    return Mutator::mutateBinary(e);
  }

 private:
  std::string p_;
};

// A step outside the distributed loops that writes at most this many
// elements runs in one rank (ownerOf).
constexpr int64_t kOwnedElements = 4096;

// Plans of a time loop's body before what the ranks hold settles (each
// round can only shrink it; a halo settles in the second).
constexpr int kPlanningRounds = 8;

// The rows [first, last) of a tensor's `rows` that `rank` owns in a
// reduction to owners: blocks as a distributed loop over them splits its
// iterations, so that such a loop after the reduction reads only its own.
std::pair<int64_t, int64_t> rowsOwnedBy(int64_t rows, int ranks, int rank) {
  return {rows * rank / ranks, rows * (rank + 1) / ranks};
}

// The first and last iteration of a distributed loop's block in the rank
// running the code (kRankVariable): block `rank / stride % parts` of `parts`.
std::pair<ExprP, ExprP> rankBlock(const For& f, int parts, int stride, int ranks) {
  ExprP n = sub(f.end, f.begin), p = intConst(parts);
  ExprP block = var(kRankVariable);
  if (stride > 1) block = floorDiv(block, intConst(stride));
  if (stride * parts < ranks) block = binary(BinOp::Mod, block, p);
  return {add(f.begin, floorDiv(mul(n, block), p)), add(f.begin, floorDiv(mul(n, add(block, intConst(1))), p))};
}

// Whether `e` is `v + c` (also `v`, `v - c`, `c + v`, through casts).
bool offsetFrom(const ExprP& e, const std::string& v, int64_t* c) {
  if (e->kind == ExprKind::Cast) return offsetFrom(e->as<Cast>().a, v, c);
  if (e->kind == ExprKind::Var) return *c = 0, e->as<Var>().name == v;
  if (e->kind != ExprKind::Binary) return false;
  auto& b = e->as<Binary>();
  int64_t k;
  if (b.op == BinOp::Add && constValue(b.b, &k)) return offsetFrom(b.a, v, c) && (*c += k, true);
  if (b.op == BinOp::Add && constValue(b.a, &k)) return offsetFrom(b.b, v, c) && (*c += k, true);
  if (b.op == BinOp::Sub && constValue(b.b, &k)) return offsetFrom(b.a, v, c) && (*c -= k, true);
  return false;
}

// How far the loads of `tensor` in f's body reach along f's iterator:
// each load's one subscript that uses it is `i + c` (c a constant); false
// where one is not, or where the body writes the tensor.
bool reachOf(const For& f, const std::string& tensor, int64_t* below, int64_t* above) {
  bool ok = true;
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::Store) ok = ok && s->as<Store>().tensor != tensor;
    if (s->kind == StmtKind::Reduce) ok = ok && s->as<Reduce>().tensor != tensor;
  });
  forEachExprIn(f.body, [&](const ExprP& e) {
    if (e->kind != ExprKind::Load || e->as<Load>().tensor != tensor) return;
    int using_ = 0;
    for (auto& i : e->as<Load>().indices) {
      if (!usesVar(i, f.var)) continue;
      ++using_;
      int64_t c = 0;
      if (!offsetFrom(i, f.var, &c)) {
        ok = false;
        continue;
      }
      *below = std::max(*below, -c), *above = std::max(*above, c);
    }
    ok = ok && using_ <= 1;
  });
  return ok;
}

BoxTransfer boxOf(int from, int to, std::vector<int64_t> lo, std::vector<int64_t> hi) {
  BoxTransfer b;
  b.from = from;
  b.to = to;
  b.lo = std::move(lo);
  b.hi = std::move(hi);
  return b;
}

// Boxes covering `part` whose every element `holder` has up to date.
std::vector<BoxTransfer> boxesWithin(const ElementSet& part, const ElementSet& holder, int from, int to) {
  std::vector<BoxTransfer> out;
  if (auto boxes = part.boxes()) {
    for (auto& [lo, hi] : *boxes) out.push_back(boxOf(from, to, lo, hi));
    return out;
  }
  std::vector<int64_t> lo, hi;
  part.hull(lo, hi);
  if (!ElementSet::box(part.get() ? isl_set_get_ctx(part.get()) : nullptr, lo, hi).subsetOf(holder))
    throw analysis::CannotDistribute("the elements to move form no box that one rank holds");
  out.push_back(boxOf(from, to, lo, hi));
  return out;
}

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<ElementSet> valid;    // per rank: elements whose current value it holds
  std::vector<ElementSet> touched;  // per rank: what it reads, writes or combines (the first pass)
};

class Planner {
  // Per tensor, the elements each rank holds up to date.
  using Holdings = std::map<std::string, std::vector<ElementSet>>;

 public:
  Planner(const Program& p, int ranks, int gridRows)
      : p_(p), ranks_(ranks), grid_(rankGrid(ranks, gridRows)), ctx_(analysis::isl_model::boundedContext()) {}

  Program run() {
    Program out = p_;
    out.distribution.ranks = ranks_;
    out.distribution.grid = grid_;
    // First pass: what every rank touches, so that it keeps that part.
    for (auto& t : p_.tensors) {
      Tensor& x = tensors_[t.name];
      x.shape = t.shape;
      x.touched.assign(ranks_, ElementSet::none(ctx_.get(), t.shape));
    }
    for (auto& nest : p_.nests) walk(nest, nullptr);
    for (auto& t : p_.tensors) {
      Tensor& x = tensors_[t.name];
      auto& kept = out.distribution.kept[t.name];
      ElementSet covered = ElementSet::none(ctx_.get(), t.shape);
      for (int r = 0; r < ranks_; ++r) {
        isl_ctx_reset_operations(ctx_.get());
        covered = covered | x.touched[r];
      }
      // Elements no rank touches keep their first values: rank 0 writes them out.
      ElementSet rest = ElementSet::whole(ctx_.get(), t.shape) - covered;
      x.touched[0] = x.touched[0] | hullOf(rest, t.shape);
      for (int r = 0; r < ranks_; ++r) {
        BoxTransfer b = boxOf(r, r, std::vector<int64_t>(t.shape.size(), 0), std::vector<int64_t>(t.shape.size(), 0));
        x.touched[r].hull(b.lo, b.hi);
        kept.push_back(b);
        x.valid.push_back(ElementSet::box(ctx_.get(), b.lo, b.hi));
      }
    }
    // Second pass: the exchanges, with what each rank holds before each step.
    for (auto& nest : out.nests) {
      nest = walk(nest, &out);
      if (peeled_) nest = uniqueStatementIds(nest);
    }
    for (auto& t : p_.tensors) {
      if (!written_.count(t.name)) continue;
      Tensor& x = tensors_[t.name];
      auto& results = out.distribution.results[t.name];
      ElementSet before = ElementSet::none(ctx_.get(), t.shape);
      for (int r = 0; r < ranks_; ++r) {
        isl_ctx_reset_operations(ctx_.get());
        results.push_back(boxesWithin(x.valid[r] - before, x.valid[r], r, r));
        before = before | x.valid[r];
      }
      if (!(ElementSet::whole(ctx_.get(), t.shape) - before).empty())
        throw InternalError("distribute: elements of '" + t.name + "' no rank holds at the end");
    }
    return out;
  }

 private:
  ElementSet hullOf(const ElementSet& s, const std::vector<int64_t>& shape) {
    std::vector<int64_t> lo, hi;
    if (!s.hull(lo, hi)) return ElementSet::none(ctx_.get(), shape);
    return ElementSet::box(ctx_.get(), lo, hi);
  }

  // With `out` null, records what ranks touch; else returns the nest with
  // its exchanges. Sequences and the tensors a program defines around its
  // steps are walked through; anything else is a step.
  StmtP walk(const StmtP& s, Program* out) {
    if (s->kind == StmtKind::Seq) {
      std::vector<StmtP> steps;
      for (auto& item : s->as<Seq>().stmts) {
        if (item->kind == StmtKind::Seq || (item->kind == StmtKind::VarDef && !item->as<VarDef>().loopLocal)) {
          steps.push_back(walk(item, out));
          continue;
        }
        step(item, out, steps);
      }
      return out ? makeSeq(std::move(steps)) : s;
    }
    if (s->kind == StmtKind::VarDef && !s->as<VarDef>().loopLocal) {
      auto& d = s->as<VarDef>();
      Tensor& x = tensors_[d.decl.name];
      x.shape = d.decl.shape;
      x.valid.assign(ranks_, ElementSet::whole(ctx_.get(), x.shape));  // fresh, all zeros, in every rank
      x.touched.assign(ranks_, ElementSet::whole(ctx_.get(), x.shape));
      StmtP body = walk(d.body, out);
      tensors_.erase(d.decl.name);
      return out ? std::make_shared<VarDef>(d.decl, body, d.loopLocal, d.id, d.made) : s;
    }
    std::vector<StmtP> steps;
    step(s, out, steps);
    return out ? makeSeq(std::move(steps)) : s;
  }

  void step(const StmtP& s, Program* out, std::vector<StmtP>& steps) {
    if (s->kind == StmtKind::For && !s->as<For>().loopKind.distributed && holdsDistributed(s)) {
      if (choosesByParity(s->as<For>())) return inPairs(s->as<For>(), out, steps);
      return timeLoop(s->as<For>(), out, steps);
    }
    const For* loop = distributedStep(s);
    try {
      plan(s, loop, out, steps);
    } catch (const analysis::CannotDistribute& e) {
      // At the `distribute` call that asked for the loop, where the schedule says.
      auto asked = loop ? p_.distribution.askedAt.find(loop->id) : p_.distribution.askedAt.end();
      SourceLoc loc = asked != p_.distribution.askedAt.end() ? asked->second : loop ? loop->made.loc : s->made.loc;
      throw UserError(loc, e.what() + std::string(loop ? " (loop '" + loop->var + "')" : ""));
    }
  }

  // A serial loop whose body holds distributed steps (a time loop around a
  // stencil): its body is planned as steps, from what every rank holds at
  // the start of every iteration, and the exchanges run inside the loop.
  // Where the body leaves every rank holding at least what it held before
  // the loop, that is what it held before. Otherwise (a row that one step
  // before the loop left on one rank and the body leaves on another) the
  // first iteration is planned on its own from what ranks held before, and
  // the others from what it left, intersected with what the body leaves,
  // until that no longer shrinks.
  void timeLoop(const For& f, Program* out, std::vector<StmtP>& steps) {
    int64_t first = constant(f.begin, f), last = constant(f.end, f);
    if (!out) {
      walk(f.body, nullptr);  // what ranks touch is the same in every iteration
      return;
    }
    if (f.step != 1) throw UserError(f.made.loc, "distribute: loop '" + f.var + "' steps by more than 1");
    const Holdings before = holdings();
    if (last - first <= 1 || same(meet(before, leftBy(f.body, before, *out)), before)) {
      hold(before);
      StmtP body = walk(f.body, out);
      if (last <= first) hold(meet(before, holdings()));  // it runs no iteration
      steps.push_back(hoistInspectors(std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, f.loopKind, body, f.made)));
      return;
    }
    hold(before);
    StmtP once = walk(f.body, out);
    peeled_ = true;
    steps.push_back(std::make_shared<For>(f.id, f.var, f.begin, intConst(first + 1), f.step, f.loopKind, once, f.made));
    const Holdings afterFirst = holdings();
    Holdings entry = afterFirst;
    for (int round = 0;; ++round) {
      if (round == kPlanningRounds)
        throw UserError(f.made.loc, "distribute: what the ranks hold at the start of the loop '" + f.var +
                                        "' does not settle after " + std::to_string(kPlanningRounds) + " plans");
      Holdings next = meet(afterFirst, leftBy(f.body, entry, *out));
      if (same(next, entry)) break;
      entry = next;
    }
    hold(entry);
    StmtP rest = walk(f.body, out);
    steps.push_back(
        hoistInspectors(std::make_shared<For>(f.id, f.var, intConst(first + 1), f.end, f.step, f.loopKind, rest, f.made)));
  }

  // `for t in range(a, b)` as `for t_pair in range((b - a) // 2)` around the
  // body at t = a + 2 t_pair and at the t after it, then the body at b - 1
  // where b - a is odd (choosesByParity).
  void inPairs(const For& f, Program* out, std::vector<StmtP>& steps) {
    int64_t first = constant(f.begin, f), last = constant(f.end, f);
    if (f.step != 1) throw UserError(f.made.loc, "distribute: loop '" + f.var + "' steps by more than 1");
    std::set<std::string> taken{f.var};
    forEachStmt(f.body, [&](const StmtP& x) {
      if (x->kind == StmtKind::For) taken.insert(x->as<For>().var);
    });
    std::string pair = freshName(f.var + "_pair", taken);
    ExprP even = add(intConst(first), mul(intConst(2), var(pair)));
    FixedParities fixed(pair);
    StmtP body = makeSeq({fixed.mutate(substitute(f.body, {{f.var, even}})),
                          fixed.mutate(substitute(f.body, {{f.var, add(even, intConst(1))}}))});
    int64_t pairs = std::max<int64_t>(0, last - first) / 2;
    peeled_ = true;  // the body twice: its ids repeat
    auto loop = std::make_shared<For>(f.id, pair, intConst(0), intConst(pairs), 1, f.loopKind, body, f.made);
    timeLoop(*loop, out, steps);
    if (last - first > 0 && (last - first) % 2) {
      StmtP odd = walk(substitute(f.body, {{f.var, intConst(last - 1)}}), out);
      if (out) steps.push_back(odd);
    }
  }

  // What ranks hold after `body` runs from `start` (planned on a copy of
  // the program, whose exchanges and loops are dropped).
  Holdings leftBy(const StmtP& body, const Holdings& start, const Program& out) {
    hold(start);
    Program scratch = out;
    int count = count_;
    walk(body, &scratch);
    count_ = count;
    return holdings();
  }

  Holdings holdings() const {
    Holdings h;
    for (auto& [name, x] : tensors_) h[name] = x.valid;
    return h;
  }
  void hold(const Holdings& h) {
    for (auto& [name, valid] : h) tensors_.at(name).valid = valid;
  }
  Holdings meet(const Holdings& a, const Holdings& b) {
    Holdings out = a;
    for (auto& [name, valid] : out)
      for (size_t r = 0; r < valid.size(); ++r) {
        isl_ctx_reset_operations(ctx_.get());
        valid[r] = valid[r] & b.at(name)[r];
      }
    return out;
  }
  bool same(const Holdings& a, const Holdings& b) {
    for (auto& [name, valid] : a)
      for (size_t r = 0; r < valid.size(); ++r) {
        isl_ctx_reset_operations(ctx_.get());
        if (!valid[r].subsetOf(b.at(name)[r]) || !b.at(name)[r].subsetOf(valid[r])) return false;
      }
    return true;
  }

  void plan(const StmtP& step, const For* loop, Program* out, std::vector<StmtP>& steps) {
    std::map<std::string, std::vector<int64_t>> shapes;
    for (auto& [name, x] : tensors_) shapes[name] = x.shape;
    std::vector<StepAccesses> acc;
    if (loop) {
      // One distributed loop: its blocks over all ranks. Two (the outer one
      // and one inside): blocks of the grid's rows and of its columns.
      InnerDistributed inner;
      inner.visit(step);
      std::vector<std::pair<const For*, size_t>> split = {{loop, 0}};
      if (inner.loop) split.push_back({inner.loop, inner.level});
      std::vector<DistributedLoop> ds;
      for (size_t k = 0; k < split.size(); ++k) {
        const For& f = *split[k].first;
        int64_t b = constant(f.begin, f), e = constant(f.end, f);
        if (f.step != 1) throw UserError(f.made.loc, "distribute: loop '" + f.var + "' steps by more than 1");
        DistributedLoop d{f.var, b, std::max(b, e)};
        d.parts = !inner.loop ? ranks_ : k == 0 ? grid_.rows : grid_.cols;
        d.stride = inner.loop && k == 0 ? grid_.cols : 1;
        ds.push_back(d);
        if (!out) continue;
        auto& loops = out->distribution.loops;
        bool listed = false;  // a time loop's first iteration and the others run copies of one loop
        for (auto& l : loops) listed |= l.var == d.var && l.begin == d.begin && l.end == d.end;
        if (!listed) loops.push_back(d);
      }
      for (int r = 0; r < ranks_; ++r) {
        std::vector<analysis::LoopBlock> blocks;
        for (size_t k = 0; k < ds.size(); ++k) blocks.push_back({split[k].second, ds[k].first(r), ds[k].last(r)});
        acc.push_back(analysis::stepAccesses(ctx_.get(), step, shapes, blocks));
      }
    } else {
      acc.assign(ranks_, analysis::stepAccesses(ctx_.get(), step, shapes));
    }
    // A small step outside the distributed loops (a boundary, `v[0] = u[0]`)
    // runs in the one rank that holds what it writes, not in every rank:
    // the others need not keep those elements, nor what it reads.
    const int owner = loop ? -1 : ownerOf(step, acc[0]);
    for (int r = 0; r < ranks_ && owner >= 0; ++r)
      if (r != owner) acc[r] = nothing(shapes);
    const bool split = loop || owner >= 0;  // ranks run different instances
    std::vector<StmtP> before, after;
    std::map<std::string, std::vector<ElementSet>> heldBefore;  // what ranks held of each tensor a halo brings
    for (auto& [name, x] : tensors_) {
      const auto& ops = acc[0].reduceOps.count(name) ? acc[0].reduceOps.at(name) : std::set<ReduceOp>{};
      bool stored = false, reduced = false;
      for (auto& a : acc) stored |= a.stored.count(name) > 0, reduced |= a.reduceOps.count(name) > 0;
      bool overlap = false;
      if (loop) {
        ElementSet before = ElementSet::none(ctx_.get(), x.shape);
        for (int r = 0; r < ranks_ && !overlap; ++r) {
          isl_ctx_reset_operations(ctx_.get());
          overlap = !(acc[r].written.at(name) & before).empty();
          before = before | acc[r].written.at(name);
        }
      }
      if (overlap && stored)
        throw analysis::CannotDistribute("two ranks would store the same elements of '" + name + "'");
      std::vector<ElementSet> needs;
      std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> boxes;  // combined across the ranks
      ElementSet combinedElements = ElementSet::none(ctx_.get(), x.shape);
      bool combined = overlap && reduced;
      std::vector<ElementSet> owned;  // with a reduction to owners: the rows of its box each rank owns
      if (combined) {
        if (ops.size() != 1)
          throw analysis::CannotDistribute("'" + name + "' is reduced with two operators across the ranks");
        owned = ownedParts(name, x, acc);
      }
      if (!owned.empty()) {
        // Owner-computes: each rank starts the rows it does not own at the
        // identity and holds its own as they stand.
        for (int r = 0; r < ranks_; ++r) {
          isl_ctx_reset_operations(ctx_.get());
          combinedElements = combinedElements | owned[r];
        }
        std::vector<int64_t> lo, hi;
        combinedElements.hull(lo, hi);
        boxes = {{lo, hi}};
        for (int r = 0; r < ranks_; ++r) {
          isl_ctx_reset_operations(ctx_.get());
          x.touched[r] = x.touched[r] | acc[r].written.at(name) | combinedElements;
          needs.push_back(owned[r]);
        }
      } else if (combined) {
        boxes = sharedBoxes(name, x, acc);
        for (auto& [lo, hi] : boxes) combinedElements = combinedElements | ElementSet::box(ctx_.get(), lo, hi);
        // Ranks other than 0 start the combined boxes at the identity; each
        // rank reduces into the rest of what it writes as it stands.
        for (int r = 0; r < ranks_; ++r) {
          isl_ctx_reset_operations(ctx_.get());
          const ElementSet& w = acc[r].written.at(name);
          x.touched[r] = x.touched[r] | w | combinedElements;
          needs.push_back((w - combinedElements) | (r == 0 ? combinedElements : ElementSet::none(ctx_.get(), x.shape)));
        }
      } else {
        for (int r = 0; r < ranks_; ++r) {
          x.touched[r] = x.touched[r] | acc[r].read.at(name) | acc[r].written.at(name);
          needs.push_back(acc[r].read.at(name) | acc[r].perhapsWritten.at(name));
        }
      }
      if (out) {
        const std::vector<ElementSet> held = x.valid;
        if (StmtP moved = bring(name, x, needs, acc, split)) {
          if (moved->as<Exchange>().kind == ExchangeKind::Halo) heldBefore[name] = held;
          // Rows named through indices loaded from data: only those the
          // rank's part of the step names move, found by an inspector. What
          // the rank holds afterwards is unknown here: as before the step.
          if (loop && moved->as<Exchange>().kind == ExchangeKind::Gather)
            if (StmtP indexed = indexedGather(step, x, moved->as<Exchange>())) moved = indexed, x.valid = held;
          before.push_back(moved);
        }
        if (!owned.empty()) {
          BoxTransfer b = boxOf(0, 0, boxes[0].first, boxes[0].second);
          std::vector<BoxTransfer> owners;
          for (int r = 0; r < ranks_; ++r) {
            BoxTransfer o = boxOf(r, r, b.lo, b.hi);
            if (!owned[r].hull(o.lo, o.hi)) o.hi[0] = o.lo[0];  // no row of the box
            owners.push_back(o);
          }
          before.push_back(std::make_shared<Exchange>(ExchangeKind::OwnersReductionStart, name, *ops.begin(), owners,
                                                      b, count_++));
          after.push_back(std::make_shared<Exchange>(ExchangeKind::ReductionToOwners, name, *ops.begin(), owners, b,
                                                     count_++));
          // Each rank holds the rows it owns; the rest of the box are its partial sums.
          for (int r = 0; r < ranks_; ++r) {
            isl_ctx_reset_operations(ctx_.get());
            x.valid[r] = (x.valid[r] - combinedElements) | owned[r];
          }
        } else if (combined) {
          for (auto& [lo, hi] : boxes) {
            BoxTransfer b = boxOf(0, 0, lo, hi);
            before.push_back(std::make_shared<Exchange>(ExchangeKind::ReductionStart, name, *ops.begin(),
                                                        std::vector<BoxTransfer>{}, b, count_++));
            after.push_back(std::make_shared<Exchange>(ExchangeKind::Reduction, name, *ops.begin(),
                                                       std::vector<BoxTransfer>{}, b, count_++));
          }
          // What a rank alone reduced into is up to date there only.
          ElementSet all = ElementSet::none(ctx_.get(), x.shape);
          for (auto& a : acc) {
            isl_ctx_reset_operations(ctx_.get());
            all = all | a.written.at(name);
          }
          for (int r = 0; r < ranks_; ++r) {
            isl_ctx_reset_operations(ctx_.get());
            x.valid[r] = (x.valid[r] - all) | acc[r].written.at(name) | combinedElements;
          }
        } else {
          // A rank's writes are up to date there and stale on every other rank.
          ElementSet all = ElementSet::none(ctx_.get(), x.shape);
          for (int r = 0; r < ranks_ && split; ++r) {
            isl_ctx_reset_operations(ctx_.get());
            all = all | acc[r].written.at(name);
          }
          for (int r = 0; r < ranks_; ++r) {
            isl_ctx_reset_operations(ctx_.get());
            const ElementSet& w = acc[r].written.at(name);
            if (!w.empty()) written_.insert(name);
            x.valid[r] = (split ? x.valid[r] - all : x.valid[r]) | w;
          }
        }
        if (reduced || stored) written_.insert(name);
      }
    }
    StmtP run = step;
    if (out && loop && step->kind == StmtKind::For && &step->as<For>() == loop && !holdsGrid(step))
      if (StmtP split = overlapped(*loop, before, heldBefore, shapes)) run = split;
    steps.insert(steps.end(), before.begin(), before.end());
    steps.push_back(owner < 0 ? run : makeIf(binary(BinOp::Eq, var(kRankVariable), intConst(owner)), run, nullptr));
    steps.insert(steps.end(), after.begin(), after.end());
  }

  // The boxes a reduction into `name` combines across the ranks: those of
  // the elements two or more ranks reduce into (the rows around a block's
  // edge where a transposed stencil scatters), where isl gives them as a
  // few boxes; else the hull of every rank's elements, as one box.
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> sharedBoxes(const std::string& name, const Tensor& x,
                                                                                  const std::vector<StepAccesses>& acc) {
    ElementSet seen = ElementSet::none(ctx_.get(), x.shape), shared = seen;
    for (auto& a : acc) {
      isl_ctx_reset_operations(ctx_.get());
      shared = shared | (a.written.at(name) & seen);
      seen = seen | a.written.at(name);
    }
    isl_ctx_reset_operations(ctx_.get());
    if (auto boxes = shared.boxes(); boxes && boxes->size() <= static_cast<size_t>(2 * ranks_)) return *boxes;
    std::vector<int64_t> lo, hi;
    seen.hull(lo, hi);
    return {{lo, hi}};
  }

  // Overlap: where the halos before a distributed step `f` (1-D) reach a
  // few iterations into its block (loads `u[i + c]`), their exchanges start
  // before the step's interior runs and complete before the iterations at
  // the block's edges do: `halo` becomes HaloStart in `before`, and the
  // step the interior [first + below, last - above), the waits, then the
  // two edges. Only where isl shows that every rank's interior reads only
  // what it held before the halos; null otherwise. A distributed loop's
  // iterations are independent (`distribute` checks), so their order may
  // change.
  StmtP overlapped(const For& f, std::vector<StmtP>& before,
                   const std::map<std::string, std::vector<ElementSet>>& heldBefore,
                   const std::map<std::string, std::vector<int64_t>>& shapes) {
    std::vector<size_t> halos;
    int64_t below = 0, above = 0;
    for (size_t k = 0; k < before.size(); ++k) {
      if (before[k]->kind != StmtKind::Exchange) continue;  // an indexed gather's inspector and rows
      auto& x = before[k]->as<Exchange>();
      if (x.kind != ExchangeKind::Halo || !heldBefore.count(x.tensor)) continue;
      if (!reachOf(f, x.tensor, &below, &above)) return nullptr;
      halos.push_back(k);
    }
    if (halos.empty() || below + above == 0) return nullptr;
    DistributedLoop d{f.var, constant(f.begin, f), constant(f.end, f)};
    d.parts = ranks_;
    for (int r = 0; r < ranks_; ++r) {
      int64_t inner = std::min(d.first(r) + below, d.last(r)), outer = std::max(inner, d.last(r) - above);
      if (outer <= inner) continue;
      isl_ctx_reset_operations(ctx_.get());
      StepAccesses interior = analysis::stepAccesses(ctx_.get(), f.self(), shapes, {{0, inner, outer}});
      for (size_t k : halos) {
        const std::string& t = before[k]->as<Exchange>().tensor;
        if (!interior.read.at(t).subsetOf(heldBefore.at(t)[r])) return nullptr;
      }
    }
    std::vector<StmtP> parts;
    auto [first, last] = rankBlock(f, ranks_, 1, ranks_);
    ExprP inner = binary(BinOp::Min, add(first, intConst(below)), last);
    ExprP outer = binary(BinOp::Max, inner, sub(last, intConst(above)));
    LoopKind kind = f.loopKind;
    kind.distributed = false;  // bound to the rank's block here
    auto iterations = [&](ExprP a, ExprP b, LoopKind k) {
      return std::make_shared<For>(f.id, f.var, std::move(a), std::move(b), f.step, k, f.body, f.made);
    };
    parts.push_back(iterations(inner, outer, kind));
    for (size_t k : halos) {
      auto& x = before[k]->as<Exchange>();
      parts.push_back(std::make_shared<Exchange>(ExchangeKind::HaloWait, x.tensor, x.op, x.transfers, x.combined, x.index));
      before[k] = std::make_shared<Exchange>(ExchangeKind::HaloStart, x.tensor, x.op, x.transfers, x.combined, x.index);
    }
    // The edges, a few iterations each, serial: threads would cost more than they do.
    parts.push_back(iterations(first, inner, LoopKind{}));
    parts.push_back(iterations(outer, last, LoopKind{}));
    peeled_ = true;  // the body three times: its ids repeat
    return makeSeq(std::move(parts));
  }

  // Per rank, the rows it owns (rowsOwnedBy) of the box a reduction to
  // owners combines: where the ranks reduce into `name` through indices
  // loaded from data (isl bounds each rank's rows by the whole tensor, and
  // an Allreduce would move all of them) in whole rows. Empty otherwise.
  std::vector<ElementSet> ownedParts(const std::string& name, const Tensor& x, const std::vector<StepAccesses>& acc) {
    bool scattered = false;
    for (auto& a : acc) scattered |= a.scattered.count(name) > 0;
    if (!scattered || x.shape.empty()) return {};
    ElementSet all = ElementSet::none(ctx_.get(), x.shape);
    for (auto& a : acc) {
      isl_ctx_reset_operations(ctx_.get());
      all = all | a.written.at(name);
    }
    std::vector<int64_t> lo, hi;
    if (!all.hull(lo, hi)) return {};
    for (size_t d = 1; d < x.shape.size(); ++d)
      if (lo[d] != 0 || hi[d] != x.shape[d]) return {};
    std::vector<ElementSet> owned;
    for (int r = 0; r < ranks_; ++r) {
      auto [first, last] = rowsOwnedBy(x.shape[0], ranks_, r);
      std::vector<int64_t> l = lo, h = hi;
      l[0] = std::max(lo[0], first), h[0] = std::min(hi[0], last);
      owned.push_back(h[0] > l[0] ? ElementSet::box(ctx_.get(), l, h) : ElementSet::none(ctx_.get(), x.shape));
    }
    return owned;
  }

  // The rank that runs a step outside the distributed loops alone, or -1 for
  // every rank: steps that write at most kOwnedElements elements (more is
  // work the others would wait for) and reduce nothing. The owner is the
  // rank whose part, as the steps before left it, already holds the most of
  // the tensors' elements the step writes and reads (the lowest such rank);
  // decided in the first pass, kept for the second.
  int ownerOf(const StmtP& step, const StepAccesses& a) {
    if (auto known = owners_.find(step.get()); known != owners_.end()) return known->second;
    int owner = -1;
    int64_t elements = 0;
    bool writes = false;
    for (auto& [name, w] : a.written) {  // counted by their hull: at least as many
      std::vector<int64_t> lo, hi;
      isl_ctx_reset_operations(ctx_.get());
      if (!w.hull(lo, hi)) continue;
      writes = true;
      int64_t n = 1;
      for (size_t d = 0; d < lo.size(); ++d) n *= hi[d] - lo[d];
      elements += n;
    }
    if (writes && a.reduceOps.empty() && elements <= kOwnedElements) {
      int best = -1;
      for (int r = 0; r < ranks_; ++r) {
        int holds = 0;  // of the step's written and read sets, those already within the rank's part
        for (auto* sets : {&a.written, &a.read})
          for (auto& [name, elements] : *sets) {
            isl_ctx_reset_operations(ctx_.get());
            holds += !elements.empty() && elements.subsetOf(tensors_.at(name).touched[r]);
          }
        if (holds > best) owner = r, best = holds;
      }
    }
    owners_[step.get()] = owner;
    return owner;
  }

  StepAccesses nothing(const std::map<std::string, std::vector<int64_t>>& shapes) {
    StepAccesses none;
    for (auto& [t, shape] : shapes) {
      none.read.emplace(t, ElementSet::none(ctx_.get(), shape));
      none.written.emplace(t, ElementSet::none(ctx_.get(), shape));
      none.perhapsWritten.emplace(t, ElementSet::none(ctx_.get(), shape));
    }
    return none;
  }

  // The exchange that gives each rank the elements of `needs` it does not
  // hold, from ranks that hold them; null when none moves.
  StmtP bring(const std::string& name, Tensor& x, const std::vector<ElementSet>& needs,
              const std::vector<StepAccesses>& acc, bool distributed) {
    std::vector<BoxTransfer> transfers;
    bool same = true;
    for (int r = 1; r < ranks_; ++r) same &= needs[r].subsetOf(needs[0]) && needs[0].subsetOf(needs[r]);
    const std::vector<ElementSet> held = x.valid;  // before anything moves: all messages travel at once
    for (int r = 0; r < ranks_; ++r) {
      isl_ctx_reset_operations(ctx_.get());
      ElementSet missing = needs[r] - held[r];
      for (int k = 1; k < ranks_ && !missing.empty(); ++k) {
        int q = (r + k) % ranks_;  // the next ranks first: a halo comes from a neighbour
        isl_ctx_reset_operations(ctx_.get());
        ElementSet part = missing & held[q];
        if (part.empty()) continue;
        for (auto& b : boxesWithin(part, held[q], q, r)) transfers.push_back(b);
        missing = missing - part;
      }
      if (!missing.empty())
        throw InternalError("distribute: elements of '" + name + "' rank " + std::to_string(r) + " reads are held by no rank");
      x.valid[r] = x.valid[r] | needs[r];
    }
    if (transfers.empty()) return nullptr;
    ExchangeKind kind = acc[0].indirect.count(name) ? ExchangeKind::Gather
                        : same || !distributed      ? ExchangeKind::Broadcast
                                                    : ExchangeKind::Halo;
    return std::make_shared<Exchange>(kind, name, ReduceOp::Add, std::move(transfers), BoxTransfer{}, count_++);
  }

  // The inspector and the indexed gather that replace `gather` before
  // `step`, or null where the rows its boxes bring are not whole rows or
  // the inspector cannot name them.
  StmtP indexedGather(const StmtP& step, const Tensor& x, const Exchange& gather) {
    if (x.shape.empty()) return nullptr;
    for (auto& b : gather.transfers)
      for (size_t d = 1; d < x.shape.size(); ++d)
        if (b.lo[d] != 0 || b.hi[d] != x.shape[d]) return nullptr;
    TensorDecl named{gather.tensor + ".named", DType::Bool, {x.shape[0]}, MemKind::Heap};
    auto inspector = inspectorOf(step, gather.tensor, named.name, x.shape[0]);
    if (!inspector) return nullptr;
    auto requests = std::make_shared<Exchange>(ExchangeKind::IndexedRequests, gather.tensor, ReduceOp::Add,
                                               gather.transfers, BoxTransfer{}, gather.index, "", Provenance{},
                                               named.name);
    auto rows = std::make_shared<Exchange>(ExchangeKind::IndexedGather, gather.tensor, ReduceOp::Add,
                                           gather.transfers, BoxTransfer{}, gather.index);
    return makeSeq({makeVarDef(named, makeSeq({*inspector, requests})), rows});
  }

  const Program& p_;
  int ranks_;
  RankGrid grid_;
  analysis::isl_model::Ctx ctx_;
  std::map<std::string, Tensor> tensors_;
  std::set<std::string> written_;
  int count_ = 0;
  bool peeled_ = false;  // a time loop's first iteration has a copy of the body: its ids repeat
  std::map<const Stmt*, int> owners_;  // steps outside distributed loops that one rank runs
};

// Each distributed loop runs its rank's block: a loop alone over all ranks,
// a loop with another distributed one inside over the grid's rows, that one
// over its columns (ir::DistributedLoop).
class BoundToRank : public Mutator {
 public:
  BoundToRank(int ranks, RankGrid grid) : ranks_(ranks), grid_(grid) {}
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    if (!f.loopKind.distributed) return Mutator::mutateFor(s);
    if (inGrid_) {
      inGrid_ = false;
      return bound(f, grid_.cols, 1, mutate(f.body));
    }
    InnerDistributed inner;
    inner.visit(s);
    if (!inner.loop) return bound(f, ranks_, 1, mutate(f.body));
    inGrid_ = true;
    return bound(f, grid_.rows, grid_.cols, mutate(f.body));
  }

 private:
  StmtP bound(const For& f, int parts, int stride, StmtP body) const {
    auto [first, last] = rankBlock(f, parts, stride, ranks_);
    return std::make_shared<For>(f.id, f.var, first, last, f.step, f.loopKind, std::move(body), f.made);
  }
  int ranks_;
  RankGrid grid_;
  bool inGrid_ = false;
};

}  // namespace

Program planExchanges(const Program& lowered, int ranks, int gridRows) {
  if (ranks <= 1) return lowered;
  return Planner(lowered, ranks, gridRows).run();
}

Program boundToRanks(const Program& planned) {
  Program p = planned;
  if (p.distribution.ranks <= 1) return p;
  BoundToRank b(p.distribution.ranks, p.distribution.grid);
  for (auto& n : p.nests) n = b.mutate(n);
  return p;
}

}  // namespace teml::lowering
