#include "lowering/local_boxes.hpp"

#include "analysis/local_box.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

class LocalBoxes : public Mutator {
 protected:
  StmtP mutateFor(const StmtP& s) override {
    StmtP m = Mutator::mutateFor(s);
    auto& f = static_cast<const For&>(*m);
    auto locals = localsOf(f);
    if (locals.empty()) return m;
    for (auto& l : locals) {
      std::string why;
      if (!analysis::localBox(f.body, l.decl.name, &l.box, &why)) throw InternalError("lowering: " + why);
      l.boxed = true;
    }
    return makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, loopBody(f), locals, f.made);
  }
};

}  // namespace

StmtP inferLocalBoxes(const StmtP& nest) { return LocalBoxes().mutate(nest); }

}  // namespace teml::lowering
