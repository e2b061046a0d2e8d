#include <algorithm>
#include <functional>
#include <numeric>

#include "ir/mutator.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

// Rewrites the indices of every access of one tensor, and its declaration
// wherever a loop holds it as a local tensor.
class Relayout : public Mutator {
 public:
  using IndexMap = std::function<std::vector<ExprP>(const std::vector<ExprP>&)>;
  Relayout(std::string tensor, IndexMap map, std::vector<int64_t> shape)
      : tensor_(std::move(tensor)), map_(std::move(map)), shape_(std::move(shape)) {}
  bool found = false;

 protected:
  ExprP mutateLoad(const ExprP& e) override {
    ExprP m = Mutator::mutateLoad(e);
    auto& l = static_cast<const Load&>(*m);
    return l.tensor == tensor_ ? load(l.tensor, map_(l.indices)) : m;
  }
  StmtP mutateStore(const StmtP& s) override {
    StmtP m = Mutator::mutateStore(s);
    auto& st = static_cast<const Store&>(*m);
    return st.tensor == tensor_ ? makeStore(st.tensor, map_(st.indices), st.value, st.loc, st.tag) : m;
  }
  StmtP mutateReduce(const StmtP& s) override {
    StmtP m = Mutator::mutateReduce(s);
    auto& r = static_cast<const Reduce&>(*m);
    return r.tensor == tensor_ ? makeReduce(r.op, r.tensor, map_(r.indices), r.value, r.loc, r.tag) : m;
  }
  StmtP mutateFor(const StmtP& s) override {
    auto& f = static_cast<const For&>(*s);
    std::vector<LocalTensor> locals = f.locals;
    for (auto& l : locals)
      if (l.decl.name == tensor_) {
        l.decl.shape = shape_;
        found = true;
      }
    return makeFor(f.id, f.var, mutate(f.begin), mutate(f.end), f.step, f.loopKind, mutate(f.body), locals);
  }

 private:
  std::string tensor_;
  IndexMap map_;
  std::vector<int64_t> shape_;
};

const TensorDecl& localDecl(const StmtP& nest, const std::string& tensor, const std::string& what) {
  const TensorDecl* d = nullptr;
  forEachStmt(nest, [&](const StmtP& s) {
    if (s->kind == StmtKind::For)
      for (auto& l : static_cast<const For&>(*s).locals)
        if (l.decl.name == tensor) d = &l.decl;
  });
  if (!d)
    throw ScheduleError(what + ": '" + tensor + "' is not local to a loop of this nest; a program tensor's layout is "
                        "fixed by its inputs and outputs (make it local first with local(...) or cache(...))");
  return *d;
}

void checkDim(const TensorDecl& d, int dim, int count, const std::string& what) {
  if (dim < 1 || dim + count - 1 > static_cast<int>(d.shape.size()))
    throw ScheduleError(what + ": '" + d.name + "' has " + std::to_string(d.shape.size()) + " dimensions; dimension " +
                        std::to_string(dim + count - 1) + " does not exist");
}

StmtP apply(const StmtP& nest, const std::string& tensor, Relayout::IndexMap map, std::vector<int64_t> shape) {
  Relayout r(tensor, std::move(map), std::move(shape));
  return r.mutate(nest);
}

}  // namespace

StmtP varReorder(const StmtP& nest, const std::string& tensor, const std::vector<int>& order) {
  const TensorDecl& d = localDecl(nest, tensor, "var_reorder");
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> want(d.shape.size());
  std::iota(want.begin(), want.end(), 1);
  if (sorted != want)
    throw ScheduleError("var_reorder: the order must name each of the " + std::to_string(d.shape.size()) +
                        " dimensions of '" + tensor + "' once");
  std::vector<int64_t> shape;
  for (int o : order) shape.push_back(d.shape[o - 1]);
  return apply(nest, tensor, [order](const std::vector<ExprP>& idx) {
    std::vector<ExprP> out;
    for (int o : order) out.push_back(idx[o - 1]);
    return out;
  }, shape);
}

StmtP varSplit(const StmtP& nest, const std::string& tensor, int dim, int64_t factor) {
  const TensorDecl& d = localDecl(nest, tensor, "var_split");
  checkDim(d, dim, 1, "var_split");
  if (factor < 1) throw ScheduleError("var_split: the factor must be positive");
  std::vector<int64_t> shape = d.shape;
  int64_t n = shape[dim - 1];
  shape[dim - 1] = (n + factor - 1) / factor;
  shape.insert(shape.begin() + dim, factor);
  return apply(nest, tensor, [dim, factor](const std::vector<ExprP>& idx) {
    std::vector<ExprP> out = idx;
    out[dim - 1] = floorDiv(idx[dim - 1], intConst(factor));
    out.insert(out.begin() + dim, binary(BinOp::Mod, idx[dim - 1], intConst(factor)));
    return out;
  }, shape);
}

StmtP varMerge(const StmtP& nest, const std::string& tensor, int dim) {
  const TensorDecl& d = localDecl(nest, tensor, "var_merge");
  checkDim(d, dim, 2, "var_merge");
  std::vector<int64_t> shape = d.shape;
  int64_t inner = shape[dim];
  shape[dim - 1] *= inner;
  shape.erase(shape.begin() + dim);
  return apply(nest, tensor, [dim, inner](const std::vector<ExprP>& idx) {
    std::vector<ExprP> out = idx;
    out[dim - 1] = add(mul(idx[dim - 1], intConst(inner)), idx[dim]);
    out.erase(out.begin() + dim);
    return out;
  }, shape);
}

}  // namespace teml::schedule
