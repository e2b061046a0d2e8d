#include "schedule/provenance.hpp"

#include <map>

#include "ir/mutator.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

class Record : public Mutator {
 public:
  Record(const std::string& primitive, const std::map<std::string, const For*>& before)
      : primitive_(primitive), before_(before) {}

 protected:
  StmtP mutateFor(const StmtP& s) override {
    StmtP m = Mutator::mutateFor(s);
    auto& f = static_cast<const For&>(*m);
    Provenance made = provenanceOf(f);
    if (made == f.made) return m;
    return std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, f.loopKind, f.body, made);
  }

 private:
  Provenance provenanceOf(const For& f) const {
    auto same = before_.find(f.id);
    if (same != before_.end()) {
      const For& b = *same->second;
      bool unchanged = b.var == f.var && equal(b.begin, f.begin) && equal(b.end, f.end) && b.step == f.step;
      return unchanged ? b.made : Provenance{b.made.loc, primitive_, b.id};
    }
    const For* source = nullptr;
    for (auto& [id, loop] : before_)
      if (f.id.size() > id.size() && f.id.compare(0, id.size(), id) == 0 && (f.id[id.size()] == '.' || f.id[id.size()] == '#') &&
          (!source || id.size() > source->id.size()))
        source = loop;
    return source ? Provenance{source->made.loc, primitive_, source->id} : Provenance{{}, primitive_, ""};
  }

  const std::string& primitive_;
  const std::map<std::string, const For*>& before_;
};

}  // namespace

StmtP recordProvenance(const std::string& primitive, const std::vector<StmtP>& inputs, const StmtP& result) {
  std::map<std::string, const For*> before;
  for (auto& in : inputs)
    forEachStmt(in, [&](const StmtP& s) {
      if (s->kind == StmtKind::For) before.emplace(static_cast<const For&>(*s).id, static_cast<const For*>(s.get()));
    });
  return Record(primitive, before).mutate(result);
}

}  // namespace teml::schedule
