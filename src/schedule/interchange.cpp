#include <optional>

#include "ir/affine.hpp"
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

namespace {

// The constant length of [begin, end), if it has one.
std::optional<int64_t> constantLength(const ExprP& begin, const ExprP& end) {
  Affine length;
  if (!toAffine(sub(end, begin), &length) || !length.coeffs.empty()) return std::nullopt;
  return length.constant;
}

// The loops below level r1 (to r2) whose range moves with an iterator of
// the loops it would pass but whose length is a constant (a strip-mined
// block, [b + v*o, b + v*o + v)), counted from 0 instead: its iterator
// becomes an offset, p := b + v*o + p in its body, so it may go above o.
// A last partial block, [b + v*o, min(b + v*o + v, N)), counts to v too,
// its body guarded by b + v*o + p < N (a factor that does not divide).
StmtP countFromZero(StmtP nest, int r1, int r2) {
  for (int l = r1 + 1; l <= r2; ++l) {
    auto chain = loopsToLevel(nest, r2, "interchange");
    const For& f = *chain[l - 1];
    bool moves = false;
    for (int above = r1; above < l; ++above)
      moves = moves || usesVar(f.begin, chain[above - 1]->var) || usesVar(f.end, chain[above - 1]->var);
    if (!moves || f.step != 1) continue;
    std::optional<int64_t> length = constantLength(f.begin, f.end);
    ExprP limit;  // the end a partial block stops at
    if (!length && f.end->kind == ExprKind::Binary && f.end->as<Binary>().op == BinOp::Min) {
      auto& m = f.end->as<Binary>();
      if ((length = constantLength(f.begin, m.a))) limit = m.b;
      else if ((length = constantLength(f.begin, m.b))) limit = m.a;
    }
    if (!length) continue;
    ExprP at = add(f.begin, var(f.var));
    auto counted = std::make_shared<For>(f.id, f.var, intConst(0), intConst(*length), 1, f.loopKind,
                                         substitute(f.body, {{f.var, at}}), f.made);
    StmtP loop = counted;
    if (limit) loop = withBody(*counted, makeIf(binary(BinOp::Lt, at, limit), loopBody(*counted), nullptr));
    nest = replaceLevel(chain, l, loop);
  }
  return nest;
}

}  // namespace

StmtP interchange(const StmtP& original, int r1, int r2) {
  if (r1 == r2) throw ScheduleError("interchange: both levels are " + std::to_string(r1));
  if (r1 > r2) std::swap(r1, r2);
  StmtP nest = countFromZero(original, r1, r2);
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
