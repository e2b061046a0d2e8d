// The CUDA target without a GPU: programs scheduled on blocks and threads
// compile to a cubin with nvcc (no errors, no spills) and give the
// interpreter's results in the GPU emulator; schedules a GPU cannot run,
// or that need what is not built yet, are refused at the step or the
// statement; the emulator reports the races that a missing atomic or an
// unchecked schedule makes.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_emitter.hpp"
#include "frontend/freeform/freeform.hpp"
#include "backend/cuda/cuda_emulation.hpp"
#include "ir/printer.hpp"
#include "lowering/lower.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "runtime/cublas.hpp"
#include "runtime/cuda_compile.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

struct GpuProgram {
  std::string name;    // the file's name
  std::string source;  // its text: a docstring saying what it tests, then the program and its schedule
};

// The GPU test programs, tests/cuda/*.py in order (the device check runs them too).
const std::vector<GpuProgram>& programs() {
  static const std::vector<GpuProgram> all = [] {
    std::vector<GpuProgram> out;
    for (auto& e : std::filesystem::directory_iterator(std::string(TEML_SOURCE_DIR) + "/tests/cuda")) {
      if (e.path().extension() != ".py") continue;
      std::ifstream in(e.path());
      out.push_back({e.path().filename().string(), std::string(std::istreambuf_iterator<char>(in), {})});
    }
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
    return out;
  }();
  return all;
}

const std::string& program(const std::string& prefix) {
  for (auto& p : programs())
    if (p.name.rfind(prefix, 0) == 0) return p.source;
  throw std::runtime_error("no tests/cuda/" + prefix + "*.py");
}

freeform::FreeformOptions cudaOptions() {
  freeform::FreeformOptions o;
  o.target = target::cudaTarget();
  o.autoSchedule = false;
  return o;
}

ir::Program scheduledForCuda(const std::string& source) { return pipeline::compileFreeform(source, cudaOptions()).program; }

std::string temporaryPath(const std::string& suffix) {
  return cacheDir() + "-cuda-" + std::to_string(::getpid()) + suffix;
}

// nvcc's report of compiling `cuda` to a cubin for sm_90, and its exit status.
std::pair<int, std::string> nvccCubin(const std::string& cuda) {
  std::string source = temporaryPath(".cu"), cubin = temporaryPath(".cubin"), log = temporaryPath(".log");
  std::ofstream(source) << cuda;
  int status = std::system((runtime::findNvcc() + " -cubin -arch=sm_90 -Xptxas -v -o " + cubin + " " + source + " > " + log + " 2>&1").c_str());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(source.c_str());
  std::remove(cubin.c_str());
  std::remove(log.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, text};
}

bool haveNvcc() { return !runtime::findNvcc().empty(); }

runtime::BufferMap emulated(const ir::Program& lowered, runtime::BufferMap b) {
  runtime::JitOptions jit;
  jit.cacheDir = cacheDir();
  backend::emulateCuda(lowered, b, jit);
  return b;
}

// The element of `tensor` the emulator names in its report of a race.
std::string raceReport(const ir::Program& lowered, const runtime::BufferMap& inputs) {
  auto f = failureOf([&] { emulated(lowered, inputs); });
  return f.failed ? f.message : "";
}

runtime::BufferMap gpuInputs(const ir::Program& p) {
  runtime::BufferMap b = randomInputs(p);
  if (b.count("ptr")) {
    for (int64_t r = 0; r < b.at("ptr").size(); ++r) b.at("ptr").setInt(r, std::min<int64_t>(40, r * 4));
    for (int64_t k = 0; k < b.at("idx").size(); ++k) b.at("idx").setInt(k, (k * 7) % 10);
  }
  if (b.count("rowptr")) {  // rows of uneven lengths, some longer than a block's threads
    const int64_t lengths[] = {0, 1, 5, 31, 32, 33, 70, 3, 0, 55};
    int64_t at = 0;
    for (int64_t r = 0; r < b.at("rowptr").size(); ++r) {
      b.at("rowptr").setInt(r, at);
      if (r < 10) at += lengths[r];
    }
    for (int64_t k = 0; k < b.at("col").size(); ++k) b.at("col").setInt(k, (k * 7) % 10);
  }
  if (b.count("k"))
    for (int64_t i = 0; i < b.at("k").size(); ++i) b.at("k").setInt(i, (i * 37) % 101);
  return b;
}

}  // namespace

TEST(CudaTarget, EveryTestProgramGivesTheInterpretersResultsInTheEmulator) {
  for (auto& program : programs()) {
    SCOPED_TRACE(program.name);
    ir::Program p = scheduledForCuda(program.source);
    ir::Program lowered = lowering::lower(p, target::cudaTarget());
    auto inputs = gpuInputs(p);
    auto expected = runInterpreter(p, inputs), got = emulated(lowered, inputs);
    for (auto& name : driver::writtenTensors(p))
      EXPECT_LE(runtime::maxRelativeDifference(got.at(name), expected.at(name)), tolerance(p)) << name;
  }
}

