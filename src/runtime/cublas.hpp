// cuBLAS (libcublas.so.13), loaded with dlopen the first time a CUDA
// program calls a library routine (a nest that as_lib made a gemm), so
// that teml builds and runs everything else without it. A missing library,
// or one that cannot start, is UnavailableError (exit 4).
#pragma once
#include <cstdint>

#include "runtime/cuda_driver.hpp"

namespace teml::runtime {

// A row-major product C[M][N] += op(A) op(B) as the column-major one
// cuBLAS computes, C^T += op(B)^T op(A)^T on the same memory: B's matrix
// first (transposed where B is), then A's, over N x M x K.
struct ColumnMajorGemm {
  bool transFirst, transSecond;  // of B, of A
  int64_t rows, cols, depth;     // N, M, K
};
ColumnMajorGemm columnMajorGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k);

class Cublas {
 public:
  struct Api;  // the library's entry points (the .cpp lists them)
  // The process's cuBLAS on the current context, loaded once; throws UnavailableError.
  static Cublas& get();

  // Row-major C[M][N] += op(A) op(B) on `stream` (a CUstream), as
  // cblas_?gemm(RowMajor, ...) with alpha = beta = 1: float (`single`)
  // or double, op(X) the transpose where asked, lda/ldb/ldc the row
  // strides. Exact float32 (no TF32), as the CPU's BLAS.
  void gemm(bool single, bool transA, bool transB, int64_t m, int64_t n, int64_t k, DevicePtr a, int64_t lda,
            DevicePtr b, int64_t ldb, DevicePtr c, int64_t ldc, void* stream);

  // The library's file, if it loads (for a check without a GPU: the
  // symbols bind; its handle needs a device).
  static const char* libraryFile();

 private:
  Cublas();
  Api* api_ = nullptr;
  void* handle_ = nullptr;  // cublasHandle_t
};

}  // namespace teml::runtime
