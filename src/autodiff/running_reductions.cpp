#include "autodiff/running_reductions.hpp"

#include <optional>

#include "ir/accesses.hpp"
#include "ir/mutator.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

bool isTarget(const ExprP& e, const Store& st) {
  if (e->kind != ExprKind::Load) return false;
  auto& l = e->as<Load>();
  if (l.tensor != st.tensor || l.indices.size() != st.indices.size()) return false;
  for (size_t k = 0; k < l.indices.size(); ++k)
    if (!equal(l.indices[k], st.indices[k])) return false;
  return true;
}

class AsReductions : public Mutator {
 public:
  explicit AsReductions(const std::set<std::string>& keep) : keep_(keep) {}

 protected:
  // A running max or min the front end wrote as a reduction
  // (make_reduction) that must keep its versions: the store it stands for.
  StmtP mutateReduce(const StmtP& s) override {
    auto& r = s->as<Reduce>();
    if (!keep_.count(r.id) || (r.op != ReduceOp::Max && r.op != ReduceOp::Min)) return s;
    ExprP old = load(r.tensor, r.indices, r.value->dtype);
    ExprP value = binary(r.op == ReduceOp::Max ? BinOp::Max : BinOp::Min, old, r.value);
    return std::make_shared<Store>(r.tensor, r.indices, value, r.loc, r.tag, r.id, r.made);
  }
  StmtP mutateStore(const StmtP& s) override {
    auto& st = s->as<Store>();
    if (keep_.count(st.id)) return s;
    if (st.value->kind != ExprKind::Binary || !isFloat(st.value->dtype)) return s;
    auto& b = st.value->as<Binary>();
    std::optional<ReduceOp> op;
    if (b.op == BinOp::Max) op = ReduceOp::Max;
    if (b.op == BinOp::Min) op = ReduceOp::Min;
    if (b.op == BinOp::Add) op = ReduceOp::Add;
    if (!op || b.a->dtype != b.b->dtype) return s;
    ExprP other;
    if (isTarget(b.a, st)) other = b.b;
    else if (isTarget(b.b, st)) other = b.a;  // commutative, also in floating point
    if (!other || reads(other, st.tensor)) return s;
    return std::make_shared<Reduce>(*op, st.tensor, st.indices, other, st.loc, st.tag, false, st.id, st.made);
  }

 private:
  const std::set<std::string>& keep_;
};

}  // namespace

Program runningReductionsAsReductions(const Program& p, const std::vector<std::set<std::string>>& keep) {
  Program out = p;
  const std::set<std::string> none;
  for (size_t k = 0; k < out.nests.size(); ++k) out.nests[k] = AsReductions(k < keep.size() ? keep[k] : none).mutate(out.nests[k]);
  return out;
}

}  // namespace teml::autodiff