TEST(CudaTarget, EveryTestProgramCompilesToACubinWithoutSpills) {
  if (!haveNvcc()) GTEST_SKIP() << "no nvcc on PATH, under $CUDA_HOME/bin or /usr/local/cuda/bin: no CUDA toolkit";
  for (auto& program : programs()) {
    SCOPED_TRACE(program.name);
    std::string cuda = backend::emitFor(scheduledForCuda(program.source), target::cudaTarget());
    auto [status, log] = nvccCubin(cuda);
    ASSERT_EQ(status, 0) << log << "\n" << cuda;
    EXPECT_EQ(log.find("error"), std::string::npos) << log;
    EXPECT_GT(occurrences(log, "bytes spill stores"), 0) << log;
    EXPECT_EQ(occurrences(log, "bytes spill stores"), occurrences(log, " 0 bytes spill stores, 0 bytes spill loads"))
        << log;
  }
}

TEST(CudaTarget, LoweringWritesKernelsAtomicsAndMemoryKindsIntoTheIr) {
  ir::Program lowered = lowering::lower(scheduledForCuda(program("01")), target::cudaTarget());
  std::string text = ir::toString(lowered, true);
  EXPECT_NE(text.find("blockIdx.x kernel(L.o, 128x1x1 threads, 0 B shared)"), std::string::npos) << text;
  EXPECT_NE(text.find("atomic s += "), std::string::npos) << text;
  EXPECT_EQ(text.find("atomic y"), std::string::npos) << "each thread stores its own element\n" << text;

  ir::Program host = lowering::lower(scheduledForCuda(program("04")), target::cudaTarget());
  text = ir::toString(host, true);
  EXPECT_NE(text.find("teml_thread"), std::string::npos) << "the store of the host runs in a kernel\n" << text;
  EXPECT_NE(text.find("kernel(teml_thread, 1x1x1 threads"), std::string::npos) << text;

  ir::Program local = lowering::lower(scheduledForCuda(program("07")), target::cudaTarget());
  EXPECT_NE(ir::toString(local, true).find("gpu/local"), std::string::npos) << ir::toString(local, true);
}

TEST(CudaTarget, TheEmitterLaunchesOneKernelPerBoundNestInsideTheHostsLoops) {
  std::string cuda = backend::emitFor(scheduledForCuda(program("03")), target::cudaTarget());
  EXPECT_EQ(occurrences(cuda, "__global__ void"), 2) << cuda;
  EXPECT_EQ(occurrences(cuda, "teml_host->launch("), 2) << cuda;
  auto loop = cuda.find("for (long t = 0; t < 4; t += 1) {");
  ASSERT_NE(loop, std::string::npos) << cuda;
  EXPECT_LT(loop, cuda.find("teml_host->launch(")) << cuda;
  EXPECT_NE(cuda.find("teml_block[3] = {64, 1, 1}"), std::string::npos) << cuda;
}

TEST(CudaTarget, ADeletedAtomicIsARaceTheEmulatorNamesWithBothStatementsAndTheElement) {
  ir::Program p = scheduledForCuda(program("01"));
  ir::Program lowered = lowering::lower(p, target::cudaTarget());
  struct NoAtomics : ir::Mutator {
    ir::StmtP mutateReduce(const ir::StmtP& s) override {
      auto& r = s->as<ir::Reduce>();
      return ir::makeReduce(r.op, r.tensor, r.indices, r.value, r.loc, r.tag, false);
    }
  };
  for (auto& n : lowered.nests) n = NoAtomics().mutate(n);
  std::string report = raceReport(lowered, gpuInputs(p));
  EXPECT_NE(report.find("data race on s[]"), std::string::npos) << report;
  EXPECT_NE(report.find("the statement at line 9 writes it"), std::string::npos) << report;
  EXPECT_NE(report.find("thread (1, 0, 0) of block (0, 0, 0)"), std::string::npos) << report;
}

TEST(CudaTarget, ADependenceAcrossThreadsIsRefusedByTheDependenceAnalysis) {
  const char* source = R"(import teml
@teml.transform
def f(a: teml.Var[(64,), "int64", "inout"]):
    #! label: L
    for i in range(1, 64):
        a[i] = a[i - 1] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L", "threadIdx.x")
)";
  auto f = failureOf([&] { scheduledForCuda(source); });
  EXPECT_EQ(f.loc.line, 9);
  EXPECT_NE(f.message.find("may read a[i - 1] while another writes a[i]"), std::string::npos) << f.message;
}

