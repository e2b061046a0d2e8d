// The C that generated code uses to move data between MPI ranks
// (ir::Exchange, docs/distributed.md): helpers that copy boxes of a
// row-major tensor, send and receive them, and combine reductions. The
// kernel calls MPI itself; the process that loads it has initialized MPI.
#pragma once
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::codegen {

// The helpers, and counters of the bytes each of `exchanges` exchanges sent
// and received (teml_mpi_sent, teml_mpi_received: read back for -v).
std::string mpiPrelude(int exchanges);
// C for an element type's MPI datatype, a reduction's MPI_Op and its identity.
std::string mpiType(ir::DType t);
std::string mpiOp(ir::DType t, ir::ReduceOp op);
std::string mpiIdentity(ir::DType t, ir::ReduceOp op);
// Compiler and linker flags for kernels that call MPI (empty when teml is
// built without MPI).
std::vector<std::string> mpiFlags();

}  // namespace teml::codegen
