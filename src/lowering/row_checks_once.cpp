#include "lowering/row_checks_once.hpp"

#include <set>

#include "ir/csr_rows.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

bool isEmpty(const StmtP& s) { return s->kind == StmtKind::Seq && s->as<Seq>().stmts.empty(); }

// The arrays whose whole order check `s` runs whatever path it takes: in
// a sequence, any item's; in a loop (over the array's rows, or blocks of
// them), its body's; in a branch, those both arms run (checks_by_range's
// two versions each have it).
std::set<std::string> checkedOnEveryPath(const StmtP& s) {
  switch (s->kind) {
    case StmtKind::Seq: {
      std::set<std::string> out;
      for (auto& item : s->as<Seq>().stmts)
        for (auto& r : checkedOnEveryPath(item)) out.insert(r);
      return out;
    }
    case StmtKind::For: return checkedOnEveryPath(s->as<For>().body);
    case StmtKind::VarDef: return checkedOnEveryPath(s->as<VarDef>().body);
    case StmtKind::If: {
      auto& i = s->as<If>();
      if (!i.otherwise) return {};
      std::set<std::string> both, other = checkedOnEveryPath(i.otherwise);
      for (auto& r : checkedOnEveryPath(i.then))
        if (other.count(r)) both.insert(r);
      return both;
    }
    case StmtKind::Assert: {
      auto& a = s->as<Assert>();
      auto rows = rowOrderChecked(a);
      if (rows && isEmpty(a.body)) return {*rows};
      return {};
    }
    default: return {};
  }
}

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
  std::set<std::string> whole = checkedOnEveryPath(nest);
  for (auto& w : tensorsWritten(nest)) whole.erase(w);  // the front end checks only arrays the nest reads
  return whole.empty() ? nest : DropRowChecks(whole).mutate(nest);
}

}  // namespace teml::lowering
