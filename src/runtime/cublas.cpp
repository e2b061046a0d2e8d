#include "runtime/cublas.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "diag/diagnostics.hpp"

namespace teml::runtime {

// cublas_api.h's entry points teml calls, typed by hand: teml builds
// without CUDA's headers.
struct Cublas::Api {
  int (*create)(void**);
  int (*setStream)(void*, void*);
  int (*sgemm)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*, float*,
               int);
  int (*dgemm)(void*, int, int, int, int, int, const double*, const double*, int, const double*, int, const double*,
               double*, int);
};

namespace {

constexpr int kOpN = 0, kOpT = 1;  // cublasOperation_t

// libcublas.so.13 where the loader finds it, else in the toolkit.
void* openLibrary(std::string* file) {
  std::string home = std::getenv("CUDA_HOME") ? std::getenv("CUDA_HOME") : "/usr/local/cuda";
  for (std::string name : {std::string("libcublas.so.13"), home + "/lib64/libcublas.so.13", std::string("libcublas.so"),
                           home + "/lib64/libcublas.so"}) {
    if (void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      *file = name;
      return library;
    }
  }
  return nullptr;
}

template <class F>
void bind(void* library, F*& slot, const char* name) {
  slot = reinterpret_cast<F*>(dlsym(library, name));
  if (!slot) throw UnavailableError(std::string("--target cuda: cuBLAS lacks ") + name);
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

const char* Cublas::libraryFile() {
  static std::string file;
  static void* library = openLibrary(&file);
  return library ? file.c_str() : nullptr;
}

Cublas::Cublas() {
  std::string file;
  void* library = openLibrary(&file);
  if (!library)
    throw UnavailableError("--target cuda: a library call (as_lib) needs cuBLAS, and libcublas.so.13 did not load; "
                           "install the CUDA toolkit's cuBLAS, or leave the nest to teml's kernels");
  api_ = new Api{};
  bind(library, api_->create, "cublasCreate_v2");
  bind(library, api_->setStream, "cublasSetStream_v2");
  bind(library, api_->sgemm, "cublasSgemm_v2");
  bind(library, api_->dgemm, "cublasDgemm_v2");
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