namespace {

// `schedule`'s steps in a schedule for every target, or for `scheduleTarget` only.
std::string refusal(const std::string& schedule, const target::Target& t = target::cudaTarget(),
                    const std::string& scheduleTarget = "") {
  std::string source = std::string(R"(import teml
@teml.transform
def f(x: teml.Var[(64, 64), "float64"], y: teml.Var[(64, 64), "float64", "output"]):
    #! label: Li
    for i in range(64):
        #! label: Lj
        for j in range(64):
            y[i, j] = x[i, j] * 2.0
@teml.schedule(f)") + (scheduleTarget.empty() ? "" : ", target=\"" + scheduleTarget + "\"") + R"()
def g(s):
)" + schedule;
  freeform::FreeformOptions o = cudaOptions();
  o.target = t;
  auto f = failureOf([&] { lowering::lower(pipeline::compileFreeform(source, o).program, t); });
  return f.failed ? std::to_string(f.loc.line) + ": " + f.message : "accepted";
}

}  // namespace

// A schedule for every target whose steps are the CPU's is the CPU's
// (tests/freeform/test_schedules_per_target.py); one for the GPU alone must
// bind its loops to the GPU's scopes.
TEST(CudaTarget, ParallelizeOnTheCudaTargetNeedsAGpuScope) {
  auto cuda = target::cudaTarget();
  EXPECT_NE(refusal("    s.parallelize(\"Li\")\n", cuda, "cuda").find("11: parallelize on the cuda target binds the loop to \"blockIdx.x\""),
            std::string::npos) << refusal("    s.parallelize(\"Li\")\n", cuda, "cuda");
  EXPECT_NE(refusal("    s.parallelize(\"Li\", \"openmp\")\n", cuda, "cuda").find("not 'openmp'"), std::string::npos);
  EXPECT_NE(refusal("    s.parallelize(\"Li\", \"blockIdx.x\")\n", driver::machineTarget(), "cpu").find("the target is the CPU"),
            std::string::npos);
  EXPECT_EQ(refusal("    s.parallelize(\"Li\")\n"), "accepted");
  EXPECT_NE(refusal("    s.vectorize(\"Lj\")\n").find("CPU SIMD lanes, which the cuda target does not have"),
            std::string::npos) << refusal("    s.vectorize(\"Lj\")\n");
}

TEST(CudaTarget, BlocksHoldThreadsAndEachScopeIsBoundOnceOnAPath) {
  EXPECT_NE(refusal("    s.parallelize(\"Li\", \"threadIdx.x\")\n    s.parallelize(\"Lj\", \"blockIdx.x\")\n")
                .find("blocks hold threads"),
            std::string::npos);
  EXPECT_NE(refusal("    s.parallelize(\"Li\", \"threadIdx.x\")\n    s.parallelize(\"Lj\", \"threadIdx.x\")\n")
                .find("both bound to threadIdx.x"),
            std::string::npos);
  EXPECT_NE(refusal("    s.parallelize(\"Li\", \"blockIdx.x\")\n    s.parallelize(\"Li\", \"blockIdx.y\")\n")
                .find("already bound to blockIdx.x"),
            std::string::npos);
  EXPECT_EQ(refusal("    s.parallelize(\"Li\", \"blockIdx.x\")\n    s.parallelize(\"Lj\", \"threadIdx.x\")\n"), "accepted");
}

TEST(CudaTarget, ABlockOfMoreThreadsThanTheGpuAllowsIsRefused) {
  std::string r = refusal("    s.parallelize(\"Li\", \"threadIdx.y\")\n    s.parallelize(\"Lj\", \"threadIdx.x\")\n");
  EXPECT_NE(r.find("64 x 64 x 1 threads per block; a block of sm_90 has at most 1024"), std::string::npos) << r;
}

TEST(CudaTarget, EveryBarrierTheCompilerInsertedIsNeededTheEmulatorReportsARaceWithoutIt) {
  int barriers = 0;
  for (auto& program : programs()) {
    SCOPED_TRACE(program.name);
    ir::Program p = scheduledForCuda(program.source);
    ir::Program lowered = lowering::lower(p, target::cudaTarget());
    std::vector<const ir::Stmt*> inserted;
    for (auto& n : lowered.nests)
      ir::forEachStmt(n, [&](const ir::StmtP& s) {
        if (s->kind == ir::StmtKind::Barrier) inserted.push_back(s.get());
      });
    barriers += static_cast<int>(inserted.size());
    for (size_t k = 0; k < inserted.size(); ++k) {
      const ir::Stmt* deleted = inserted[k];
      struct Delete : ir::Mutator {
        const ir::Stmt* target;
        explicit Delete(const ir::Stmt* t) : target(t) {}
        ir::StmtP mutateSeq(const ir::StmtP& s) override {
          std::vector<ir::StmtP> kept;
          for (auto& t : s->as<ir::Seq>().stmts)
            if (t.get() != target) kept.push_back(mutate(t));
          return ir::makeSeq(kept);
        }
      };
      ir::Program mutant = lowered;
      for (auto& n : mutant.nests) n = Delete(deleted).mutate(n);
      std::string report = raceReport(mutant, gpuInputs(p));
      bool caught = report.find("data race on ") != std::string::npos ||
                    report.find("in shared memory, which no thread of block") != std::string::npos;
      EXPECT_TRUE(caught)
          << "without barrier " << k + 1 << " of " << inserted.size() << " (line "
          << deleted->made.loc.line << "): " << report << "\n"
          << ir::toString(lowered, true);
    }
  }
  EXPECT_GE(barriers, 6);
}

