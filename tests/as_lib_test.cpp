// as_lib: matrix-product nests become BLAS gemm calls with the same results;
// other nests are refused with the reason.
#include <algorithm>

#include "backend/cpu/c_emitter.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

void expectGemm(const std::string& contraction, const std::string& shapes, bool single = false) {
  std::string src = shapes + "C = " + contraction + "\nl = build(C)\nb = as_lib(l)\ncodegen(b)\n";
  std::string plain = shapes + "C = " + contraction + "\nl = build(C)\ncodegen(l)\n";
  SCOPED_TRACE(src);
  auto p = compile(src, {{"M", 13}, {"N", 11}, {"K", 7}});
  EXPECT_NE(cSource(p).find(single ? "cblas_sgemm" : "cblas_dgemm"), std::string::npos);
  auto flags = codegen::linkFlags(lowering::lower(p, driver::machineTarget()));
  EXPECT_NE(std::find(flags.begin(), flags.end(), "-lopenblas"), flags.end());
  expectJitMatchesInterpreter(p);
  expectSameResults(p, compile(plain, {{"M", 13}, {"N", 11}, {"K", 7}}));
}

}  // namespace

TEST(AsLib, PlainAndTransposedProducts) {
  expectGemm("contract(A, B, [2, 1])", "A = tensor([M, K])\nB = tensor([K, N])\n");
  expectGemm("contract(A, B, [1, 1])", "A = tensor([K, M])\nB = tensor([K, N])\n");  // A transposed
  expectGemm("contract(A, B, [2, 2])", "A = tensor([M, K])\nB = tensor([N, K])\n");  // B transposed
  expectGemm("contract(A, B, [2, 1])", "A = tensor(float, [M, K])\nB = tensor(float, [K, N])\n", true);
}

TEST(AsLib, OtherNestsAreRefused) {
  auto f = compileError("A = tensor([4, 4])\nB = entrywise_add(A, A)\nl = build(B)\nb = as_lib(l)\n");
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 4);
  EXPECT_NE(f.message.find("not a matrix product"), std::string::npos) << f.message;
  auto g = compileError("A = tensor([4, 4])\nB = tensor([4, 4])\nC = contract(A, B, [2, 1])\nl = build(C)\n"
                        "p = parallelize(l, 1)\nb = as_lib(p)\n");
  ASSERT_TRUE(g.failed);
  EXPECT_NE(g.message.find("already parallel"), std::string::npos) << g.message;
}

TEST(AsLib, IntegerMatricesAreRefusedBlasHasNoIntegerProduct) {
  Failure f = failureOf([] {
    pipeline::compileFreeform(R"(import teml
@teml.transform
def mm(a: teml.Var[(4, 5), "int64"], b: teml.Var[(5, 6), "int64"], c: teml.Var[(4, 6), "int64", "output"]):
    #! label: Li
    for i in range(4):
        for j in range(6):
            for k in range(5):
                c[i, j] += a[i, k] * b[k, j]
@teml.schedule(mm)
def g(s):
    s.as_lib("Li")
)", hostFreeformOptions());
  });
  ASSERT_TRUE(f.failed);
  EXPECT_NE(f.message.find("BLAS multiplies float32 or float64 matrices, and 'c' is int64"), std::string::npos) << f.message;
}
