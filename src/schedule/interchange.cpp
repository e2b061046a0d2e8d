#include "ir/mutator.hpp"
#include "ir/scoped_visitor.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {
class IteratorScope : public ScopedVisitor {
 public:
  explicit IteratorScope(const std::string& what) : what_(what) {}

 protected:
  void visitVar(const Var& v) override {
    if (!isBound(v.name))
      throw ScheduleError(what_ + ": iterator '" + v.name + "' would be used outside the loop that defines it");
  }

 private:
  const std::string& what_;
};
}  // namespace

void checkScoping(const StmtP& nest, const std::string& what) { IteratorScope(what).visit(nest); }

StmtP interchange(const StmtP& nest, int r1, int r2) {
  if (r1 == r2) throw ScheduleError("interchange: both levels are " + std::to_string(r1));
  if (r1 > r2) std::swap(r1, r2);
  auto chain = loopsToLevel(nest, r2, "interchange");
  // Rebuild levels r1..r2 innermost first, with the headers of r1 and r2 swapped.
  StmtP body = loopBody(*chain[r2 - 1]);
  for (int l = r2; l >= r1; --l) {
    const For& header = *chain[(l == r1 ? r2 : l == r2 ? r1 : l) - 1];
    for (int inner = l + 1; inner <= r2; ++inner) {
      const For& below = *chain[(inner == r2 ? r1 : inner) - 1];
      if (usesVar(header.begin, below.var) || usesVar(header.end, below.var))
        throw ScheduleError("interchange: the bounds of loop '" + header.var + "' depend on iterator '" +
                            below.var + "', which would then be defined inside it");
    }
    body = withBody(header, body);
  }
  return replaceLevel(chain, r1, body);
}

}  // namespace teml::schedule
