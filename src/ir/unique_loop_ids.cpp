#include "ir/unique_loop_ids.hpp"

#include <set>

#include "ir/mutator.hpp"

namespace teml::ir {

namespace {

class Renamer : public Mutator {
 public:
  explicit Renamer(const StmtP& nest) {
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::For) all_.insert(static_cast<const For&>(*s).id);
    });
  }

 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = static_cast<const For&>(*s);
    std::string id = f.id;
    if (!used_.insert(id).second) {
      for (int k = 2; all_.count(id) || used_.count(id); ++k) id = f.id + "#" + std::to_string(k);
      used_.insert(id);
    }
    StmtP body = mutate(f.body);
    if (id == f.id && body == f.body) return s;
    return makeFor(id, f.var, f.begin, f.end, f.step, f.loopKind, body, {}, f.made);
  }

 private:
  std::set<std::string> all_, used_;  // every id in the nest; ids given so far
};

}  // namespace

StmtP uniqueLoopIds(const StmtP& nest) { return Renamer(nest).mutate(nest); }

}  // namespace teml::ir
