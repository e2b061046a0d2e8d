#include "schedule/provenance.hpp"

#include <map>

#include "ir/mutator.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

class Record : public Mutator {
 public:
  Record(const std::string& primitive, const std::map<std::string, const Stmt*>& before)
      : primitive_(primitive), before_(before) {}

  StmtP mutate(const StmtP& s) override {
    StmtP m = Mutator::mutate(s);
    Provenance made = provenanceOf(*m);
    return made == m->made ? m : withIdentity(m, m->id, made);
  }

 private:
  Provenance provenanceOf(const Stmt& s) const {
    auto same = before_.find(s.id);
    if (same != before_.end()) {
      const Stmt& b = *same->second;
      if (s.kind != StmtKind::For || b.kind != StmtKind::For) return b.made;  // the same statement
      auto& f = s.as<For>();
      auto& g = b.as<For>();
      bool unchanged = g.var == f.var && equal(g.begin, f.begin) && equal(g.end, f.end) && g.step == f.step;
      return unchanged ? g.made : Provenance{g.made.loc, primitive_, g.id};
    }
    // A copy (id#k) or a part (id.o, id.rem) of a statement that was there.
    const Stmt* source = nullptr;
    for (auto& [id, before] : before_)
      if (s.id.size() > id.size() && s.id.compare(0, id.size(), id) == 0 && (s.id[id.size()] == '.' || s.id[id.size()] == '#') &&
          (!source || id.size() > source->id.size()))
        source = before;
    if (source) return Provenance{source->made.loc, primitive_, source->id};
    return s.made.primitive.empty() ? Provenance{s.made.loc, primitive_, ""} : s.made;
  }

  const std::string& primitive_;
  const std::map<std::string, const Stmt*>& before_;
};

}  // namespace

StmtP recordProvenance(const std::string& primitive, const std::vector<StmtP>& inputs, const StmtP& result) {
  std::map<std::string, const Stmt*> before;
  for (auto& in : inputs)
    forEachStmt(in, [&](const StmtP& s) {
      if (!s->id.empty()) before.emplace(s->id, s.get());
    });
  return Record(primitive, before).mutate(result);
}

}  // namespace teml::schedule
