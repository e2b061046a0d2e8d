#include "lowering/carried_dependences.hpp"

#include "analysis/concurrency.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

class CarriedDependences : public Mutator {
 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    StmtP out = Mutator::mutateFor(s);
    if (f.loopKind.threads() || f.loopKind.lanes() || analysis::analyzeConcurrentLoop(f, false).ok) return out;
    auto& g = out->as<For>();
    LoopKind kind = g.loopKind;
    kind.carriesDependence = true;
    return std::make_shared<For>(g.id, g.var, g.begin, g.end, g.step, kind, g.body, g.made);
  }
};

}  // namespace

StmtP markCarriedDependences(const StmtP& nest) { return CarriedDependences().mutate(nest); }

}  // namespace teml::lowering
