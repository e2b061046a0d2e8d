#include "backend/cpu/mpi_prelude.hpp"

#include "diag/diagnostics.hpp"

namespace teml::codegen {

using namespace ir;

std::string mpiPrelude(int exchanges) {
  std::string n = std::to_string(std::max(1, exchanges));
  return "#include <mpi.h>\n"
         "/* MPI (docs/distributed.md): this rank, and the bytes each exchange sent and received. */\n"
         "static int teml_rank;\n"
         "long teml_mpi_sent[" + n + "], teml_mpi_received[" + n + "];\n"
         "/* Copies box [lo, hi) of a row-major tensor into (pack) or out of a packed buffer, a row at a time. */\n"
         "static void teml_box_copy(char *t, const long *shape, int dims, int elem, const long *lo, const long *hi,\n"
         "                          char *packed, int pack) {\n"
         "  long idx[16], run = (hi[dims - 1] - lo[dims - 1]) * elem;\n"
         "  for (int d = 0; d < dims; d++) { if (hi[d] <= lo[d]) return; idx[d] = lo[d]; }\n"
         "  for (;;) {\n"
         "    long off = 0;\n"
         "    for (int d = 0; d < dims; d++) off = off * shape[d] + idx[d];\n"
         "    if (pack) memcpy(packed, t + off * elem, run); else memcpy(t + off * elem, packed, run);\n"
         "    packed += run;\n"
         "    int d = dims - 2;\n"
         "    while (d >= 0 && ++idx[d] == hi[d]) { idx[d] = lo[d]; d--; }\n"
         "    if (d < 0) return;\n"
         "  }\n"
         "}\n"
         "static long teml_box_elements(int dims, const long *lo, const long *hi) {\n"
         "  long n = 1;\n"
         "  for (int d = 0; d < dims; d++) n *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;\n"
         "  return n;\n"
         "}\n"
         "/* rows: n times {from, to, lo[dims], hi[dims]}; this rank sends the boxes it is `from` in and receives\n"
         "   those it is `to` in, all at once (messages of one sender arrive in the order sent). */\n"
         "static void teml_mpi_exchange(int id, char *t, const long *shape, int dims, int elem, int n, const long *rows) {\n"
         "  MPI_Request *requests = malloc(sizeof(MPI_Request) * (n + 1));\n"
         "  char **packed = calloc(n + 1, sizeof(char *));\n"
         "  MPI_Datatype element;\n"
         "  MPI_Type_contiguous(elem, MPI_BYTE, &element);\n"
         "  MPI_Type_commit(&element);\n"
         "  int waiting = 0;\n"
         "  for (int k = 0; k < n; k++) {\n"
         "    const long *r = rows + k * (2 + 2 * dims), *lo = r + 2, *hi = r + 2 + dims;\n"
         "    long count = teml_box_elements(dims, lo, hi);\n"
         "    if (count == 0 || r[0] == r[1]) continue;\n"
         "    if (r[1] == teml_rank) {\n"
         "      packed[k] = malloc(count * elem);\n"
         "      MPI_Irecv(packed[k], (int)count, element, (int)r[0], id, MPI_COMM_WORLD, &requests[waiting++]);\n"
         "      teml_mpi_received[id] += count * elem;\n"
         "    } else if (r[0] == teml_rank) {\n"
         "      packed[k] = malloc(count * elem);\n"
         "      teml_box_copy(t, shape, dims, elem, lo, hi, packed[k], 1);\n"
         "      MPI_Isend(packed[k], (int)count, element, (int)r[1], id, MPI_COMM_WORLD, &requests[waiting++]);\n"
         "      teml_mpi_sent[id] += count * elem;\n"
         "    }\n"
         "  }\n"
         "  MPI_Waitall(waiting, requests, MPI_STATUSES_IGNORE);\n"
         "  for (int k = 0; k < n; k++) {\n"
         "    const long *r = rows + k * (2 + 2 * dims);\n"
         "    if (packed[k] && r[1] == teml_rank) teml_box_copy(t, shape, dims, elem, r + 2, r + 2 + dims, packed[k], 0);\n"
         "    free(packed[k]);\n"
         "  }\n"
         "  MPI_Type_free(&element);\n"
         "  free(packed);\n"
         "  free(requests);\n"
         "}\n"
         "/* An indexed gather's plan: of the boxes in `rows` this rank receives, only the rows `named` marks (whole\n"
         "   rows of a row-major tensor), asked of each box's sender, and the rows each rank asked of this one. */\n"
         "struct teml_gather_plan {\n"
         "  _Bool *named;                  /* the marks the plan was made from */\n"
         "  int *ask, *asked, *askAt, *askedAt;\n"
         "  long *wanted, *wantedOfMe;      /* rows this rank asks for, by sender; rows asked of it, by asker */\n"
         "};\n"
         "static struct teml_gather_plan teml_gather_plans[" + n + "];\n"
         "long teml_mpi_asked[" + n + "];\n"
         "/* Each rank asks the sender of each box for its marked rows (two all-to-alls). The plan is kept while\n"
         "   no rank's marks change: a later call, or a time step after the loop's first, asks nothing again. */\n"
         "static void teml_mpi_indexed_requests(int id, const long *shape, int dims, int n, const long *rows,\n"
         "                                      const _Bool *named) {\n"
         "  struct teml_gather_plan *p = &teml_gather_plans[id];\n"
         "  int ranks, changed = !p->named || memcmp(p->named, named, shape[0] * sizeof(_Bool)) != 0;\n"
         "  MPI_Comm_size(MPI_COMM_WORLD, &ranks);\n"
         "  MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);\n"
         "  if (!changed) return;\n"
         "  if (!p->named) {\n"
         "    p->named = malloc(shape[0] * sizeof(_Bool) + 1);\n"
         "    p->ask = malloc(sizeof(int) * ranks), p->asked = malloc(sizeof(int) * ranks);\n"
         "    p->askAt = malloc(sizeof(int) * (ranks + 1)), p->askedAt = malloc(sizeof(int) * (ranks + 1));\n"
         "  }\n"
         "  memcpy(p->named, named, shape[0] * sizeof(_Bool));\n"
         "  free(p->wanted), free(p->wantedOfMe);\n"
         "  int *cursor = calloc(ranks, sizeof(int));\n"
         "  memset(p->ask, 0, sizeof(int) * ranks);\n"
         "  p->askAt[0] = p->askedAt[0] = 0;\n"
         "  for (int pass = 0; pass < 2; pass++) {\n"
         "    for (int k = 0; k < n; k++) {\n"
         "      const long *r = rows + k * (2 + 2 * dims);\n"
         "      if (r[1] != teml_rank || r[0] == teml_rank) continue;\n"
         "      for (long i = r[2]; i < r[2 + dims]; i++)\n"
         "        if (named[i]) { if (pass) p->wanted[p->askAt[r[0]] + cursor[r[0]]++] = i; else p->ask[r[0]]++; }\n"
         "    }\n"
         "    if (pass) break;\n"
         "    for (int q = 0; q < ranks; q++) p->askAt[q + 1] = p->askAt[q] + p->ask[q];\n"
         "    p->wanted = malloc(sizeof(long) * (p->askAt[ranks] + 1));\n"
         "  }\n"
         "  MPI_Alltoall(p->ask, 1, MPI_INT, p->asked, 1, MPI_INT, MPI_COMM_WORLD);\n"
         "  for (int q = 0; q < ranks; q++) p->askedAt[q + 1] = p->askedAt[q] + p->asked[q];\n"
         "  p->wantedOfMe = malloc(sizeof(long) * (p->askedAt[ranks] + 1));\n"
         "  MPI_Alltoallv(p->wanted, p->ask, p->askAt, MPI_LONG, p->wantedOfMe, p->asked, p->askedAt, MPI_LONG,\n"
         "                MPI_COMM_WORLD);\n"
         "  teml_mpi_asked[id]++;\n"
         "  free(cursor);\n"
         "}\n"
         "/* The rows of plan `id`: each rank sends the rows asked of it and receives those it asked for. */\n"
         "static void teml_mpi_indexed_gather(int id, char *t, const long *shape, int dims, int elem) {\n"
         "  struct teml_gather_plan *p = &teml_gather_plans[id];\n"
         "  int ranks;\n"
         "  MPI_Comm_size(MPI_COMM_WORLD, &ranks);\n"
         "  long row = elem;\n"
         "  for (int d = 1; d < dims; d++) row *= shape[d];\n"
         "  long out = p->askedAt[ranks], in = p->askAt[ranks];\n"
         "  char *sending = malloc(out * row + 1), *receiving = malloc(in * row + 1);\n"
         "  for (long i = 0; i < out; i++) memcpy(sending + i * row, t + p->wantedOfMe[i] * row, row);\n"
         "  MPI_Datatype whole;\n"
         "  MPI_Type_contiguous((int)row, MPI_BYTE, &whole);\n"
         "  MPI_Type_commit(&whole);\n"
         "  MPI_Alltoallv(sending, p->asked, p->askedAt, whole, receiving, p->ask, p->askAt, whole, MPI_COMM_WORLD);\n"
         "  MPI_Type_free(&whole);\n"
         "  for (long i = 0; i < in; i++) memcpy(t + p->wanted[i] * row, receiving + i * row, row);\n"
         "  teml_mpi_sent[id] += out * row;\n"
         "  teml_mpi_received[id] += in * row;\n"
         "  free(sending), free(receiving);\n"
         "}\n"
         "/* Sets box [lo, hi) to `identity`. */\n"
         "static void teml_box_fill(char *t, const long *shape, int dims, int elem, const long *lo, const long *hi,\n"
         "                          const void *identity) {\n"
         "  long count = teml_box_elements(dims, lo, hi);\n"
         "  char *packed = malloc(count * elem + 1);\n"
         "  for (long i = 0; i < count; i++) memcpy(packed + i * elem, identity, elem);\n"
         "  teml_box_copy(t, shape, dims, elem, lo, hi, packed, 0);\n"
         "  free(packed);\n"
         "}\n"
         "/* Ranks other than 0 start a reduction's box at the identity: the value the tensor had is counted once. */\n"
         "static void teml_mpi_identity(int id, char *t, const long *shape, int dims, int elem, const long *box,\n"
         "                              const void *identity) {\n"
         "  (void)id;\n"
         "  if (teml_rank != 0) teml_box_fill(t, shape, dims, elem, box, box + dims, identity);\n"
         "}\n"
         "/* The rows [first, last) rank q owns in a reduction to owners: entry q of `owners` ({q, q, lo, hi}). */\n"
         "static void teml_rows_owned(const long *owners, int dims, int q, long *first, long *last) {\n"
         "  const long *r = owners + q * (2 + 2 * dims);\n"
         "  *first = r[2], *last = r[2 + dims];\n"
         "}\n"
         "/* Each rank starts the rows of a reduction's box that it does not own at the identity. */\n"
         "static void teml_mpi_identity_unowned(int id, char *t, const long *shape, int dims, int elem, const long *box,\n"
         "                                      const void *identity, const long *owners) {\n"
         "  (void)id;\n"
         "  long first, last, lo[16], hi[16];\n"
         "  teml_rows_owned(owners, dims, teml_rank, &first, &last);\n"
         "  memcpy(lo, box, dims * sizeof(long)), memcpy(hi, box + dims, dims * sizeof(long));\n"
         "  hi[0] = first < box[dims] ? first : box[dims];  /* the rows before this rank's */\n"
         "  teml_box_fill(t, shape, dims, elem, lo, hi, identity);\n"
         "  lo[0] = last > box[0] ? last : box[0], hi[0] = box[dims];  /* and after */\n"
         "  teml_box_fill(t, shape, dims, elem, lo, hi, identity);\n"
         "}\n"
         "/* Owner-computes: each rank sends the rows of the box other ranks own that it changed (no longer the\n"
         "   identity), each with its number, in one all-to-all; each owner combines those it receives into its own,\n"
         "   in the order of the ranks. The box spans whole rows. */\n"
         "static void teml_mpi_reduce_to_owners(int id, char *t, const long *shape, int dims, int elem, MPI_Datatype type,\n"
         "                                      MPI_Op op, const long *box, const void *identity, const long *owners) {\n"
         "  int ranks;\n"
         "  MPI_Comm_size(MPI_COMM_WORLD, &ranks);\n"
         "  long width = 1;\n"
         "  for (int d = 1; d < dims; d++) width *= shape[d];\n"
         "  long row = width * elem, slot = (long)sizeof(long) + row;\n"
         "  char *unchanged = malloc(row);\n"
         "  for (long k = 0; k < width; k++) memcpy(unchanged + k * elem, identity, elem);\n"
         "  int *out = calloc(ranks, sizeof(int)), *in = malloc(sizeof(int) * ranks);\n"
         "  int *outAt = malloc(sizeof(int) * (ranks + 1)), *inAt = malloc(sizeof(int) * (ranks + 1));\n"
         "  char *sending = NULL;\n"
         "  for (int pass = 0; pass < 2; pass++) {\n"
         "    for (int q = 0; q < ranks; q++) {\n"
         "      long first, last, n = 0;\n"
         "      teml_rows_owned(owners, dims, q, &first, &last);\n"
         "      if (q == teml_rank) continue;\n"
         "      for (long i = first > box[0] ? first : box[0]; i < last && i < box[dims]; i++) {\n"
         "        if (memcmp(t + i * row, unchanged, row) == 0) continue;\n"
         "        if (pass) {\n"
         "          char *at = sending + (outAt[q] + n) * slot;\n"
         "          memcpy(at, &i, sizeof(long)), memcpy(at + sizeof(long), t + i * row, row);\n"
         "        }\n"
         "        n++;\n"
         "      }\n"
         "      out[q] = (int)n;\n"
         "    }\n"
         "    outAt[0] = 0;\n"
         "    for (int q = 0; q < ranks; q++) outAt[q + 1] = outAt[q] + out[q];\n"
         "    if (!pass) sending = malloc(outAt[ranks] * slot + 1);\n"
         "  }\n"
         "  MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);\n"
         "  inAt[0] = 0;\n"
         "  for (int q = 0; q < ranks; q++) inAt[q + 1] = inAt[q] + in[q];\n"
         "  char *receiving = malloc(inAt[ranks] * slot + 1);\n"
         "  MPI_Datatype numbered;\n"
         "  MPI_Type_contiguous((int)slot, MPI_BYTE, &numbered);\n"
         "  MPI_Type_commit(&numbered);\n"
         "  MPI_Alltoallv(sending, out, outAt, numbered, receiving, in, inAt, numbered, MPI_COMM_WORLD);\n"
         "  MPI_Type_free(&numbered);\n"
         "  for (long k = 0; k < inAt[ranks]; k++) {\n"
         "    long i;\n"
         "    memcpy(&i, receiving + k * slot, sizeof(long));\n"
         "    MPI_Reduce_local(receiving + k * slot + sizeof(long), t + i * row, (int)width, type, op);\n"
         "  }\n"
         "  teml_mpi_sent[id] += outAt[ranks] * slot;\n"
         "  teml_mpi_received[id] += inAt[ranks] * slot;\n"
         "  free(unchanged), free(out), free(in), free(outAt), free(inAt), free(sending), free(receiving);\n"
         "}\n"
         "/* A reduction's box combined over every rank, in every rank. */\n"
         "static void teml_mpi_combine(int id, char *t, const long *shape, int dims, int elem, MPI_Datatype type, MPI_Op op,\n"
         "                             const long *box) {\n"
         "  long count = teml_box_elements(dims, box, box + dims);\n"
         "  if (count == 0) return;\n"
         "  char *packed = malloc(count * elem);\n"
         "  teml_box_copy(t, shape, dims, elem, box, box + dims, packed, 1);\n"
         "  MPI_Allreduce(MPI_IN_PLACE, packed, (int)count, type, op, MPI_COMM_WORLD);\n"
         "  teml_box_copy(t, shape, dims, elem, box, box + dims, packed, 0);\n"
         "  teml_mpi_sent[id] += count * elem;\n"
         "  teml_mpi_received[id] += count * elem;\n"
         "  free(packed);\n"
         "}\n\n";
}

std::string mpiType(DType t) {
  switch (t) {
    case DType::Bool: return "MPI_C_BOOL";
    case DType::I32: return "MPI_INT32_T";
    case DType::I64: return "MPI_INT64_T";
    case DType::F32: return "MPI_FLOAT";
    case DType::F64: return "MPI_DOUBLE";
  }
  return "MPI_BYTE";
}

std::string mpiOp(DType t, ReduceOp op) {
  // Bools: += and max= are "or", *= and min= "and" (as the C emitter's reductions).
  if (t == DType::Bool) return op == ReduceOp::Add || op == ReduceOp::Max ? "MPI_LOR" : "MPI_LAND";
  switch (op) {
    case ReduceOp::Add: return "MPI_SUM";
    case ReduceOp::Mul: return "MPI_PROD";
    case ReduceOp::Max: return "MPI_MAX";
    case ReduceOp::Min: return "MPI_MIN";
  }
  return "MPI_SUM";
}

std::string mpiIdentity(DType t, ReduceOp op) {
  bool boolean = t == DType::Bool;
  switch (op) {
    case ReduceOp::Add: return "0";
    case ReduceOp::Mul: return "1";
    case ReduceOp::Max:
      return boolean ? "0" : t == DType::I32 ? "INT32_MIN" : t == DType::I64 ? "INT64_MIN" : "-INFINITY";
    case ReduceOp::Min:
      return boolean ? "1" : t == DType::I32 ? "INT32_MAX" : t == DType::I64 ? "INT64_MAX" : "INFINITY";
  }
  return "0";
}

std::vector<std::string> mpiFlags() {
#ifdef TEML_MPI_INCLUDE
  return {std::string("-I") + TEML_MPI_INCLUDE, TEML_MPI_LIBRARY};
#else
  return {};
#endif
}

}  // namespace teml::codegen
