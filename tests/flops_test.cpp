// The work `teml bench` divides by its time (analysis/flops): loops whose
// bounds an outer loop shifts, as a split's inner loops, do the same work
// in every iteration of it and are counted once, not enumerated (mm at
// N = 2048 took a minute).
#include <fstream>
#include <sstream>

#include "analysis/flops.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "test_util.hpp"

using namespace teml;

TEST(Flops, ASplitMatrixProductCountsItsMultiplyAddsAndTheAdditionsOfItsPatches) {
  std::ifstream in(std::string(TEML_SOURCE_DIR) + "/examples/cuda/mm.py");
  std::stringstream source;
  source << in.rdbuf();
  freeform::FreeformOptions o;
  const double n = 2048;
  o.sizes["N"] = 2048;
  o.target = target::cudaTarget();
  ir::Program p = pipeline::compileFreeform(source.str(), o).program;
  // a multiply and an add per term, and each thread's patch added to C
  // after every step of 16 along k
  EXPECT_DOUBLE_EQ(analysis::countFlops(p), 2 * n * n * n + n * n * (n / 16));
}
