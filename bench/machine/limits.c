/* This machine's limits for bench/freetensor.md: the float32 FMA peak and
 * the memory bandwidth (a STREAM triad), both on the threads OpenMP is given;
 * with TABLE_BYTES ROW_BYTES, also the rate of gathered rows: rows of a table
 * that size read at random indices and summed, fetched 16 rows ahead (what
 * a loop over GAT's edges does at best).
 *   gcc -O3 -march=native -fopenmp limits.c -o limits && OMP_NUM_THREADS=2 ./limits [TABLE_BYTES ROW_BYTES]
 * prints {"fma_gflops": ..., "triad_gbs": ...[, "gather_rows_per_s": ...]}: the best of several repetitions. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

typedef float v8 __attribute__((vector_size(32)));
/* The FMA peak on the widest vectors the machine has: a core with 512-bit
 * units (Zen 5, Intel's) does twice the work of 256-bit vectors; one that
 * runs them as two halves (Zen 4) the same. */
#ifdef __AVX512F__
enum { PEAK_LANES = 16 };
#else
enum { PEAK_LANES = 8 };
#endif
typedef float vpeak __attribute__((vector_size(4 * PEAK_LANES)));
typedef float v8u __attribute__((vector_size(32), aligned(4)));
enum { CHAINS = 12 };  /* independent FMA chains: more than latency x units, so the units never wait */

static double now(void) { return omp_get_wtime(); }

static double fma_peak(long iters) {
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    double sink = 0, t0 = now();
#pragma omp parallel reduction(+ : sink)
    {
      vpeak acc[CHAINS], a = {0}, b = {0};
      for (int c = 0; c < CHAINS; ++c) acc[c] = (vpeak){0} + (float)c;
      a += 0.999999f;
      b += 1e-7f;
      for (long i = 0; i < iters; ++i)
        for (int c = 0; c < CHAINS; ++c) acc[c] = acc[c] * a + b;  /* contracted to one vfmadd */
      for (int c = 0; c < CHAINS; ++c)
        for (int l = 0; l < PEAK_LANES; ++l) sink += acc[c][l];
    }
    double t = now() - t0;
    double flops = 2.0 * PEAK_LANES * CHAINS * iters * omp_get_max_threads();
    if (flops / t > best) best = flops / t;
    if (sink == 42) puts("");  /* keeps the loop alive */
  }
  return best / 1e9;
}

static double triad(long n) {
  float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float)), *c = malloc(n * sizeof(float));
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) a[i] = 0, b[i] = 1, c[i] = 2;  /* first touch by the thread that uses it */
  double best = 0;
  for (int rep = 0; rep < 10; ++rep) {
    double t0 = now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
    double t = now() - t0;
    double bytes = 3.0 * n * sizeof(float);  /* STREAM's count: two reads, one write */
    if (bytes / t > best) best = bytes / t;
  }
  if (a[n / 2] != 7) puts("triad: wrong result");
  free(a), free(b), free(c);
  return best / 1e9;
}

static double gathers(long table_bytes, long row_bytes) {
  /* n gathers through 2^18 random row numbers (1 MB, as a layer's index
   * tensors), read again and again: 2^23 of them (32 MB) streamed from memory
   * took the table's place in a 32 MB L3 and measured a rate that an
   * embedding bag over the same table beat by half again (AMD Zen 4). */
  long rows = table_bytes / row_bytes, width = row_bytes / 4, n = 1L << 23, m = 1L << 18;
  /* The table on huge pages, as NumPy's large arrays are (madvise): on 4 KiB
   * pages a random row costs a TLB miss as well, which the layers do not pay. */
  long huge = 2L << 20, table_size = (rows * row_bytes + huge - 1) / huge * huge;
  float *table = aligned_alloc(huge, table_size);
  madvise(table, table_size, MADV_HUGEPAGE);
  int *index = malloc(m * sizeof(int));
#pragma omp parallel for schedule(static)
  for (long i = 0; i < rows * width; ++i) table[i] = 1;
  unsigned long x = 88172645463325252UL;
  for (long i = 0; i < m; ++i) {  /* xorshift: uniform rows */
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    index[i] = (int)(x % (unsigned long)rows);
  }
  double best = 0, total = 0;
  for (int rep = 0; rep < 5; ++rep) {
    double t0 = now();
#pragma omp parallel reduction(+ : total)
    {
      /* A sum per 8-float piece of the row, so that no chain of dependent adds bounds the loop: only the gathers. */
      v8 acc[8] = {{0}};
      float tail = 0;
#pragma omp for schedule(static)
      for (long i = 0; i < n; ++i) {
        if (i + 16 < n)
          for (long l = 0; l < row_bytes; l += 64) __builtin_prefetch((char *)&table[index[(i + 16) & (m - 1)] * width] + l, 0, 3);
        const float *row = &table[index[i & (m - 1)] * width];
        long k = 0;
        for (; k + 8 <= width; k += 8) acc[k / 8 % 8] += *(const v8u *)(row + k);
        for (; k < width; ++k) tail += row[k];
      }
      for (int c = 0; c < 8; ++c)
        for (int l = 0; l < 8; ++l) total += acc[c][l];
      total += tail;
    }
    double t = now() - t0;
    if (n / t > best) best = n / t;
  }
  if (total != 5.0 * n * width) puts("gathers: wrong result");
  free(table), free(index);
  return best;
}

int main(int argc, char **argv) {
  double f = fma_peak(200000000 / CHAINS);
  double m = triad(64L << 20);  /* 3 x 256 MiB, far beyond the caches */
  printf("{\"threads\": %d, \"fma_gflops\": %.1f, \"triad_gbs\": %.1f", omp_get_max_threads(), f, m);
  if (argc == 3) printf(", \"gather_rows_per_s\": %.4g", gathers(atol(argv[1]), atol(argv[2])));
  printf("}\n");
  return 0;
}
