#include "backend/cpu/c_emitter.hpp"

#include <sstream>

#include "codegen/c_names.hpp"
#include "codegen/c_text.hpp"
#include "backend/cpu/math_prelude.hpp"
#include "backend/cpu/mpi_prelude.hpp"
#include "backend/cpu/nest_emitter.hpp"
#include "ir/mutator.hpp"

namespace teml::codegen {

using namespace ir;

namespace {

// Under GCC the intrinsics below are spelled as the builtins that
// <immintrin.h> wraps: parsing that header took 0.4-0.9 s of every kernel's
// compile, longer than most kernels' own code (a CSR softmax's gradient).
// Other compilers (--cc clang) include the header.
std::string intrinsicsPrelude(int bytes) {
  std::string b = std::to_string(bytes);
  return "#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))\n"
         "#define TEML_GCC_BUILTINS 1\n"
         "typedef double teml_gd __attribute__((vector_size(" + b + ")));\n"
         "typedef float teml_gf __attribute__((vector_size(" + b + ")));\n"
         "typedef long long teml_gl __attribute__((vector_size(" + b + "), aligned(8), may_alias));\n"
         "typedef int teml_gi __attribute__((vector_size(" + b + "), aligned(4), may_alias));\n"
         "#elif defined(__x86_64__) || defined(__i386__)\n"
         "#include <immintrin.h>\n"
         "#endif\n";
}

// Non-temporal vector stores (teml_stream_vd/vf) of the instruction set the
// C compiler targets, or plain stores where it has none of the right width;
// and the fence that orders them.
std::string streamingPrelude(int bytes) {
  struct Isa {
    int bytes;
    const char* macro;
    const char* d;  // the intrinsic, and the builtin it wraps
    const char* dBuiltin;
    const char* f;
    const char* fBuiltin;
    const char* dt;
    const char* ft;
  };
  static const Isa isas[] = {
      {64, "__AVX512F__", "_mm512_stream_pd", "__builtin_ia32_movntpd512", "_mm512_stream_ps", "__builtin_ia32_movntps512", "__m512d", "__m512"},
      {32, "__AVX__", "_mm256_stream_pd", "__builtin_ia32_movntpd256", "_mm256_stream_ps", "__builtin_ia32_movntps256", "__m256d", "__m256"},
      {16, "__SSE2__", "_mm_stream_pd", "__builtin_ia32_movntpd", "_mm_stream_ps", "__builtin_ia32_movntps", "__m128d", "__m128"}};
  std::string s = "#if defined(__x86_64__) || defined(__i386__)\n"
                  "static inline void teml_store_fence(void) { __builtin_ia32_sfence(); }\n"
                  "#else\nstatic inline void teml_store_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }\n#endif\n";
  for (auto& i : isas) {
    if (i.bytes != bytes) continue;
    s += std::string("#if defined(") + i.macro + ") && defined(TEML_GCC_BUILTINS)\n" +
         "static inline void teml_stream_vd(double *p, teml_vd_aligned v) { " + i.dBuiltin + "(p, (teml_gd)v); }\n" +
         "static inline void teml_stream_vf(float *p, teml_vf_aligned v) { " + i.fBuiltin + "(p, (teml_gf)v); }\n" +
         "#elif defined(" + i.macro + ")\n" +
         "static inline void teml_stream_vd(double *p, teml_vd_aligned v) { " + i.d + "(p, (" + i.dt + ")v); }\n" +
         "static inline void teml_stream_vf(float *p, teml_vf_aligned v) { " + i.f + "(p, (" + i.ft + ")v); }\n" +
         "#else\n";
  }
  s += "static inline void teml_stream_vd(double *p, teml_vd_aligned v) { *(teml_vd_aligned *)p = v; }\n"
       "static inline void teml_stream_vf(float *p, teml_vf_aligned v) { *(teml_vf_aligned *)p = v; }\n";
  for (auto& i : isas)
    if (i.bytes == bytes) s += "#endif\n";
  return s + "\n";
}

// Vectors of half the target's width, for loops that stream through memory
// (lowering/cpu/half_vectors); only AVX-512 targets use them.
std::string halfVectorPrelude(int bytes) {
  if (bytes != 64) return "";
  return "typedef double teml_vd_half __attribute__((vector_size(32), aligned(8), may_alias));\n"
         "typedef float teml_vf_half __attribute__((vector_size(32), aligned(4), may_alias));\n";
}

// Masked vector loads and stores of the first n lanes (a vector loop's tail):
// lanes past n are neither read (they load as 0) nor written.
std::string maskedPrelude(int bytes) {
  std::string s;
  if (bytes == 64)
    s += "#if defined(__AVX512F__) && defined(TEML_GCC_BUILTINS)\n"
         "static inline teml_vd teml_mload_vd(const double *p, int n) { return (teml_vd)__builtin_ia32_loadupd512_mask(p, (teml_gd){0}, (unsigned char)((1u << n) - 1)); }\n"
         "static inline void teml_mstore_vd(double *p, teml_vd v, int n) { __builtin_ia32_storeupd512_mask(p, (teml_gd)v, (unsigned char)((1u << n) - 1)); }\n"
         "static inline teml_vf teml_mload_vf(const float *p, int n) { return (teml_vf)__builtin_ia32_loadups512_mask(p, (teml_gf){0}, (unsigned short)((1u << n) - 1)); }\n"
         "static inline void teml_mstore_vf(float *p, teml_vf v, int n) { __builtin_ia32_storeups512_mask(p, (teml_gf)v, (unsigned short)((1u << n) - 1)); }\n"
         "#elif defined(__AVX512F__)\n"
         "static inline teml_vd teml_mload_vd(const double *p, int n) { return (teml_vd)_mm512_maskz_loadu_pd((__mmask8)((1u << n) - 1), p); }\n"
         "static inline void teml_mstore_vd(double *p, teml_vd v, int n) { _mm512_mask_storeu_pd(p, (__mmask8)((1u << n) - 1), (__m512d)v); }\n"
         "static inline teml_vf teml_mload_vf(const float *p, int n) { return (teml_vf)_mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1), p); }\n"
         "static inline void teml_mstore_vf(float *p, teml_vf v, int n) { _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1), (__m512)v); }\n"
         "#else\n";
  if (bytes == 32)
    s += "#if defined(__AVX__)\n"
         "static const long long teml_lanes_d[8] = {-1, -1, -1, -1, 0, 0, 0, 0};\n"
         "static const int teml_lanes_f[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};\n"
         "#endif\n"
         "#if defined(__AVX__) && defined(TEML_GCC_BUILTINS)\n"
         "static inline teml_vd teml_mload_vd(const double *p, int n) { return (teml_vd)__builtin_ia32_maskloadpd256((const teml_gd *)p, *(const teml_gl *)(teml_lanes_d + 4 - n)); }\n"
         "static inline void teml_mstore_vd(double *p, teml_vd v, int n) { __builtin_ia32_maskstorepd256((teml_gd *)p, *(const teml_gl *)(teml_lanes_d + 4 - n), (teml_gd)v); }\n"
         "static inline teml_vf teml_mload_vf(const float *p, int n) { return (teml_vf)__builtin_ia32_maskloadps256((const teml_gf *)p, *(const teml_gi *)(teml_lanes_f + 8 - n)); }\n"
         "static inline void teml_mstore_vf(float *p, teml_vf v, int n) { __builtin_ia32_maskstoreps256((teml_gf *)p, *(const teml_gi *)(teml_lanes_f + 8 - n), (teml_gf)v); }\n"
         "#elif defined(__AVX__)\n"
         "static inline teml_vd teml_mload_vd(const double *p, int n) { return (teml_vd)_mm256_maskload_pd(p, _mm256_loadu_si256((const __m256i *)(teml_lanes_d + 4 - n))); }\n"
         "static inline void teml_mstore_vd(double *p, teml_vd v, int n) { _mm256_maskstore_pd(p, _mm256_loadu_si256((const __m256i *)(teml_lanes_d + 4 - n)), (__m256d)v); }\n"
         "static inline teml_vf teml_mload_vf(const float *p, int n) { return (teml_vf)_mm256_maskload_ps(p, _mm256_loadu_si256((const __m256i *)(teml_lanes_f + 8 - n))); }\n"
         "static inline void teml_mstore_vf(float *p, teml_vf v, int n) { _mm256_maskstore_ps(p, _mm256_loadu_si256((const __m256i *)(teml_lanes_f + 8 - n)), (__m256)v); }\n"
         "#else\n";
  s += "static inline teml_vd teml_mload_vd(const double *p, int n) { teml_vd v = {0}; for (int i = 0; i < n; i++) v[i] = p[i]; return v; }\n"
       "static inline void teml_mstore_vd(double *p, teml_vd v, int n) { for (int i = 0; i < n; i++) p[i] = v[i]; }\n"
       "static inline teml_vf teml_mload_vf(const float *p, int n) { teml_vf v = {0}; for (int i = 0; i < n; i++) v[i] = p[i]; return v; }\n"
       "static inline void teml_mstore_vf(float *p, teml_vf v, int n) { for (int i = 0; i < n; i++) p[i] = v[i]; }\n";
  if (bytes == 64 || bytes == 32) s += "#endif\n";
  return s + "\n";
}

// Keeps a vector in a register where it was loaded: GCC would otherwise fold
// the load into each operation that uses it (nest_emitter_shared_loads.cpp).
// Only where the machine has registers of the vectors' width: a kernel for
// wider vectors than the machine's (TEML_VECTOR_BYTES) still compiles.
std::string keepPrelude(int bytes) {
  std::string fits = bytes >= 64 ? "defined(__AVX512F__)" : bytes >= 32 ? "defined(__AVX__)" : "defined(__SSE2__)";
  return "#if defined(__x86_64__) && defined(__GNUC__) && " + fits + "\n"
         "#define teml_keep(v) __asm__(\"\" : \"+v\"(v))\n"
         "#else\n"
         "#define teml_keep(v) ((void)0)\n"
         "#endif\n\n";
}


}  // namespace

namespace {

bool callsBlas(const Program& program) {
  bool blas = false;
  for (auto& n : program.nests)
    forEachStmt(n, [&](const StmtP& s) { blas |= s->kind == StmtKind::LibCall; });
  return blas;
}

}  // namespace

std::vector<std::string> linkFlags(const Program& program) {
  std::vector<std::string> flags;
  if (callsBlas(program)) flags.push_back("-lopenblas");
  if (program.distribution.ranks > 1)
    for (auto& f : mpiFlags()) flags.push_back(f);
#if defined(__x86_64__)
  flags.push_back("-lmvec");  // glibc's vector math, declared in the preamble
#endif
  return flags;
}

std::string emitC(const Program& program, const target::Target& target) {
  std::ostringstream os;
  os << "/* Generated by teml. */\n"
        "#include <math.h>\n"
        "#include <stdint.h>\n"
        "#include <stdlib.h>\n"
        "#include <string.h>\n"
        "#ifdef _OPENMP\n#include <omp.h>\n#endif\n"
        "#if defined(__x86_64__) && defined(__GNUC__) && !defined(__FAST_MATH__)\n"
        "/* glibc's vector math (libmvec, within 4 ulp): the vectorizer may call it in SIMD loops. */\n"
        "#define TEML_SIMD __attribute__((__simd__(\"notinbranch\")))\n"
        "TEML_SIMD float logf(float); TEML_SIMD float sinf(float);\n"
        "TEML_SIMD float cosf(float); TEML_SIMD float tanhf(float);\n"
        "TEML_SIMD double log(double); TEML_SIMD double sin(double);\n"
        "TEML_SIMD double cos(double); TEML_SIMD double tanh(double);\n"
        "#endif\n\n"
        "#ifdef _OPENMP\nstatic inline int teml_thread(void) { return omp_get_thread_num(); }\n"
        "#else\nstatic inline int teml_thread(void) { return 0; }\n#endif\n"
        "/* A thread's private copy of an accumulator, kept for the next call: fresh memory costs a page fault per\n"
        "   4 KiB on first touch (a scatter-add's 1.28 MB copy: 0.7 -> 4.3 ms a call beside PyTorch's allocations). */\n"
        "enum { TEML_SPARE_SLOTS = 8 };\n"
        "static const size_t teml_spare_most = (size_t)64 << 20;\n"
        "static __thread void *teml_spare[TEML_SPARE_SLOTS];\n"
        "static __thread size_t teml_spare_bytes[TEML_SPARE_SLOTS];\n"
        "static inline void *teml_private_copy(int slot, size_t bytes) {\n"
        "  if (slot >= TEML_SPARE_SLOTS || bytes > teml_spare_most) return aligned_alloc(64, bytes);\n"
        "  if (teml_spare_bytes[slot] < bytes) {\n"
        "    free(teml_spare[slot]);\n"
        "    teml_spare[slot] = aligned_alloc(64, bytes);\n"
        "    teml_spare_bytes[slot] = teml_spare[slot] ? bytes : 0;\n"
        "  }\n"
        "  return teml_spare[slot];\n"
        "}\n"
        "static inline void teml_private_copy_done(int slot, void *copy, size_t bytes) {\n"
        "  if (slot >= TEML_SPARE_SLOTS || bytes > teml_spare_most) free(copy);\n"
        "}\n"
     << integerHelpers("static inline")
     << "/* int32 reductions' min and max in their own type: through teml_min's longs GCC does not vectorize them\n"
        "   (a range pass over 400,000 int32 indices took 430 us, 27 us so). */\n"
        "static inline int32_t teml_min_i32(int32_t a, int32_t b) { return a < b ? a : b; }\n"
        "static inline int32_t teml_max_i32(int32_t a, int32_t b) { return a > b ? a : b; }\n"
        "/* Python's min and max on floats (the first operand unless the second is less or greater): selects, which vectorize. */\n"
        "static inline float teml_minf(float a, float b) { return b < a ? b : a; }\n"
        "static inline float teml_maxf(float a, float b) { return b > a ? b : a; }\n"
        "static inline double teml_mind(double a, double b) { return b < a ? b : a; }\n"
        "static inline double teml_maxd(double a, double b) { return b > a ? b : a; }\n"
        "/* The same selects in bits, for loops GCC vectorizes: a branch's arms invite GCC's PRE to multiply through\n"
        "   them (SoftRas's clamps `t * dx`: 4 compares and 4 blends a segment); a mask and a blend do not. */\n"
        "#define TEML_SELECT_BITS(T, I, name, cmp) \\\n"
        "  static inline T name(T a, T b) { \\\n"
        "    union { T value; I bits; } x = {a}, y = {b}; \\\n"
        "    I take = -(I)(b cmp a); \\\n"
        "    x.bits = (y.bits & take) | (x.bits & ~take); \\\n"
        "    return x.value; \\\n"
        "  }\n"
        "TEML_SELECT_BITS(float, int32_t, teml_minf_lanes, <)\n"
        "TEML_SELECT_BITS(float, int32_t, teml_maxf_lanes, >)\n"
        "TEML_SELECT_BITS(double, int64_t, teml_mind_lanes, <)\n"
        "TEML_SELECT_BITS(double, int64_t, teml_maxd_lanes, >)\n"
        "/* Reductions' max and min: C's fmax and fmin (a NaN operand loses), as selects, which vectorize. */\n"
        "static inline float teml_fminf(float a, float b) { return b < a || a != a ? b : a; }\n"
        "static inline float teml_fmaxf(float a, float b) { return b > a || a != a ? b : a; }\n"
        "static inline double teml_fmind(double a, double b) { return b < a || a != a ? b : a; }\n"
        "static inline double teml_fmaxd(double a, double b) { return b > a || a != a ? b : a; }\n"
        "/* Run-time checks: the first failure is kept for teml_error (runtime::Kernel::run). */\n"
        "static int teml_failed;\n"
        "static int teml_fail_line, teml_fail_col;\n"
        "static const char *teml_fail_message;\n"
        "static long teml_fail_value;\n"
        "static void teml_fail(int line, int col, const char *message, long value) {\n"
        "  if (__atomic_exchange_n(&teml_failed, 1, __ATOMIC_SEQ_CST)) return;\n"
        "  teml_fail_line = line; teml_fail_col = col; teml_fail_message = message; teml_fail_value = value;\n"
        "}\n"
        "int teml_error(int *line, int *col, const char **message, long *value) {\n"
        "  if (!teml_failed) return 0;\n"
        "  *line = teml_fail_line; *col = teml_fail_col; *message = teml_fail_message; *value = teml_fail_value;\n"
        "  return 1;\n"
        "}\n"
        "static inline double teml_floordivd(double a, double b) { return floor(a / b); }\n"
        "static inline float teml_floordivf(float a, float b) { return floorf(a / b); }\n"
        "static inline double teml_modd(double a, double b) { return a - floor(a / b) * b; }\n"
        "static inline float teml_modf(float a, float b) { return a - floorf(a / b) * b; }\n"
     << mathPrelude()
     << "typedef double teml_vd __attribute__((vector_size(" << target.vectorBytes << "), aligned(8), may_alias));\n"
        "typedef float teml_vf __attribute__((vector_size(" << target.vectorBytes << "), aligned(4), may_alias));\n"
        "typedef double teml_vd_aligned __attribute__((vector_size(" << target.vectorBytes << "), may_alias));\n"
        "typedef float teml_vf_aligned __attribute__((vector_size(" << target.vectorBytes << "), may_alias));\n"
     << intrinsicsPrelude(target.vectorBytes) << halfVectorPrelude(target.vectorBytes) << streamingPrelude(target.vectorBytes)
     << maskedPrelude(target.vectorBytes) << keepPrelude(target.vectorBytes);
  bool blas = callsBlas(program);
  bool mpi = program.distribution.ranks > 1;
  int exchanges = 0;
  for (auto& n : program.nests) forEachStmt(n, [&](const StmtP& s) { exchanges += s->kind == StmtKind::Exchange; });
  if (mpi) os << mpiPrelude(exchanges);
  if (blas)
    os << "/* CBLAS (OpenBLAS): 101 row-major, 111 no transpose, 112 transpose. */\n"
          "void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);\n"
          "void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);\n"
          "void openblas_set_num_threads(int);\n\n";

  CNames global;
  std::map<std::string, std::string> cname;  // tensor -> C name
  for (auto& t : program.tensors) cname[t.name] = global.claim(t.name);

  std::vector<std::vector<const TensorDecl*>> params(program.nests.size());
  bool floatMinMaxDeclared = false;
  for (size_t k = 0; k < program.nests.size(); ++k) {
    auto used = tensorsAccessed(program.nests[k]);
    std::string sig;
    for (auto& t : program.tensors) {
      if (!used.count(t.name)) continue;
      params[k].push_back(&t);
      sig += std::string(sig.empty() ? "" : ", ") + paramDecl(t, cname[t.name]);
    }
    std::string name = "teml_nest_" + std::to_string(k + 1);
    const StmtP& nest = program.nests[k];
    NestEmitter em(program, target, cname, name, nest);
    std::string body = em.body(nest);
    // Reduction clauses of floats' max and min (nest_emitter.cpp), declared before the first that uses them.
    if (!floatMinMaxDeclared && (body + em.helpers()).find("reduction(teml_fm") != std::string::npos) {
      floatMinMaxDeclared = true;
      for (const char* op : {"teml_fminf : float : omp_out = teml_fminf", "teml_fmaxf : float : omp_out = teml_fmaxf",
                             "teml_fmind : double : omp_out = teml_fmind", "teml_fmaxd : double : omp_out = teml_fmaxd"})
        os << "#pragma omp declare reduction(" << op << "(omp_out, omp_in)) initializer(omp_priv = NAN)\n";
      os << "\n";
    }
    os << em.helpers() << "static void " << name << "(" << (sig.empty() ? "void" : sig) << ") {\n" << body << "}\n\n";
  }

  os << "void teml_entry(void **buffers, int nthreads) {\n"
        "#ifdef _OPENMP\n  if (nthreads > 0) omp_set_num_threads(nthreads);\n#endif\n"
        "  (void)nthreads;\n"
        "  teml_failed = 0;\n";
  if (mpi)
    os << "  MPI_Comm_rank(MPI_COMM_WORLD, &teml_rank);\n"
          "  memset(teml_mpi_sent, 0, sizeof teml_mpi_sent);\n"
          "  memset(teml_mpi_received, 0, sizeof teml_mpi_received);\n"
          "  memset(teml_mpi_asked, 0, sizeof teml_mpi_asked);\n";
  if (blas) os << "  if (nthreads > 0) openblas_set_num_threads(nthreads);\n";
  for (size_t k = 0; k < program.nests.size(); ++k) {
    os << "  teml_nest_" << k + 1 << "(";
    for (size_t i = 0; i < params[k].size(); ++i) {
      size_t slot = params[k][i] - program.tensors.data();
      os << (i ? ", " : "") << castTo(*params[k][i]) << "buffers[" << slot << "]";
    }
    os << ");\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace teml::codegen