TEST(CudaTarget, StatementsOfABlockThatWriteWhatThreadsShareRunInThreadZeroBeforeABarrier) {
  ir::Program lowered = lowering::lower(scheduledForCuda(program("08")), target::cudaTarget());
  std::string text = ir::toString(lowered, true);
  auto guard = text.find("for teml_guard in [0, 1) threadIdx.x");
  ASSERT_NE(guard, std::string::npos) << text;
  EXPECT_LT(guard, text.find("s[i] = 1.0")) << text;
  auto barrier = text.find("barrier warp");
  EXPECT_LT(guard, barrier) << text;
  EXPECT_LT(barrier, text.find("y[i][j] = x[i][j] + s[i]")) << "the threads read s[i] after thread 0 wrote it\n" << text;
  EXPECT_EQ(occurrences(text, "barrier block"), 0) << "a block of 32 threads is one warp\n" << text;
  std::string cuda = backend::emitFor(scheduledForCuda(program("08")), target::cudaTarget());
  EXPECT_EQ(occurrences(cuda, "__syncwarp();"), occurrences(text, "barrier warp")) << cuda;

  std::string shared = ir::toString(lowering::lower(scheduledForCuda(program("09")), target::cudaTarget()), true);
  EXPECT_NE(shared.find("gpu/shared"), std::string::npos) << shared;
  EXPECT_NE(shared.find("barrier block"), std::string::npos) << "8 x 40 threads are more than a warp\n" << shared;
}

TEST(CudaTarget, ACachesCopyRunsOnTheBlocksThreadsBetweenBarriers) {
  std::string text = ir::toString(lowering::lower(scheduledForCuda(program("12")), target::cudaTarget()), true);
  EXPECT_NE(text.find("a_cache : float  (copy, written before read, box [16 * i_o, 16 * k_o] size [16, 16], gpu/shared)"),
            std::string::npos) << text;
  EXPECT_NE(text.find("for c1 in [16 * i_o, 16 * i_o + 16) threadIdx.y"), std::string::npos) << text;
  EXPECT_NE(text.find("for c2 in [16 * k_o, 16 * k_o + 16) threadIdx.x"), std::string::npos) << text;
  EXPECT_EQ(text.find("teml_guard"), std::string::npos) << "no statement left to thread 0\n" << text;
  EXPECT_EQ(occurrences(text, "barrier block"), 2) << "after the copies, and before the next step's copies\n" << text;
}

TEST(CudaTarget, ACopyLargerThanTheBlockIsDealtToAllItsThreadsInTurn) {
  std::string text = ir::toString(lowering::lower(scheduledForCuda(program("14")), target::cudaTarget()), true);
  EXPECT_EQ(text.find("teml_guard"), std::string::npos) << "no copy left to thread 0\n" << text;
  EXPECT_EQ(occurrences(text, "for teml_round"), 2) << "a's and b's tiles: 256 elements, 4 rounds of 64 threads\n" << text;
  EXPECT_NE(text.find("for teml_round in [0, 4)"), std::string::npos) << text;
}

TEST(CudaTarget, TheMatrixProductExampleGivesTheInterpretersResultsInTheEmulator) {
  std::ifstream in(std::string(TEML_SOURCE_DIR) + "/examples/cuda/mm.py");
  freeform::FreeformOptions o = cudaOptions();
  o.sizes["N"] = 128;
  ir::Program p = pipeline::compileFreeform(std::string(std::istreambuf_iterator<char>(in), {}), o).program;
  ir::Program lowered = lowering::lower(p, target::cudaTarget());
  std::string text = ir::toString(lowered, true);
  EXPECT_NE(text.find("c_cache : float"), std::string::npos) << "the thread's patch\n" << text;
  EXPECT_NE(text.find("gpu/local"), std::string::npos) << text;
  auto inputs = gpuInputs(p);
  EXPECT_LE(runtime::maxRelativeDifference(emulated(lowered, inputs).at("c"), runInterpreter(p, inputs).at("c")), tolerance(p));
  if (!haveNvcc()) return;
  auto [status, log] = nvccCubin(backend::emitFor(p, target::cudaTarget()));
  ASSERT_EQ(status, 0) << log;
  EXPECT_NE(log.find("0 bytes stack frame"), std::string::npos) << "the patch in registers\n" << log;
}

TEST(CudaTarget, OnlyTensorsAKernelNeverWritesAreRestrictPointers) {
  // nvcc moves a load of a __restrict__ pointer above the barrier that
  // orders it after another thread's store (tests/cuda/08 was wrong on an
  // H200 so): a written tensor is a plain pointer.
  std::string cuda = backend::emitFor(scheduledForCuda(program("08")), target::cudaTarget());
  EXPECT_NE(cuda.find("(double *s, const double *__restrict__ x, double *y)"), std::string::npos) << cuda;
}

