// What the CUDA host code calls: the one interface between the host code
// the emitter prints (plain C, compiled by the system C compiler, and the
// same text `teml emit --target cuda` shows) and whoever runs it: the CUDA
// runtime (backend/cuda/cuda_kernel) or the GPU emulator
// (backend/cuda/cuda_emulation). The declaration is written once, below,
// and both compiled here and printed into the generated code.
#pragma once
#include <exception>
#include <string>

// Every entry returns nonzero on failure, after the runner has kept why;
// the host code then returns 1 at once.
#define TEML_CUDA_HOST_DECLARATION                                                                                   \
  struct teml_cuda_host {                                                                                            \
    void *context;                                                                                                   \
    /* runs __global__ function `kernel` on grid x block threads; args: a pointer to each argument's value */        \
    int (*launch)(void *context, const char *kernel, const long *grid, const long *block, long shared_bytes,         \
                  void **args, long argument_count);                                                                 \
    /* a tensor of global memory between kernels, all zeros (null: failed); tensor: hostTensorKey's */               \
    void *(*allocate)(void *context, const char *tensor, long bytes);                                                \
    void (*release)(void *context, void *pointer);                                                                   \
    /* row-major C[m][n] += op(A) op(B), as cblas_?gemm; single: float, else double */                               \
    int (*gemm)(void *context, int single, int trans_a, int trans_b, long m, long n, long k, void *a, long lda,       \
                void *b, long ldb, void *c, long ldc);                                                               \
    /* a run-time check of the host failed */                                                                        \
    int (*fail)(void *context, int line, int col, const char *message, long value);                                  \
  }

#define TEML_CUDA_HOST_TEXT2(...) #__VA_ARGS__
#define TEML_CUDA_HOST_TEXT(...) TEML_CUDA_HOST_TEXT2(__VA_ARGS__)

namespace teml::backend {

extern "C" {
TEML_CUDA_HOST_DECLARATION;
// The generated entry: buffers are the program's tensors in declaration order.
using CudaHostEntry = int (*)(void** buffers, const teml_cuda_host* host);
}

// The declaration as the generated code prints it.
inline constexpr const char* kCudaHostDeclaration = TEML_CUDA_HOST_TEXT(TEML_CUDA_HOST_DECLARATION);

// How the host code names a tensor it allocates: NAME@NEST.ID, the
// definition's nest (from 1) and statement id, one definition of the
// program (a name alone may be defined in several nests, with other shapes).
inline std::string hostTensorKey(const std::string& name, size_t nest, const std::string& id) {
  return name + "@" + std::to_string(nest + 1) + "." + id;
}

// What a runner of the host code keeps of a failure: no C++ exception may
// unwind through the C code, so each entry catches it, keeps it and
// returns 1; the runner rethrows it when the host code has returned.
class HostFailures {
 public:
  // `f()`, 0; or 1 with its exception kept.
  template <class F>
  int guarded(F&& f) {
    try {
      f();
      return 0;
    } catch (...) {
      error_ = std::current_exception();
      return 1;
    }
  }
  // A run-time check of the host failed at line:col (the `fail` entry).
  int failed(int line, int col, const char* message, long value);
  // After the host code returned nonzero: what went wrong.
  [[noreturn]] void rethrow(const char* runner) const;

 private:
  std::exception_ptr error_;
};

}  // namespace teml::backend
