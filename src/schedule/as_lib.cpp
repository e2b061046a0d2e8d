// as_lib: a loop nest that is a matrix product becomes a BLAS gemm call.
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

[[noreturn]] void notAProduct(const std::string& why) {
  throw ScheduleError("as_lib: the nest is not a matrix product C[i][j] += A[i][k] * B[k][j] (" + why + ")");
}

// The iterator names of a 2-d access whose indices are plain iterators.
std::pair<std::string, std::string> plainPair(const std::string& tensor, const std::vector<ExprP>& idx) {
  if (idx.size() != 2 || idx[0]->kind != ExprKind::Var || idx[1]->kind != ExprKind::Var)
    notAProduct("'" + tensor + "' must be indexed by two loop iterators");
  return {idx[0]->as<Var>().name, idx[1]->as<Var>().name};
}

}  // namespace

StmtP asLib(const StmtP& nest, const Program& program) {
  if (perfectDepth(nest) != 3) notAProduct("it needs exactly three perfectly nested loops");
  auto chain = loopsToLevel(nest, 3, "as_lib");
  std::map<std::string, int64_t> extent;
  for (auto* f : chain) {
    int64_t b, e;
    if (!constValue(f->begin, &b) || b != 0 || !constValue(f->end, &e) || f->step != 1)
      notAProduct("loop '" + f->var + "' must run from 0 with unit steps");
    if (f->loopKind.threads() || f->loopKind.lanes()) notAProduct("loop '" + f->var + "' is already parallel or vector");
    extent[f->var] = e;
  }
  StmtP body = singleChild(loopBody(*chain[2]));
  if (body->kind != StmtKind::Reduce) notAProduct("the body must be one += statement");
  auto& r = body->as<Reduce>();
  if (r.op != ReduceOp::Add || r.value->kind != ExprKind::Binary) notAProduct("the body must be one += statement");
  auto& mulE = r.value->as<Binary>();
  if (mulE.op != BinOp::Mul || mulE.a->kind != ExprKind::Load || mulE.b->kind != ExprKind::Load)
    notAProduct("the update must be a product of two tensor elements");
  auto [i, j] = plainPair(r.tensor, r.indices);
  std::string k;
  for (auto& [v, n] : extent)
    if (v != i && v != j) k = v;
  if (i == j || k.empty()) notAProduct("C must be indexed by two different iterators");
  auto* x = static_cast<const Load*>(mulE.a.get());
  auto* y = static_cast<const Load*>(mulE.b.get());
  auto px = plainPair(x->tensor, x->indices), py = plainPair(y->tensor, y->indices);
  auto has = [](const std::pair<std::string, std::string>& p, const std::string& a, const std::string& b) {
    return (p.first == a && p.second == b) || (p.first == b && p.second == a);
  };
  if (!has(px, i, k)) std::swap(x, y), std::swap(px, py);
  if (!has(px, i, k) || !has(py, k, j)) notAProduct("the factors must be indexed by (i, k) and (k, j)");
  const TensorDecl *c = program.find(r.tensor), *a = program.find(x->tensor), *b = program.find(y->tensor);
  if (!c || !a || !b || c->shape.size() != 2 || a->shape.size() != 2 || b->shape.size() != 2)
    notAProduct("all three tensors must be matrices");
  if (a->dtype != c->dtype || b->dtype != c->dtype) notAProduct("all three tensors must have one element type");
  if (c->dtype != DType::F32 && c->dtype != DType::F64)
    notAProduct("BLAS multiplies float32 or float64 matrices, and '" + r.tensor + "' is " + dtypeName(c->dtype));
  if (r.tensor == x->tensor || r.tensor == y->tensor) notAProduct("C must differ from A and B");
  int64_t transA = px.first == k, transB = py.first == j;
  return std::make_shared<LibCall>(
      "gemm", std::vector<std::string>{r.tensor, x->tensor, y->tensor},
      std::vector<int64_t>{transA, transB, extent[i], extent[j], extent[k], a->shape[1], b->shape[1], c->shape[1]},
      nest);
}

}  // namespace teml::schedule
