#include "ir/unique_iterators.hpp"

#include <set>

#include "ir/mutator.hpp"

namespace teml::ir {

namespace {

class Renamer : public Mutator {
 public:
  explicit Renamer(const StmtP& s) {
    forEachStmt(s, [&](const StmtP& t) {
      if (t->kind == StmtKind::For) all_.insert(static_cast<const For&>(*t).var);
    });
  }

 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = static_cast<const For&>(*s);
    std::string v = f.var;
    StmtP body = f.body;
    if (enclosing_.count(v)) {
      for (int k = 2; all_.count(v) || enclosing_.count(v); ++k) v = f.var + std::to_string(k);
      all_.insert(v);
      body = substitute(body, {{f.var, var(v)}});
    }
    enclosing_.insert(v);
    body = mutate(body);
    enclosing_.erase(v);
    if (v == f.var && body == f.body) return s;
    return makeFor(f.id, v, f.begin, f.end, f.step, f.loopKind, body, {}, f.made);
  }

 private:
  std::set<std::string> all_, enclosing_;  // every iterator of s; those bound around the current node
};

}  // namespace

StmtP uniqueIterators(const StmtP& s) { return Renamer(s).mutate(s); }

}  // namespace teml::ir
