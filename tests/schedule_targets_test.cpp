// @teml.schedule(f, target="cuda"): a schedule for one target, used there
// instead of the file's schedule for every target; elsewhere that one (or
// the automatic schedule where there is none).
#include "frontend/freeform/freeform.hpp"
#include "ir/printer.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const char* kProgram = R"(import teml
@teml.transform
def f(x: teml.Var[(64,), "float32"], y: teml.Var[(64,), "float32", "output"]):
    #! label: L
    for i in range(64):
        y[i] = x[i] * 2
)";

const char* kCpuSchedule = R"(
@teml.schedule(f)
def cpu(s):
    s.parallelize("L")
)";

const char* kCudaSchedule = R"(
@teml.schedule(f, target="cuda")
def gpu(s):
    blocks, _ = s.split("L", 16)
    s.parallelize(blocks, "blockIdx.x")
    s.parallelize("L", "threadIdx.x")
)";

std::string scheduledIr(const std::string& source, const target::Target& t, bool autoSchedule = true) {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.target = t;
  o.autoSchedule = autoSchedule;
  return ir::toString(pipeline::compileFreeform(source, o).program, true);
}

}  // namespace

TEST(ScheduleTargets, EachTargetRunsItsOwnScheduleAndOthersTheOneForEveryTarget) {
  std::string both = std::string(kProgram) + kCpuSchedule + kCudaSchedule;
  std::string cuda = scheduledIr(both, target::cudaTarget());
  EXPECT_NE(cuda.find("blockIdx.x"), std::string::npos) << cuda;
  EXPECT_EQ(cuda.find("parallel"), std::string::npos) << cuda;
  std::string cpu = scheduledIr(both, hostFreeformOptions().target);
  EXPECT_NE(cpu.find("parallel"), std::string::npos) << cpu;
  EXPECT_EQ(cpu.find("blockIdx"), std::string::npos) << cpu;
}

TEST(ScheduleTargets, AScheduleForAnotherTargetLeavesTheNestToTheAutomaticSchedule) {
  std::string cudaOnly = std::string(kProgram) + kCudaSchedule;
  std::string cpu = scheduledIr(cudaOnly, hostFreeformOptions().target, false);
  EXPECT_EQ(cpu.find("blockIdx"), std::string::npos) << cpu;
  EXPECT_EQ(cpu.find("parallel"), std::string::npos) << cpu;  // as written: no schedule applies
}

TEST(ScheduleTargets, AnUnknownTargetIsRefusedAtTheDecorator) {
  auto f = failureOf([] {
    scheduledIr(std::string(kProgram) + "\n@teml.schedule(f, target=\"tpu\")\ndef g(s):\n    pass\n",
                target::cudaTarget());
  });
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 8) << f.message;
  EXPECT_NE(f.message.find("target=\"cpu\" or \"cuda\""), std::string::npos) << f.message;
}
