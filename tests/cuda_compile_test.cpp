// CUDA C to cubins without a GPU: nvcc and NVRTC both accept what the
// emitter writes for every architecture teml knows, the cubin is kept in
// the kernel cache (a second compile of the same source takes it from
// there), and a run with no driver stops with exit 4 and says why.
#include <filesystem>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_emitter.hpp"
#include "frontend/freeform/freeform.hpp"
#include "lowering/lower.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "runtime/cuda_compile.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const char* kProgram = R"(import teml
@teml.transform
def f(x: teml.Var[(300,), "float32"], y: teml.Var[(300,), "float32", "output"], s: teml.Var[(), "float32", "output"]):
    #! label: L
    for i in range(300):
        y[i] = max(x[i], 0.0) * 2.0
        s[()] += x[i]
@teml.schedule(f)
def g(s):
    o, i = s.split("L", 64)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
)";

ir::Program lowered(const target::Target& t) {
  freeform::FreeformOptions o;
  o.target = t;
  o.autoSchedule = false;
  return lowering::lower(pipeline::compileFreeform(kProgram, o).program, t);
}

bool isElf(const std::string& image) { return image.size() > 4 && image.compare(0, 4, "\x7f" "ELF") == 0; }

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string freshCache(const std::string& tag) {
  std::string dir = cacheDir() + "-cubin-" + tag + "-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace

TEST(CudaCompile, NvccBuildsACubinForEveryArchitectureAndTheCacheKeepsIt) {
  if (runtime::findNvcc().empty()) GTEST_SKIP() << "nvcc is not installed (no CUDA toolkit)";
  for (const char* arch : {"sm_80", "sm_90", "sm_100"}) {
    SCOPED_TRACE(arch);
    target::Target t = target::cudaTarget(arch);
    ir::Program p = lowered(t);
    std::string dir = freshCache(arch);
    auto first = runtime::compileCubin(codegen::emitCuda(p, t), codegen::emitCudaKernels(p, t), t.gpu.arch(), dir);
    EXPECT_TRUE(first.compiledNow);
    EXPECT_TRUE(isElf(first.image));
    EXPECT_NE(first.compiler.find("nvcc release"), std::string::npos) << first.compiler;
    auto again = runtime::compileCubin(codegen::emitCuda(p, t), codegen::emitCudaKernels(p, t), t.gpu.arch(), dir);
    EXPECT_FALSE(again.compiledNow) << "the second compile of the same source comes from the cache";
    EXPECT_EQ(again.image, first.image);
    std::filesystem::remove_all(dir);
  }
}

TEST(CudaCompile, NvrtcBuildsTheKernelsWhereThereIsNoNvcc) {
  ScopedEnv noNvcc("TEML_NVCC", "none");
  target::Target t = target::cudaTarget("sm_90");
  ir::Program p = lowered(t);
  std::string dir = freshCache("nvrtc");
  runtime::Cubin c;
  try {
    c = runtime::compileCubin(codegen::emitCuda(p, t), codegen::emitCudaKernels(p, t), t.gpu.arch(), dir);
  } catch (const UnavailableError& e) {
    GTEST_SKIP() << e.what();
  }
  EXPECT_TRUE(c.compiledNow);
  EXPECT_TRUE(isElf(c.image));
  EXPECT_NE(c.compiler.find("NVRTC"), std::string::npos) << c.compiler;
  std::filesystem::remove_all(dir);
}

TEST(CudaCompile, WithoutADriverARunStopsWithExitFourAndTheEmulatorIsNamed) {
  std::string file = cacheDir() + "-nodriver-" + std::to_string(::getpid()) + ".py";
  std::ofstream(file) << kProgram;
  auto r = runTeml("run " + file + " --target cuda --random 1");
  std::remove(file.c_str());
  if (r.status == 0) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_EQ(r.status, 4) << r.out;
  EXPECT_NE(r.out.find("--emulate"), std::string::npos) << r.out;
}

TEST(CudaCompile, TheCommandLineChecksItsCudaOptions) {
  EXPECT_EQ(runTeml("run x.py --emulate").status, 2);
  EXPECT_NE(runTeml("run x.py --emulate").out.find("--target cuda"), std::string::npos);
  EXPECT_EQ(runTeml("run x.py --target gpu").status, 2);
  EXPECT_EQ(runTeml("run x.py --arch sm_90").status, 2);
  auto r = runTeml("emit " + std::string(TEML_SOURCE_DIR) + "/examples/mm/naive.teml --target cuda --arch sm_11");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("sm_90"), std::string::npos) << "names the architectures it knows\n" << r.out;
}