TEST(CudaTarget, AMemoryTypeMustFitWhereTheTensorIsDefined) {
  auto shared = [](const std::string& placement, const std::string& mtype) {
    std::string source = R"(import teml
@teml.transform
def f(x: teml.Var[(8, 32), "float64"], y: teml.Var[(8, 32), "float64", "output"]):
    #! label: Li
    for i in range(8):
)" + placement + R"(
@teml.schedule(f)
def g(s):
    s.parallelize("Li", "blockIdx.x")
    s.parallelize("Lj", "threadIdx.x")
)" + (placement.find("Lk") == std::string::npos ? "" : "    s.parallelize(\"Lk\", \"threadIdx.x\")\n");
    (void)mtype;
    auto f = failureOf([&] { lowering::lower(scheduledForCuda(source), target::cudaTarget()); });
    return f.failed ? f.message : "accepted";
  };
  // Shared memory defined inside a loop over threads: a copy per thread (multiplexed).
  EXPECT_EQ(shared(R"(        #! label: Lj
        for j in range(32):
            t = teml.zeros((4,), "float64", "gpu/shared")
            t[j % 4] = x[i, j]
            y[i, j] = t[j % 4])", ""), "accepted");
  EXPECT_EQ(shared(R"(        t = teml.zeros((32,), "float64", "gpu/local")
        #! label: Lj
        for j in range(32):
            y[i, j] = x[i, j])", ""), "accepted");
  // A thread's own copy, written in a thread loop: read back by the same
  // thread, right; read by the block after the loop, one thread's part only.
  EXPECT_EQ(shared(R"(        t = teml.zeros((32,), "float64", "gpu/local")
        #! label: Lj
        for j in range(32):
            t[j] = x[i, j] * 2
            y[i, j] = t[j])", ""), "accepted");
  std::string r = shared(R"(        t = teml.zeros((32,), "float64", "gpu/local")
        #! label: Lj
        for j in range(32):
            t[j] = x[i, j] * 2
        for j in range(32):
            y[i, j] = t[j])", "");
  EXPECT_NE(r.find("'t' is gpu/local, but each thread writes its own copy of it inside loop 'j' (bound to "
                   "threadIdx.x), and this statement reads it outside the thread loops"),
            std::string::npos) << r;
  // Read by another thread loop: right where each element stays with its thread.
  EXPECT_EQ(shared(R"(        t = teml.zeros((32,), "float64", "gpu/local")
        #! label: Lj
        for j in range(32):
            t[j] = x[i, j] * 2
        #! label: Lk
        for k in range(32):
            y[i, k] = t[k])", ""), "accepted");
  r = shared(R"(        t = teml.zeros((32,), "float64", "gpu/local")
        #! label: Lj
        for j in range(32):
            t[j] = x[i, j] * 2
        #! label: Lk
        for k in range(32):
            y[i, k] = t[31 - k])", "");
  EXPECT_NE(r.find("'t' is gpu/local, but each thread has its own copy of it, and teml cannot show that a thread of this "
                   "loop touches only elements its own thread wrote in loop 'j'"),
            std::string::npos) << r;
  auto f = failureOf([&] {
    scheduledForCuda(R"(import teml
@teml.transform
def f(y: teml.Var[(8,), "float64", "output"]):
    t = teml.zeros((8,), "float64", "gpu/texture")
)");
  });
  EXPECT_NE(f.message.find("the memory type is \"cpu\", \"gpu/global\", \"gpu/shared\" or \"gpu/local\""),
            std::string::npos) << f.message;
}

TEST(CudaTarget, SetMemTypeNamesATensorOfTheNest) {
  const char* source = R"(import teml
@teml.transform
def f(x: teml.Var[(8, 32), "float64"], y: teml.Var[(8, 32), "float64", "output"]):
    #! label: Li
    for i in range(8):
        t = teml.zeros((32,), "float64")
        #! label: Lj
        for j in range(32):
            t[j] = x[i, j]
        #! label: Lk
        for j in range(32):
            y[i, j] = t[31 - j]
@teml.schedule(f)
def g(s):
    s.set_mem_type("t", "gpu/shared")
    s.parallelize("Li", "blockIdx.x")
    s.parallelize("Lj", "threadIdx.x")
    s.parallelize("Lk", "threadIdx.x")
)";
  ir::Program p = scheduledForCuda(source);
  EXPECT_NE(ir::toString(p, true).find("gpu/shared"), std::string::npos) << ir::toString(p, true);
  ir::Program lowered = lowering::lower(p, target::cudaTarget());
  auto inputs = gpuInputs(p);
  EXPECT_LE(runtime::maxRelativeDifference(emulated(lowered, inputs).at("y"), runInterpreter(p, inputs).at("y")), 1e-12);
  std::string wrong = std::string(source);
  wrong.replace(wrong.find("set_mem_type(\"t\""), std::string("set_mem_type(\"t\"").size(), "set_mem_type(\"x\"");
  auto f = failureOf([&] { scheduledForCuda(wrong); });
  EXPECT_NE(f.message.find("no tensor 'x' is defined in this nest"), std::string::npos) << f.message;
}

TEST(CudaTarget, AReductionAllThreadsOfABlockShareIsATreeInSharedMemory) {
  std::string text = ir::toString(lowering::lower(scheduledForCuda(program("13")), target::cudaTarget()), true);
  EXPECT_NE(text.find("var s_tree : double[100] gpu/shared"), std::string::npos) << text;
  EXPECT_NE(text.find("s_tree[j] += x[i][j] * x[i][j]"), std::string::npos) << "each thread its own slot\n" << text;
  EXPECT_NE(text.find("s_tree[teml_fold] = s_tree[teml_fold] + s_tree[teml_fold + 64]"), std::string::npos)
      << "100 slots: the 36 past 64 folded first\n" << text;
  EXPECT_NE(text.find("m[i] max= m_tree[0]"), std::string::npos) << text;
  EXPECT_EQ(text.find("atomic"), std::string::npos) << "one block per element: no atomic left\n" << text;

  // Where blocks share the element too, the block's result is added atomically.
  std::string shared = program("13");
  shared.replace(shared.find("s[i] += x[i, j] * x[i, j]"), std::string("s[i] += x[i, j] * x[i, j]").size(),
                 "s[i % 2] += x[i, j] * x[i, j]");
  text = ir::toString(lowering::lower(scheduledForCuda(shared), target::cudaTarget()), true);
  EXPECT_NE(text.find("atomic s[mod(i, 2)] += s_tree[0]"), std::string::npos) << text;
}

TEST(CudaTarget, TemlBindsLoopsWithTheSameScopeNamesAndRunsInTheEmulator) {
  std::string file = temporaryPath(".teml");
  std::ofstream(file) << R"(A = tensor([N, N])
B = tensor([N, N])
C = contract(A, B, [2, 1])
l = build(C)
l1 = stripmine(l, 2, 32)
l2 = parallelize(l1, 1, "blockIdx.x")
l3 = parallelize(l2, 3, "threadIdx.x")
codegen(l3)
)";
  auto r = runTeml("run " + file + " --set N=70 --target cuda --emulate --random 1 --verify");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("(ok)"), std::string::npos) << r.out;
  r = runTeml("emit " + file + " --set N=70 --target cuda --emit lowered");
  EXPECT_NE(r.out.find("blockIdx.x kernel(L1.1, 32x1x1 threads"), std::string::npos) << r.out;
  r = runTeml("run " + file + " --set N=70 --random 1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(":6:25: error: parallelize: \"blockIdx.x\" binds the loop to a GPU"), std::string::npos) << r.out;
  std::remove(file.c_str());
}

