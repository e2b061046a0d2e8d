#include "autodiff/taped_conditions.hpp"

#include "ir/accesses.hpp"
#include "ir/fresh_name.hpp"
#include "ir/mutator.hpp"
#include "ir/unique_statement_ids.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

class ConditionsAsLocals : public Mutator {
 public:
  explicit ConditionsAsLocals(std::set<std::string>& names) : names_(names) {}

 protected:
  StmtP mutateFor(const StmtP& s) override {
    loops_.push_back(s->as<For>().var);
    StmtP out = Mutator::mutateFor(s);
    loops_.pop_back();
    return out;
  }

  StmtP mutateIf(const StmtP& s) override {
    StmtP mutated = Mutator::mutateIf(s);
    auto& branch = mutated->as<If>();
    std::set<std::string> written = tensorsWritten(branch.then);
    if (branch.otherwise)
      for (auto& t : tensorsWritten(branch.otherwise)) written.insert(t);
    std::string overwritten;
    for (auto& r : readsOf(branch.cond))
      if (overwritten.empty() && written.count(r.tensor)) overwritten = r.tensor;
    if (overwritten.empty()) return mutated;
    std::string name = freshName(overwritten + ".cond", names_);
    std::vector<ExprP> iterators;
    for (auto& v : loops_) iterators.push_back(var(v));
    // Tagged with the loops around it: isl sees its reads (autodiff/overwritten_reads).
    StmtP decide = makeStore(name, {}, branch.cond, branch.made.loc, StmtTag{name, loops_, iterators});
    StmtP decided = std::make_shared<If>(load(name, {}, DType::Bool), branch.then, branch.otherwise, branch.id, branch.made);
    return makeVarDef(TensorDecl{name, DType::Bool, {}}, makeSeq({decide, decided}));
  }

 private:
  std::set<std::string>& names_;
  std::vector<std::string> loops_;
};

}  // namespace

Program conditionsAsLocals(const Program& p, std::set<std::string>& names) {
  Program out = p;
  for (auto& nest : out.nests) {
    StmtP changed = ConditionsAsLocals(names).mutate(nest);
    if (changed != nest) nest = uniqueStatementIds(changed);
  }
  return out;
}

}  // namespace teml::autodiff
