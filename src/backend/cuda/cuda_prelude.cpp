#include "backend/cuda/cuda_prelude.hpp"

#include "codegen/c_text.hpp"

namespace teml::codegen {

namespace {

const char* const kHead = R"(#pragma nv_diag_suppress 177 /* helpers a kernel does not call */
#ifdef __CUDACC_RTC__
typedef int int32_t;
typedef long long int64_t;
#define INFINITY __int_as_float(0x7f800000)
#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)
#define NAN __int_as_float(0x7fffffff)
#else
#include <stdint.h>
#include <math.h>
#endif
#define _Bool bool
#define TEML_D static __device__ __forceinline__
#define TEML_HD static __host__ __device__ __forceinline__ /* the host code's expressions call these too */
)";

const char* const kRest = R"(TEML_D float teml_minf(float a, float b) { return b < a ? b : a; }
TEML_D float teml_maxf(float a, float b) { return b > a ? b : a; }
TEML_D double teml_mind(double a, double b) { return b < a ? b : a; }
TEML_D double teml_maxd(double a, double b) { return b > a ? b : a; }
TEML_D double teml_floordivd(double a, double b) { return floor(a / b); }
TEML_D float teml_floordivf(float a, float b) { return floorf(a / b); }
TEML_D double teml_modd(double a, double b) { return a - floor(a / b) * b; }
TEML_D float teml_modf(float a, float b) { return a - floorf(a / b) * b; }
TEML_HD double teml_exp(double a) { return exp(a); }
TEML_HD float teml_expf(float a) { return expf(a); }
TEML_D double teml_sigmoid(double a) { double e = exp(-fabs(a)); return a != a ? a : (a >= 0 ? 1 : e) / (1 + e); }
TEML_D float teml_sigmoidf(float a) { float e = expf(-fabsf(a)); return a != a ? a : (a >= 0 ? 1 : e) / (1 + e); }
/* Reductions that threads share: atomicAdd where there is an instruction,
   else compare-and-swap on the element's bits. op: 1 *, 2 max, 3 min.
   The lanes of a warp that add to one element at once first sum their
   values by shuffles (a tree for a whole warp, else the lowest of them
   gathers the others'), so that one atomic, not up to 32 serialized ones,
   reaches the element. */
TEML_D unsigned teml_lane() { unsigned lane; asm("mov.u32 %0, %%laneid;" : "=r"(lane)); return lane; }
template <typename T> TEML_D void teml_atomic_add_warp(T *p, T v) {
  unsigned peers = __match_any_sync(__activemask(), (unsigned long long)p);
  if (peers == 0xffffffffu) {
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if (teml_lane() == 0) atomicAdd(p, v);
    return;
  }
  unsigned first = __ffs(peers) - 1;
  T sum = v;
  for (unsigned rest = peers & (peers - 1); rest; rest &= rest - 1) {  /* every peer runs it: same mask */
    T other = __shfl_sync(peers, v, __ffs(rest) - 1);
    if (teml_lane() == first) sum += other;
  }
  if (teml_lane() == first) atomicAdd(p, sum);
}
TEML_D void teml_atomic_add(double *p, double v) { teml_atomic_add_warp(p, v); }
TEML_D void teml_atomic_add(float *p, float v) { teml_atomic_add_warp(p, v); }
TEML_D void teml_atomic_add(int32_t *p, long v) { atomicAdd((int *)p, (int)v); }
TEML_D void teml_atomic_add(int64_t *p, long v) { atomicAdd((unsigned long long *)p, (unsigned long long)v); }
TEML_D double teml_apply(int op, double x, double v) { return op == 1 ? x * v : op == 2 ? fmax(x, v) : fmin(x, v); }
TEML_D float teml_apply(int op, float x, float v) { return op == 1 ? x * v : op == 2 ? fmaxf(x, v) : fminf(x, v); }
TEML_D long teml_apply(int op, long x, long v) { return op == 1 ? x * v : op == 2 ? teml_max(x, v) : teml_min(x, v); }
TEML_D void teml_atomic(int op, double *p, double v) {
  unsigned long long *a = (unsigned long long *)p, old = *a, seen;
  do { seen = old; old = atomicCAS(a, seen, __double_as_longlong(teml_apply(op, __longlong_as_double(seen), v))); } while (seen != old);
}
TEML_D void teml_atomic(int op, float *p, float v) {
  unsigned int *a = (unsigned int *)p, old = *a, seen;
  do { seen = old; old = atomicCAS(a, seen, __float_as_uint(teml_apply(op, __uint_as_float(seen), v))); } while (seen != old);
}
TEML_D void teml_atomic(int op, int32_t *p, long v) {
  int *a = (int *)p, old = *a, seen;
  do { seen = old; old = atomicCAS(a, seen, (int)teml_apply(op, (long)seen, v)); } while (seen != old);
}
TEML_D void teml_atomic(int op, int64_t *p, long v) {
  unsigned long long *a = (unsigned long long *)p, old = *a, seen;
  do { seen = old; old = atomicCAS(a, seen, (unsigned long long)teml_apply(op, (long)seen, v)); } while (seen != old);
}
/* The first failed run-time check, read by the runtime after the kernels. */
struct teml_failure_t { int failed, line, col, message; long long value; };
__device__ teml_failure_t teml_failure;
TEML_D void teml_fail(int line, int col, int message, long long value) {
  if (atomicCAS(&teml_failure.failed, 0, 1) != 0) return;
  teml_failure.line = line; teml_failure.col = col; teml_failure.message = message; teml_failure.value = value;
}
)";

}  // namespace

std::string cudaPrelude() { return kHead + integerHelpers("TEML_HD") + kRest; }

}  // namespace teml::codegen