TEST(CudaTarget, TeilAndTemlProgramsWithoutASchedulePassTheAutomaticGpuSchedule) {
  auto r = runTeml("run " + std::string(TEML_SOURCE_DIR) + "/examples/teil/matmul.teil --set l=30 --set m=20 --set n=10 --target cuda --auto --emulate --random 1 --verify -v");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"threadIdx.x\""), std::string::npos) << r.out;
}

TEST(CudaTarget, ASmallTensorTheBlockWritesOutsideItsThreadsIsComputedByEveryThread) {
  ir::Program lowered = lowering::lower(scheduledForCuda(program("16")), target::cudaTarget());
  std::string text = ir::toString(lowered, true);
  EXPECT_NE(text.find("var w : float[] gpu/local"), std::string::npos) << text;
  EXPECT_NE(text.find("var big : float[] gpu/shared"), std::string::npos) << text;  // its writer also writes m
}

TEST(CudaTarget, AWarpsLanesMeetAgainBeforeAtomicsThatFollowADataDependentLoop) {
  // Lanes leave a CSR row's chunks apart; without the __syncwarp they reach
  // the flush of their register sums one by one and no atomic folds (GAT
  // issued 8x the instructions on an H200).
  std::string cuda = backend::emitFor(scheduledForCuda(program("15")), target::cudaTarget());
  auto meet = cuda.find("__syncwarp();  /* the warp's lanes together again before their atomics */");
  ASSERT_NE(meet, std::string::npos) << cuda;
  EXPECT_LT(meet, cuda.find("teml_atomic_add(&acc[")) << cuda;
  EXPECT_GT(meet, cuda.find("for (long k_2 = ")) << cuda;
}

