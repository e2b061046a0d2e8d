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

// A model's estimate (auto_distribute weighs work against exchanges): a
// loop over a CSR row runs, over all rows, as many times as there are
// nonzeros (the extent `col[p]` subscripts), not none.
TEST(Flops, TheEstimateCountsARowLoopBoundedByDataAsTheNonzeros) {
  const std::string source = R"(import teml


@teml.transform
def f(ptr: teml.Var[(N + 1,), "int32"], col: teml.Var[(M,), "int32"], x: teml.Var[(N, C), "float64"],
      y: teml.Var[(N, C), "float64", "output"]):
    #! label: Li
    for i in range(N):
        for p in range(ptr[i], ptr[i + 1]):
            for c in range(C):
                y[i, c] += 2.0 * x[col[p], c]
)";
  freeform::FreeformOptions o;
  o.sizes = {{"N", 100}, {"M", 1000}, {"C", 8}};
  ir::Program p = pipeline::compileFreeform(source, o).program;
  EXPECT_DOUBLE_EQ(analysis::countFlops(p), 0);                  // the data is not known
  EXPECT_DOUBLE_EQ(analysis::estimatedFlops(p), 1000.0 * 8 * 2);  // a multiply and the sum, per nonzero and column
  // Rows split in blocks of 16: the row loop's trips in one block are not all the rows.
  ir::Program split = pipeline::compileFreeform(source + R"(

@teml.schedule(f)
def blocks(s):
    s.split("Li", 16)
)", o).program;
  EXPECT_DOUBLE_EQ(analysis::estimatedFlops(split), 1000.0 * 8 * 2);
}

// Branches on data weigh each arm by half, and do not make the loops around
// them count iteration by iteration: the fuzzer's 264^3 nest of branches on
// `y` took 24 s and at 520^3 minutes (Python's aligned-copy estimate).
TEST(Flops, BranchesOnDataCountHalfOfEachArmWithoutWalkingEveryIteration) {
  const std::string source = R"(import teml


@teml.transform
def f(x: teml.Var[(N,), "float32"], y: teml.Var[(N,), "float32", "output"]):
    for i in range(N):
        for j in range(N):
            for k in range(N):
                if x[k] > x[j]:
                    y[i] += x[j] * x[k]
                else:
                    y[i] += x[j]
)";
  freeform::FreeformOptions o;
  const double n = 2000;
  o.sizes = {{"N", 2000}};
  ir::Program p = pipeline::compileFreeform(source, o).program;
  EXPECT_DOUBLE_EQ(analysis::countFlops(p), n * n * n * (2 + 1) / 2);
}

// A triangular nest counts every iteration while the budget lasts, and at
// its middle iteration beyond it: an estimate of the right size, at once.
TEST(Flops, TriangularNestsAreCountedExactlyWithinTheBudgetAndEstimatedBeyondIt) {
  auto program = [](int64_t n) {
    const std::string source = R"(import teml


@teml.transform
def f(x: teml.Var[(N,), "float32"], y: teml.Var[(N,), "float32", "output"]):
    for i in range(N):
        for j in range(i):
            for k in range(j):
                y[i] += x[k]
)";
    freeform::FreeformOptions o;
    o.sizes = {{"N", n}};
    return pipeline::compileFreeform(source, o).program;
  };
  // sum over i of i (i - 1) / 2 sums: n (n - 1) (n - 2) / 6
  EXPECT_DOUBLE_EQ(analysis::countFlops(program(100)), 100.0 * 99 * 98 / 6);
  const double n = 20000, exact = n * (n - 1) * (n - 2) / 6;
  EXPECT_NEAR(analysis::countFlops(program(20000)), exact, 0.01 * exact);
}
