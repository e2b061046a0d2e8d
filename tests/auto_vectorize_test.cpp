// The automatic schedule's vector loops (autoschedule/auto_vectorize): an
// innermost loop that only gathers and sums what it gathers (SpMV's
// x[col[k]]) stays scalar, since a vector gather costs about what its
// lanes' scalar loads cost; one that computes enough on each gathered value
// runs in lanes. Results equal the interpreter's either way.
#include <algorithm>

#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

freeform::FreeformProgram autoScheduled(const std::string& source) {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.autoSchedule = true;
  return pipeline::compileFreeform(source, o);
}

bool vectorizes(const freeform::FreeformProgram& p, const std::string& loop) {
  return std::find(p.autoSteps.begin(), p.autoSteps.end(), "s.vectorize(\"" + loop + "\")") != p.autoSteps.end();
}

// A CSR row times a vector, `body` the update of one entry.
std::string rowsTimesVector(const std::string& body) {
  return R"(import teml
@teml.transform
def f(ptr: teml.Var[(9,), "int32"], col: teml.Var[(40,), "int32"], val: teml.Var[(40,), "float64"],
      x: teml.Var[(16,), "float64"], y: teml.Var[(8,), "float64", "output"]):
    for i in range(8):
        #! label: Lk
        for k in range(ptr[i], ptr[i + 1]):
            )" + body + "\n";
}

void expectTheInterpretersResults(const freeform::FreeformProgram& p) {
  runtime::BufferMap in = runtime::allocateBuffers(p.program);
  const int ptr[] = {0, 3, 3, 12, 19, 30, 31, 31, 40};
  for (int k = 0; k <= 8; ++k) in.at("ptr").setInt(k, ptr[k]);
  for (int k = 0; k < 40; ++k) in.at("col").setInt(k, (k * 7) % 16), in.at("val").set(k, 0.25 * k - 3);
  for (int k = 0; k < 16; ++k) in.at("x").set(k, 1.0 / (k + 1));
  auto want = runInterpreter(p.program, in);
  for (int threads : {1, 2}) {
    auto got = runJit(p.program, in, threads);
    for (int64_t k = 0; k < 8; ++k) EXPECT_NEAR(got.at("y").get(k), want.at("y").get(k), 1e-12) << k;
  }
}

}  // namespace

TEST(AutoVectorize, ASumOfGatheredProductsStaysScalar) {
  auto p = autoScheduled(rowsTimesVector("y[i] += val[k] * x[col[k]]"));
  EXPECT_FALSE(vectorizes(p, "Lk"));
  expectTheInterpretersResults(p);
}

TEST(AutoVectorize, GatheredValuesWithMuchArithmeticRunInLanes) {
  auto p = autoScheduled(
      rowsTimesVector("y[i] += teml.exp(val[k] * x[col[k]]) * teml.sigmoid(val[k] - x[col[k]]) + val[k] * val[k] / 3.0"));
  EXPECT_TRUE(vectorizes(p, "Lk"));
  expectTheInterpretersResults(p);
}