TEST(CudaTarget, InA2DBlockWritesRunOncePerElementWhereALoopLeavesAThreadIndexUnbound) {
  ir::Program lowered = lowering::lower(scheduledForCuda(program("17")), target::cudaTarget());
  std::string text = ir::toString(lowered, true);
  // The warp's flush of its sum: lane 0 of each warp (threadIdx.x guarded inside the loop over y).
  auto warps = text.find("threadIdx.y  @Lsum.o");
  auto lane0 = text.find("threadIdx.x", warps);
  ASSERT_NE(warps, std::string::npos) << text;
  EXPECT_LT(lane0, text.find("atomic total += total_cache")) << text;
  // The loop over threadIdx.x alone writes y where threadIdx.y is 0.
  auto out = text.find("threadIdx.x  @Lout");
  ASSERT_NE(out, std::string::npos) << text;
  EXPECT_LT(text.find("threadIdx.y", out), text.find("y[i][c] =", out)) << text;
}

TEST(CudaTarget, ATensorDefinedInsideAThreadLoopThatInnerThreadsWriteForOneAnotherIsSharedWithACopyPerThread) {
  // acc's copy per warp (cache_reduce on the loop over threadIdx.y), whose
  // elements the lanes write for one another: shared memory, one copy per
  // warp (multiplexed), ordered by __syncwarp inside the loop over y.
  std::string source = program("17");
  source.replace(source.find("s.cache_reduce(warps, \"total\")"), 30, "s.cache_reduce(warps, \"acc\")  ");
  ir::Program p = scheduledForCuda(source);
  ir::Program lowered = lowering::lower(p, target::cudaTarget());
  std::string text = ir::toString(lowered, true);
  EXPECT_NE(text.find("local acc_cache : float  (copy, init 0.0, box [0, 0] size [8, 32], gpu/shared)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("acc_cache[k_o][c] += w * x[int64(col[k])][c]"), std::string::npos) << text;
  auto inputs = gpuInputs(p);
  EXPECT_LE(runtime::maxRelativeDifference(emulated(lowered, inputs).at("y"), runInterpreter(p, inputs).at("y")), 1e-5);
  std::string cuda = backend::emitFor(p, target::cudaTarget());
  EXPECT_NE(cuda.find("__shared__ float acc_cache[256];"), std::string::npos) << cuda;
}

TEST(CudaTarget, AWarpBarrierOrdersOnlyItsWarpInTheEmulator) {
  // tests/cuda/19 with its scores made one copy for the block instead of
  // one per warp: the warps' __syncwarp do not order other warps' lanes,
  // and the emulator names the race (a block barrier would have hidden it).
  ir::Program p = scheduledForCuda(program("19"));
  ir::Program lowered = lowering::lower(p, target::cudaTarget());
  std::string text = ir::toString(lowered, true);
  ASSERT_NE(text.find("var score : float[4, 4] gpu/shared"), std::string::npos) << text;
  ASSERT_NE(text.find("score[i - 4 * i_o][t_2] *= 0.5"), std::string::npos) << text;
  ASSERT_NE(text.find("barrier warp"), std::string::npos) << text;
  struct OneCopy : ir::Mutator {  // score[i - 4 * i_o][t] -> score[0][t]
    ir::ExprP mutateLoad(const ir::ExprP& e) override {
      auto& l = e->as<ir::Load>();
      if (l.tensor != "score") return ir::Mutator::mutateLoad(e);
      return ir::load(l.tensor, {ir::intConst(0), l.indices[1]}, l.dtype);
    }
    ir::StmtP mutateStore(const ir::StmtP& s) override {
      auto& st = s->as<ir::Store>();
      if (st.tensor != "score") return ir::Mutator::mutateStore(s);
      return std::make_shared<ir::Store>(st.tensor, std::vector<ir::ExprP>{ir::intConst(0), st.indices[1]},
                                         mutate(st.value), st.loc, st.tag, st.id, st.made);
    }
    ir::StmtP mutateReduce(const ir::StmtP& s) override {
      auto& r = s->as<ir::Reduce>();
      if (r.tensor != "score") return ir::Mutator::mutateReduce(s);
      return std::make_shared<ir::Reduce>(r.op, r.tensor, std::vector<ir::ExprP>{ir::intConst(0), r.indices[1]},
                                          mutate(r.value), r.loc, r.tag, r.atomic, r.id, r.made);
    }
  };
  ir::Program shared = lowered;
  for (auto& n : shared.nests) n = OneCopy().mutate(n);
  std::string report = raceReport(shared, gpuInputs(p));
  EXPECT_NE(report.find("data race on score[0, "), std::string::npos) << report;
}

TEST(CudaTarget, AsLibOnTheCudaTargetIsACublasCallOfTheHost) {
  // FreeTensor's as_matmul on a GPU: the product (A transposed here) stays
  // on the host as a library call, which the runtime hands to cuBLAS;
  // the emulator and the interpreter run its loop nest.
  ir::Program p = scheduledForCuda(R"(import teml
@teml.transform
def mm(a: teml.Var[(40, 24), "float32"], b: teml.Var[(40, 56), "float32"], c: teml.Var[(24, 56), "float32", "output"]):
    #! label: Li
    for i in range(24):
        for j in range(56):
            for k in range(40):
                c[i, j] += a[k, i] * b[k, j]
@teml.schedule(mm)
def g(s):
    s.as_lib("Li")
)");
  ir::Program lowered = lowering::lower(p, target::cudaTarget());
  int calls = 0, kernels = 0;
  for (auto& n : lowered.nests)
    ir::forEachStmt(n, [&](const ir::StmtP& s) {
      calls += s->kind == ir::StmtKind::LibCall;
      kernels += s->kind == ir::StmtKind::For && !s->as<ir::For>().loopKind.kernel.name.empty();
    });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(kernels, 0) << ir::toString(lowered, true);
  std::string cuda = backend::emitFor(p, target::cudaTarget());
  // Row-major c[24][56] += a^T b, which the runtime hands to cuBLAS (and the emulator computes).
  EXPECT_NE(cuda.find("teml_host->gemm(teml_host->context, 1, 1, 0, 24, 56, 40, a, 24, b, 56, c, 56)"), std::string::npos)
      << cuda;
  auto inputs = gpuInputs(p);
  EXPECT_LE(runtime::maxRelativeDifference(emulated(lowered, inputs).at("c"), runInterpreter(p, inputs).at("c")), 1e-6);
  if (haveNvcc()) {
    EXPECT_NE(runtime::Cublas::libraryFile(), nullptr) << "the toolkit has nvcc but no libcublas.so.13";
  }
}

TEST(CudaTarget, TheCublasCallComputesTheRowMajorProductInCublasColumnMajorTerms) {
  // BLAS's column-major gemm (C = op(X) op(Y) + C, X rows x depth), run by
  // hand with the arguments the runtime gives cuBLAS, against the row-major
  // product, for each transposition (integers: exact).
  auto columnMajor = [](bool tx, bool ty, int64_t rows, int64_t cols, int64_t depth, const std::vector<double>& x,
                        int64_t ldx, const std::vector<double>& y, int64_t ldy, std::vector<double>& c, int64_t ldc) {
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t p = 0; p < depth; ++p)
          c[i + j * ldc] += (tx ? x[p + i * ldx] : x[i + p * ldx]) * (ty ? y[j + p * ldy] : y[p + j * ldy]);
  };
  const int64_t m = 3, n = 5, k = 4;
  for (bool transA : {false, true})
    for (bool transB : {false, true}) {
      // Row-major A (m x k, or k x m transposed), B (k x n, or n x k), C (m x n).
      int64_t lda = transA ? m : k, ldb = transB ? k : n, ldc = n;
      std::vector<double> a(m * k), b(k * n), want(m * n, 1), got(m * n, 1);
      for (size_t e = 0; e < a.size(); ++e) a[e] = static_cast<double>((e * 7) % 5) - 2;
      for (size_t e = 0; e < b.size(); ++e) b[e] = static_cast<double>((e * 3) % 7) - 3;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          for (int64_t p = 0; p < k; ++p)
            want[i * ldc + j] += (transA ? a[p * lda + i] : a[i * lda + p]) * (transB ? b[j * ldb + p] : b[p * ldb + j]);
      runtime::ColumnMajorGemm g = runtime::columnMajorGemm(transA, transB, m, n, k);
      columnMajor(g.transFirst, g.transSecond, g.rows, g.cols, g.depth, b, ldb, a, lda, got, ldc);
      EXPECT_EQ(got, want) << "transA " << transA << ", transB " << transB;
    }
}

TEST(CudaTarget, AWarpBarrierWhereSeveralWarpsMeetIsARaceInTheEmulator) {
  // tests/cuda/17 with its last block barrier made a warp barrier: the 8
  // warps' atomic sums into `total` and `acc` (after their plain first
  // values) are not all ordered before warp 0 reads them (its own are).
  ir::Program p = scheduledForCuda(program("17"));
  ir::Program lowered = lowering::lower(p, target::cudaTarget());
  const ir::Stmt* last = nullptr;
  for (auto& n : lowered.nests)
    ir::forEachStmt(n, [&](const ir::StmtP& s) {
      if (s->kind == ir::StmtKind::Barrier && s->as<ir::Barrier>().scope == ir::BarrierScope::Block) last = s.get();
    });
  ASSERT_NE(last, nullptr);
  struct WarpOnly : ir::Mutator {
    const ir::Stmt* target;
    explicit WarpOnly(const ir::Stmt* t) : target(t) {}
    ir::StmtP mutateBarrier(const ir::StmtP& s) override {
      return s.get() == target ? std::make_shared<ir::Barrier>(ir::BarrierScope::Warp, s->id, s->made) : s;
    }
  };
  for (auto& n : lowered.nests) n = WarpOnly(last).mutate(n);
  std::string report = raceReport(lowered, gpuInputs(p));
  EXPECT_NE(report.find("data race on "), std::string::npos) << report;
}
