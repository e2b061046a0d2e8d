#include "lowering/distributed/inspector.hpp"

#include <set>

#include "ir/accesses.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

class Inspector : public Mutator {
 public:
  Inspector(const StmtP& step, std::string tensor, std::string named, int64_t rows)
      : tensor_(std::move(tensor)), named_(std::move(named)), rows_(rows) {
    forEachStmt(step, [&](const StmtP& s) {
      if (s->kind == StmtKind::Store) computed_.insert(s->as<Store>().tensor);
      if (s->kind == StmtKind::Reduce) computed_.insert(s->as<Reduce>().tensor);
      if (s->kind == StmtKind::VarDef) computed_.insert(s->as<VarDef>().decl.name);
    });
  }

  bool ok() const { return ok_; }

  // Each method returns the copy of its statement, null when it marks
  // nothing; `ok_` false where it cannot.
  using Mutator::mutate;
  StmtP mutate(const StmtP& s) override {
    if (!s) return nullptr;
    StmtP copy = Mutator::mutate(s);
    // Rebuilt as one of its kind (a sequence), a statement keeps the id of
    // the one it replaces; the copy runs beside the step, and ids name one
    // statement (fuzz seed 9141: a local's body, copied).
    if (copy && copy != s && !s->id.empty() && copy->id == s->id) copy = withIdentity(copy, s->id + ".inspect", copy->made);
    return copy;
  }

 protected:
  StmtP mutateSeq(const StmtP& s) override {
    std::vector<StmtP> items;
    for (auto& item : s->as<Seq>().stmts) items.push_back(mutate(item));
    return makeSeqOfPresent(std::move(items));
  }
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    if (decidedByComputed(f.begin) || decidedByComputed(f.end)) return fail();
    loops_.push_back(f.var);
    marked_.emplace_back();
    StmtP body = mutate(f.body);
    marked_.pop_back();
    loops_.pop_back();
    if (!body) return nullptr;
    // A loop of at least one iteration whose marks do not move with it
    // (a feature loop) runs them once; a distributed one stays, as it
    // places the rank's block (the inner loop of a grid decides the row).
    bool uses = false;
    forEachExprIn(body, [&](const ExprP& e) { uses = uses || usesVar(e, f.var); });
    int64_t b, e;
    if (!uses && !f.loopKind.distributed && constValue(f.begin, &b) && constValue(f.end, &e) && e > b) return body;
    LoopKind kind;
    kind.distributed = f.loopKind.distributed;
    return std::make_shared<For>(f.id + ".inspect", f.var, f.begin, f.end, f.step, kind, body, f.made);
  }
  StmtP mutateIf(const StmtP& s) override {  // both ways
    auto& i = s->as<If>();
    if (reads(i.cond, tensor_)) return fail();
    return makeSeqOfPresent({mutate(i.then), mutate(i.otherwise)});
  }
  StmtP mutateAssert(const StmtP& s) override { return mutate(s->as<Assert>().body); }  // each mark is guarded
  StmtP mutateVarDef(const StmtP& s) override { return mutate(s->as<VarDef>().body); }  // marks read no local
  StmtP mutateStore(const StmtP& s) override {
    auto& st = s->as<Store>();
    return st.tensor == tensor_ ? fail() : marks(st.indices, st.value);
  }
  StmtP mutateReduce(const StmtP& s) override {
    auto& r = s->as<Reduce>();
    return r.tensor == tensor_ ? fail() : marks(r.indices, r.value);
  }
  StmtP mutateLibCall(const StmtP&) override { return fail(); }
  StmtP mutateBarrier(const StmtP&) override { return fail(); }
  StmtP mutateExchange(const StmtP&) override { return fail(); }

 private:
  StmtP fail() {
    ok_ = false;
    return nullptr;
  }

  bool decidedByComputed(const ExprP& e) const {
    for (auto& a : readsOf(e))
      if (computed_.count(a.tensor) || a.tensor == tensor_) return true;
    return false;
  }

  // `named[r] = true` for the row r of each load of the tensor in these
  // expressions, where 0 <= r < rows.
  StmtP marks(const std::vector<ExprP>& indices, const ExprP& value) {
    std::vector<StmtP> out;
    auto mark = [&](const ExprP& e) {
      forEachExpr(e, [&](const ExprP& x) {
        if (x->kind != ExprKind::Load || x->as<Load>().tensor != tensor_ || x->as<Load>().indices.empty()) return;
        const ExprP& row = x->as<Load>().indices[0];
        if (decidedByComputed(row)) {
          ok_ = false;
          return;
        }
        // A row marked already in this iteration of the loops around (the
        // subscripts read nothing the step changes) is the same row.
        for (auto& level : marked_)
          for (auto& m : level)
            if (equal(m, row)) return;
        marked_.back().push_back(row);
        ExprP inRange = binary(BinOp::And, binary(BinOp::Ge, row, intConst(0, row->dtype)),
                               binary(BinOp::Lt, row, intConst(rows_, row->dtype)));
        out.push_back(makeIf(inRange, makeStore(named_, {row}, boolConst(true), SourceLoc{}, tag()), nullptr));
      });
    };
    for (auto& i : indices) mark(i);
    mark(value);
    return makeSeqOfPresent(std::move(out));
  }

  // Each mark's identity for the dependence analysis: its own id and the loops around it.
  StmtTag tag() {
    StmtTag t{named_ + ".mark" + std::to_string(++marks_), loops_, {}};
    for (auto& v : loops_) t.origin.push_back(var(v));
    return t;
  }

  std::vector<std::string> loops_;
  std::vector<std::vector<ExprP>> marked_ = {{}};  // row expressions marked, per loop level
  int marks_ = 0;
  std::string tensor_, named_;
  int64_t rows_;
  std::set<std::string> computed_;  // stored, reduced into or defined in the step
  bool ok_ = true;
};

}  // namespace

std::optional<StmtP> inspectorOf(const StmtP& step, const std::string& tensor, const std::string& named,
                                 int64_t rows) {
  Inspector inspector(step, tensor, named, rows);
  StmtP copy = inspector.mutate(step);
  if (!inspector.ok() || !copy) return std::nullopt;
  return copy;
}

}  // namespace teml::lowering
