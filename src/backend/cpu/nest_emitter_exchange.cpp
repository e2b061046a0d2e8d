// An ir::Exchange as calls of the MPI helpers the C prelude defines
// (mpi_prelude.cpp): the boxes as a constant table, then one call.
#include <string>

#include "backend/cpu/mpi_prelude.hpp"
#include "backend/cpu/nest_emitter.hpp"
#include "diag/diagnostics.hpp"

namespace teml::codegen {

using namespace ir;

namespace {

std::string list(const std::vector<int64_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

// A scalar is moved as a tensor of one element.
std::vector<int64_t> orOne(const std::vector<int64_t>& v, int64_t one) {
  return v.empty() ? std::vector<int64_t>{one} : v;
}

// Boxes as rows of {from, to, lo[dims], hi[dims]}, the C prelude's layout.
std::string table(const std::vector<BoxTransfer>& boxes, int indent) {
  std::string rows;
  for (auto& b : boxes)
    rows += "\n" + std::string(2 * (indent + 2), ' ') + std::to_string(b.from) + ", " + std::to_string(b.to) + ", " +
            list(orOne(b.lo, 0)) + ", " + list(orOne(b.hi, 1)) + ",";
  return boxes.empty() ? " 0" : rows;
}

}  // namespace

void NestEmitter::emitExchange(const Exchange& x, int indent) {
  const TensorDecl* t = view_.find(x.tensor);
  if (!t) throw InternalError("code generation: an exchange of unknown tensor '" + x.tensor + "'");
  // A scalar in a register (the accumulator of a loop on threads that is
  // distributed too: lowering/parallel_reductions.cpp) is moved by its address.
  auto reg = registers_.find(x.tensor);
  std::string name = reg != registers_.end() ? "&" + reg->second.ref : tensorNames_.at(x.tensor);
  std::string tag = "teml_x" + std::to_string(x.index);
  std::string shape = list(orOne(t->shape, 1));
  std::string dims = std::to_string(std::max<size_t>(1, t->shape.size()));
  std::string elem = std::to_string(bytes(t->dtype));
  line(indent, "{ /* " + std::string(exchangeKindName(x.kind)) + " of " + x.tensor + " */");
  line(indent + 1, "static const long shape[] = {" + shape + "};");
  std::string head = std::to_string(x.index) + ", (char *)" + name + ", shape, " + dims + ", " + elem;
  bool start = x.kind == ExchangeKind::ReductionStart || x.kind == ExchangeKind::OwnersReductionStart;
  bool owners = x.kind == ExchangeKind::OwnersReductionStart || x.kind == ExchangeKind::ReductionToOwners;
  if (start || owners || x.kind == ExchangeKind::Reduction) {
    line(indent + 1, "static const long box[] = {" + list(orOne(x.combined.lo, 0)) + ", " +
                         list(orOne(x.combined.hi, 1)) + "};");
    if (start || owners)
      line(indent + 1, std::string("static const ") + cType(t->dtype) + " identity = " +
                           mpiIdentity(t->dtype, x.op) + ";");
    std::string combine = ", " + mpiType(t->dtype) + ", " + mpiOp(t->dtype, x.op) + ", box";
    if (x.kind == ExchangeKind::ReductionStart) line(indent + 1, "teml_mpi_identity(" + head + ", box, &identity);");
    if (x.kind == ExchangeKind::Reduction) line(indent + 1, "teml_mpi_combine(" + head + combine + ");");
    if (owners) line(indent + 1, "static const long owners[] = {" + table(x.transfers, indent) + "};");
    if (x.kind == ExchangeKind::OwnersReductionStart)
      line(indent + 1, "teml_mpi_identity_unowned(" + head + ", box, &identity, owners);");
    if (x.kind == ExchangeKind::ReductionToOwners)
      line(indent + 1, "teml_mpi_reduce_to_owners(" + head + combine + ", &identity, owners);");
  } else if (x.kind == ExchangeKind::IndexedGather) {  // the rows of the plan its requests made
    line(indent + 1, "teml_mpi_indexed_gather(" + head + ");");
  } else {
    line(indent + 1, "static const long rows[] = {" + table(x.transfers, indent) + "};");
    std::string call = x.kind == ExchangeKind::HaloStart  ? "teml_mpi_exchange_start("
                       : x.kind == ExchangeKind::HaloWait ? "teml_mpi_exchange_wait("
                                                          : "teml_mpi_exchange(";
    if (x.kind == ExchangeKind::IndexedRequests)
      line(indent + 1, "teml_mpi_indexed_requests(" + std::to_string(x.index) + ", shape, " + dims + ", " +
                           std::to_string(x.transfers.size()) + ", rows, " + tensorNames_.at(x.namedRows) + ");");
    else
      line(indent + 1, call + head + ", " + std::to_string(x.transfers.size()) + ", rows);");
  }
  line(indent, "}");
}

}  // namespace teml::codegen
