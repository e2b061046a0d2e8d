// A kernel's launch is decided once, in the lowered IR (gpu_launches): its
// name, grid and arguments are on its plan, and the emitter follows what the
// plan says. The emulator runs the host code the emitter prints (compiled
// by the C compiler, as for a GPU), so it follows the plan too.
#include "backend/backend.hpp"
#include "backend/cuda/cuda_emulation.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "lowering/lower.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

// A kernel on 100 / 32 blocks inside a loop of the host whose iterator it reads.
const char* kProgram = R"(import teml
@teml.transform
def f(x: teml.Var[(100,), "int64", "input"], y: teml.Var[(3, 100), "int64", "output"]):
    #! label: Li
    for i in range(3):
        #! label: Lj
        for j in range(100):
            y[i, j] = x[j] * 10 + i
@teml.schedule(f)
def g(s):
    o, t = s.split("Lj", 32)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(t, "threadIdx.x")
)";

ir::Program lowered() {
  freeform::FreeformOptions o;
  o.target = target::cudaTarget();
  o.autoSchedule = false;
  return lowering::lower(pipeline::compileFreeform(kProgram, o).program, target::cudaTarget());
}

const ir::GpuKernelPlan& onlyKernel(const ir::Program& p) {
  const ir::GpuKernelPlan* plan = nullptr;
  for (auto& n : p.nests)
    ir::forEachStmt(n, [&](const ir::StmtP& s) {
      if (s->kind == ir::StmtKind::For && !s->as<ir::For>().loopKind.kernel.name.empty()) {
        EXPECT_EQ(plan, nullptr) << "one kernel";
        plan = &s->as<ir::For>().loopKind.kernel;
      }
    });
  if (!plan) throw std::runtime_error("no kernel");
  return *plan;
}

// The program with each kernel's grid replaced by one block.
ir::Program withOneBlock(ir::Program p) {
  struct OneBlock : ir::Mutator {
    ir::StmtP mutateFor(const ir::StmtP& s) override {
      auto& f = s->as<ir::For>();
      if (f.loopKind.kernel.name.empty()) return ir::Mutator::mutateFor(s);
      ir::LoopKind kind = f.loopKind;
      kind.kernel.grid[0] = ir::intConst(1);
      return std::make_shared<ir::For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
    }
  };
  for (auto& n : p.nests) n = OneBlock().mutate(n);
  return p;
}

runtime::JitOptions jit() {
  runtime::JitOptions o;
  o.cacheDir = cacheDir();
  return o;
}

runtime::BufferMap inputs(const ir::Program& p) {
  runtime::BufferMap b = runtime::allocateBuffers(p);
  for (int64_t j = 0; j < 100; ++j) b.at("x").setInt(j, j);
  return b;
}

}  // namespace

TEST(GpuLaunches, EachKernelsNameGridAndArgumentsAreOnItsPlan) {
  ir::Program p = lowered();
  const ir::GpuKernelPlan& plan = onlyKernel(p);
  EXPECT_EQ(plan.symbol.rfind("teml_k1_", 0), 0u) << plan.symbol;
  int64_t blocks = 0;
  ASSERT_TRUE(ir::constValue(plan.grid[0], &blocks)) << ir::toString(plan.grid[0]);
  EXPECT_EQ(blocks, 4);  // 100 iterations in blocks of 32
  EXPECT_TRUE(ir::constValue(plan.grid[1], &blocks) && blocks == 1);
  EXPECT_TRUE(ir::constValue(plan.grid[2], &blocks) && blocks == 1);
  EXPECT_EQ(plan.tensorArgs, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(plan.scalarArgs, (std::vector<std::string>{"i"})) << "the host's iterator the kernel reads";
  EXPECT_NE(ir::toString(p, true).find("launch " + plan.symbol + "(grid 4 x 1 x 1, x, y, i)"), std::string::npos)
      << ir::toString(p, true);
}

TEST(GpuLaunches, TheEmittedHostCodeLaunchesWhatThePlanSays) {
  ir::Program p = lowered();
  const ir::GpuKernelPlan& plan = onlyKernel(p);
  std::string cuda = backend::backendFor(target::cudaTarget())->emit(p);
  EXPECT_NE(cuda.find("teml_grid[3] = {4, 1, 1}"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("teml_block[3] = {32, 1, 1}"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("teml_args[3] = {&x, &y, &i}"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("launch(teml_host->context, \"" + plan.symbol + "\", teml_grid, teml_block, 0, teml_args, 3)"),
            std::string::npos)
      << cuda;
  std::string one = backend::backendFor(target::cudaTarget())->emit(withOneBlock(p));
  EXPECT_NE(one.find("teml_grid[3] = {1, 1, 1}"), std::string::npos) << one;
}

TEST(GpuLaunches, TheEmulatorRunsTheGridThePlanSays) {
  ir::Program p = lowered();
  runtime::BufferMap all = inputs(p), first = inputs(p);
  backend::emulateCuda(p, all, jit());
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 100; ++j) ASSERT_EQ(all.at("y").getInt(i * 100 + j), j * 10 + i);
  backend::emulateCuda(withOneBlock(p), first, jit());
  for (int64_t j = 0; j < 100; ++j) EXPECT_EQ(first.at("y").getInt(j), j < 32 ? j * 10 : 0) << j;
}
