#include "lowering/single_iteration_loops.hpp"

#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

class InlineSingleIterations : public Mutator {
 protected:
  StmtP mutateFor(const StmtP& s) override {
    StmtP inner = Mutator::mutateFor(s);
    auto& f = inner->as<For>();
    int64_t trips = 0;
    if (f.made.primitive != "separate_tail" || f.loopKind.concurrent() || !f.loopKind.reductions.empty() || f.step != 1 ||
        !constValue(sub(f.end, f.begin), &trips) || trips != 1 || !localsOf(f).empty() || !localTensorsIn(f.body).empty())
      return inner;
    return substitute(f.body, {{f.var, f.begin}});
  }
};

}  // namespace

StmtP inlineSingleIterationLoops(const StmtP& nest) { return InlineSingleIterations().mutate(nest); }

}  // namespace teml::lowering
