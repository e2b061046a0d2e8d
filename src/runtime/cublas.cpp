#include "runtime/cublas.hpp"

#include <cstdlib>
#include <mutex>
#include <string>

#include "diag/diagnostics.hpp"
#include "runtime/dynamic_library.hpp"

namespace teml::runtime {

// cublas_api.h's entry points teml calls, typed by hand: teml builds
// without CUDA's headers.
#define TEML_CUBLAS_API(X)                                                                                         \
  X(int, create, "cublasCreate_v2", (void**))                                                                      \
  X(int, setStream, "cublasSetStream_v2", (void*, void*))                                                          \
  X(int, sgemm, "cublasSgemm_v2",                                                                                  \
    (void*, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*, float*, int)) \
  X(int, dgemm, "cublasDgemm_v2",                                                                                  \
    (void*, int, int, int, int, int, const double*, const double*, int, const double*, int, const double*, double*, int))

struct Cublas::Api {
  TEML_CUBLAS_API(TEML_ENTRY_FIELD)
};

namespace {

constexpr int kOpN = 0, kOpT = 1;  // cublasOperation_t

// libcublas.so.13 where the loader finds it, else in the toolkit.
const DynamicLibrary& library() {
  static const DynamicLibrary cublas = [] {
    std::string home = std::getenv("CUDA_HOME") ? std::getenv("CUDA_HOME") : "/usr/local/cuda";
    return DynamicLibrary(
        {"libcublas.so.13", home + "/lib64/libcublas.so.13", "libcublas.so", home + "/lib64/libcublas.so"});
  }();
  return cublas;
}

const char* bindEntries(const DynamicLibrary& library, Cublas::Api& api) {
  TEML_CUBLAS_API(TEML_ENTRY_BIND)
  return nullptr;
}

void check(int status, const char* what) {
  if (status != 0)
    throw UnavailableError(std::string("--target cuda: cuBLAS failed in ") + what + " (cublasStatus_t " +
                           std::to_string(status) + ")");
}

}  // namespace

ColumnMajorGemm columnMajorGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k) {
  return {transB, transA, n, m, k};
}

const char* Cublas::libraryFile() { return library().loaded() ? library().file().c_str() : nullptr; }

Cublas::Cublas() {
  if (!library().loaded())
    throw UnavailableError("--target cuda: a library call (as_lib) needs cuBLAS, and libcublas.so.13 did not load; "
                           "install the CUDA toolkit's cuBLAS, or leave the nest to teml's kernels");
  api_ = new Api{};
  if (const char* missing = bindEntries(library(), *api_))
    throw UnavailableError(std::string("--target cuda: cuBLAS lacks ") + missing);
  check(api_->create(&handle_), "cublasCreate");
}

Cublas& Cublas::get() {
  CudaDriver::get();  // the primary context first: cuBLAS runs on it
  static std::once_flag once;
  static Cublas* instance = nullptr;
  std::call_once(once, [] { instance = new Cublas(); });  // a failure is thrown again at the next call
  return *instance;
}

void Cublas::gemm(bool single, bool transA, bool transB, int64_t m, int64_t n, int64_t k, DevicePtr a, int64_t lda,
                  DevicePtr b, int64_t ldb, DevicePtr c, int64_t ldc, void* stream) {
  check(api_->setStream(handle_, stream), "cublasSetStream");
  ColumnMajorGemm g = columnMajorGemm(transA, transB, m, n, k);
  int first = g.transFirst ? kOpT : kOpN, second = g.transSecond ? kOpT : kOpN;
  auto i = [](int64_t v) { return static_cast<int>(v); };
  if (single) {
    const float one = 1;
    check(api_->sgemm(handle_, first, second, i(g.rows), i(g.cols), i(g.depth), &one, reinterpret_cast<const float*>(b),
                      i(ldb), reinterpret_cast<const float*>(a), i(lda), &one, reinterpret_cast<float*>(c), i(ldc)),
          "cublasSgemm");
  } else {
    const double one = 1;
    check(api_->dgemm(handle_, first, second, i(g.rows), i(g.cols), i(g.depth), &one, reinterpret_cast<const double*>(b),
                      i(ldb), reinterpret_cast<const double*>(a), i(lda), &one, reinterpret_cast<double*>(c), i(ldc)),
          "cublasDgemm");
  }
}

}  // namespace teml::runtime
