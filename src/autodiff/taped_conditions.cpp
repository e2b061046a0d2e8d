#include "autodiff/taped_conditions.hpp"

#include <algorithm>

#include "autodiff/tapes.hpp"
#include "diag/diagnostics.hpp"
#include "ir/accesses.hpp"
#include "ir/fresh_name.hpp"
#include "ir/mutator.hpp"
#include "ir/unique_statement_ids.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

class ConditionsAsLocals : public Mutator {
 public:
  ConditionsAsLocals(const std::set<std::string>& differentiated, std::set<std::string>& names)
      : differentiated_(differentiated), names_(names) {}

 protected:
  StmtP mutateFor(const StmtP& s) override {
    loops_.push_back(&s->as<For>());
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
    // A branch whose body the backward pass neither differentiates nor
    // recomputes is not decided again there.
    if (std::none_of(written.begin(), written.end(), [&](const std::string& t) { return differentiated_.count(t) > 0; }))
      return mutated;
    std::string overwritten;
    for (auto& r : readsOf(branch.cond))
      if (overwritten.empty() && written.count(r.tensor)) overwritten = r.tensor;
    if (overwritten.empty()) return mutated;
    std::vector<std::string> iterators;
    std::vector<ExprP> values;
    for (auto* f : loops_) {
      TapeLoop version;
      if (!tapeLoop(*f, &version))
        throw UserError(branch.made.loc,
                        "gradient: this branch's condition reads '" + overwritten + "', which the branch overwrites; the "
                        "backward pass needs the condition as it was, and inside loop '" + f->var +
                        "', whose trip count is not constant, teml cannot keep it: compute the condition into a tensor "
                        "of its own before the branch");
      iterators.push_back(f->var);
      values.push_back(var(f->var));
    }
    std::string name = freshName(overwritten + ".cond", names_);
    // Tagged with the loops around it: isl sees its reads (autodiff/overwritten_reads).
    StmtP decide = makeStore(name, {}, branch.cond, branch.made.loc, StmtTag{name, iterators, values});
    StmtP decided = std::make_shared<If>(load(name, {}, DType::Bool), branch.then, branch.otherwise, branch.id, branch.made);
    return makeVarDef(TensorDecl{name, DType::Bool, {}}, makeSeq({decide, decided}));
  }

 private:
  const std::set<std::string>& differentiated_;
  std::set<std::string>& names_;
  std::vector<const For*> loops_;
};

}  // namespace

Program conditionsAsLocals(const Program& p, const std::set<std::string>& differentiated, std::set<std::string>& names) {
  Program out = p;
  for (auto& nest : out.nests) {
    StmtP changed = ConditionsAsLocals(differentiated, names).mutate(nest);
    if (changed != nest) nest = uniqueStatementIds(changed);
  }
  return out;
}

}  // namespace teml::autodiff
