#include "lowering/narrow_float_conversions.hpp"

#include <climits>
#include <optional>

#include "ir/affine.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

class Narrow : public Mutator {
 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    std::optional<ir::Interval> outer;
    if (ranges_.count(f.var)) outer = ranges_.at(f.var);
    int64_t first, end;
    if (constValue(f.begin, &first) && constValue(f.end, &end) && f.step == 1 && first < end)
      ranges_[f.var] = {first, end - 1};
    else
      ranges_.erase(f.var);
    StmtP out = Mutator::mutateFor(s);
    if (outer) ranges_[f.var] = *outer; else ranges_.erase(f.var);
    return out;
  }
  ExprP mutateCast(const ExprP& e) override {
    ExprP out = Mutator::mutateCast(e);
    auto& c = out->as<Cast>();
    ir::Interval range;
    if (isFloat(c.dtype) && c.a->dtype == DType::I64 && ir::bounds(c.a, ranges_, &range) &&
        range.lo >= INT32_MIN && range.hi <= INT32_MAX)
      return cast(c.dtype, cast(DType::I32, c.a));
    return out;
  }

 private:
  ir::Ranges ranges_;
};

}  // namespace

StmtP narrowFloatConversions(const StmtP& nest) { return Narrow().mutate(nest); }

}  // namespace teml::lowering
