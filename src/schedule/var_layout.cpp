#include <algorithm>
#include <functional>
#include <numeric>

#include "schedule/access_rewrite.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

TensorDecl localDecl(const StmtP& nest, const std::string& tensor, const std::string& what) {
  for (auto& l : localTensorsIn(nest))
    if (l.tensor.decl.name == tensor) return l.tensor.decl;
  throw ScheduleError(what + ": '" + tensor + "' is not local to a loop of this nest; a program tensor's layout is "
                      "fixed by its inputs and outputs (make it local first with local(...) or cache(...))");
}

void checkDim(const TensorDecl& d, int dim, int count, const std::string& what) {
  if (dim < 1 || dim + count - 1 > static_cast<int>(d.shape.size()))
    throw ScheduleError(what + ": '" + d.name + "' has " + std::to_string(d.shape.size()) + " dimensions; dimension " +
                        std::to_string(dim + count - 1) + " does not exist");
}

StmtP apply(const StmtP& nest, const std::string& tensor, AccessRewrite::IndexMap map, std::vector<int64_t> shape) {
  AccessRewrite r(tensor, tensor, std::move(map), std::move(shape));
  return r.mutate(nest);
}

}  // namespace

StmtP varReorder(const StmtP& nest, const std::string& tensor, const std::vector<int>& order) {
  const TensorDecl d = localDecl(nest, tensor, "var_reorder");
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
  const TensorDecl d = localDecl(nest, tensor, "var_split");
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
  const TensorDecl d = localDecl(nest, tensor, "var_merge");
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
