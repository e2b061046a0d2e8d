// `if c: for L: B` becomes `for L: if c: B` where L is one of the loops a
// reorder names, inside another of them: a branch between two loops to
// reorder (Longformer's check that a window position lies in the sequence,
// between the window loop and its lanes' loop) no longer breaks their nest.
// A run-time index check hoisted there (`assert c: for L: B`) moves the
// same way. The same instances run in the same order, so this needs no
// check of its own; it is refused where L's bounds read a tensor (they
// would then be read where c is false: a CSR row's bounds past the last
// row), where the branch has an else, and where the loop writes a tensor
// the condition reads (it would then be evaluated again in each iteration,
// after some of them changed it).
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

class SinkBranches : public Mutator {
 public:
  explicit SinkBranches(const std::set<std::string>& loops) : loops_(loops) {}

 protected:
  StmtP mutateFor(const StmtP& s) override {
    bool named = loops_.count(s->as<For>().id) > 0;
    insideNamed_ += named;
    StmtP out = Mutator::mutateFor(s);
    insideNamed_ -= named;
    return out;
  }
  StmtP mutateIf(const StmtP& s) override {
    StmtP m = Mutator::mutateIf(s);
    return insideNamed_ > 0 ? sink(m) : m;
  }
  StmtP mutateAssert(const StmtP& s) override {
    StmtP m = Mutator::mutateAssert(s);
    return insideNamed_ > 0 ? sink(m) : m;
  }

 private:
  // `s` (a branch or a check) moved into the named loop it wraps, and on
  // into the named loops inside that.
  StmtP sink(const StmtP& s) const {
    if (s->kind == StmtKind::If && s->as<If>().otherwise) return s;
    StmtP child = singleChild(s->kind == StmtKind::If ? s->as<If>().then : s->as<Assert>().body);
    if (child->kind != StmtKind::For || !loops_.count(child->as<For>().id)) return s;
    auto& f = child->as<For>();
    if (!readsOf(f.begin).empty() || !readsOf(f.end).empty()) return s;
    std::vector<Access> condition = readsOf(s->kind == StmtKind::If ? s->as<If>().cond : s->as<Assert>().cond);
    if (s->kind == StmtKind::Assert && s->as<Assert>().shown) {
      auto shown = readsOf(s->as<Assert>().shown);
      condition.insert(condition.end(), shown.begin(), shown.end());
    }
    auto written = tensorsWritten(f.body);
    for (auto& r : condition)
      if (written.count(r.tensor)) return s;
    return withBody(f, sink(around(s, loopBody(f))));
  }
  static StmtP around(const StmtP& s, const StmtP& body) {
    if (s->kind == StmtKind::If) {
      auto& i = s->as<If>();
      return std::make_shared<If>(i.cond, body, nullptr, i.id, i.made);
    }
    auto& a = s->as<Assert>();
    return std::make_shared<Assert>(a.cond, a.message, a.shown, a.loc, body, a.id, a.made);
  }

  const std::set<std::string>& loops_;
  int insideNamed_ = 0;
};

}  // namespace

StmtP sinkBranches(const StmtP& top, const std::set<std::string>& loops) { return SinkBranches(loops).mutate(top); }

}  // namespace teml::schedule
