#include "lowering/row_checks_once.hpp"

#include <set>

#include "ir/csr_rows.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

bool isEmpty(const StmtP& s) { return s->kind == StmtKind::Seq && s->as<Seq>().stmts.empty(); }

// The arrays whose whole order check a statement runs whatever path it
// takes: in a sequence, any item's; in a loop (over the array's rows, or
// blocks of them), its body's; in a branch, those both arms run
// (checks_by_range's two versions each have it).
class CheckedOnEveryPath : public StmtFunctor<std::set<std::string>()> {
 public:
  using Rows = std::set<std::string>;
  Rows of(const StmtP& s) { return dispatch(s); }

 protected:
  Rows visitSeq(const Seq& q) override {
    Rows out;
    for (auto& item : q.stmts)
      for (auto& r : of(item)) out.insert(r);
    return out;
  }
  Rows visitFor(const For& f) override { return of(f.body); }
  Rows visitVarDef(const VarDef& v) override { return of(v.body); }
  Rows visitIf(const If& i) override {
    if (!i.otherwise) return {};
    Rows both, other = of(i.otherwise);
    for (auto& r : of(i.then))
      if (other.count(r)) both.insert(r);
    return both;
  }
  Rows visitAssert(const Assert& a) override {
    auto rows = rowOrderChecked(a);
    if (rows && isEmpty(a.body)) return {*rows};
    return {};
  }
  Rows visitStore(const Store&) override { return {}; }
  Rows visitReduce(const Reduce&) override { return {}; }
  Rows visitLibCall(const LibCall&) override { return {}; }
  Rows visitBarrier(const Barrier&) override { return {}; }
  Rows visitExchange(const Exchange&) override { return {}; }
};

class DropRowChecks : public Mutator {
 public:
  explicit DropRowChecks(std::set<std::string> whole) : whole_(std::move(whole)) {}

 protected:
  StmtP mutateAssert(const StmtP& s) override {
    auto& a = s->as<Assert>();
    auto rows = rowOrderChecked(a);
    if (rows && whole_.count(*rows) && !isEmpty(a.body)) return mutate(a.body);
    return Mutator::mutateAssert(s);
  }

 private:
  std::set<std::string> whole_;
};

}  // namespace

StmtP rowChecksOnce(const StmtP& nest) {
  std::set<std::string> whole = CheckedOnEveryPath().of(nest);
  for (auto& w : tensorsWritten(nest)) whole.erase(w);  // the front end checks only arrays the nest reads
  return whole.empty() ? nest : DropRowChecks(whole).mutate(nest);
}

}  // namespace teml::lowering
