// Python's min and max on floats keep their meaning in every form the C
// takes: the first operand unless the second is less (greater). In a loop
// GCC vectorizes they are bitwise selects (teml_minf_lanes: GCC's PRE does
// not multiply through them as it does through a branch's arms, SoftRas's
// clamps); elsewhere a branch, one minss. NaN and signed zeros included.
#include <cmath>
#include <cstring>
#include <limits>

#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

// Every pair of these, in both orders, in both precisions.
const double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(), -0.0, 0.0, 1.0, -1.0, 0.5,
                           std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
constexpr int64_t kPairs = 8 * 8;

void fillPairs(runtime::BufferMap& b, const std::string& x, const std::string& y) {
  for (int64_t k = 0; k < kPairs; ++k) {
    b.at(x).set(k, kSpecial[k / 8]);
    b.at(y).set(k, kSpecial[k % 8]);
  }
}

bool sameBits(const runtime::Buffer& a, const runtime::Buffer& b) {
  return a.bytes() == b.bytes() && std::memcmp(a.data(), b.data(), a.bytes()) == 0;
}

}  // namespace

TEST(VectorSelects, MinAndMaxInVectorLanesChooseTheSameBitsAsTheInterpreter) {
  auto p = compileForHost(R"(import teml

@teml.transform
def f(x: teml.Var[(n,), "float32"], y: teml.Var[(n,), "float32"], u: teml.Var[(n,), "float64"], v: teml.Var[(n,), "float64"],
      lo: teml.Var[(m, n), "float32", "output"], hi: teml.Var[(m, n), "float32", "output"],
      clamped: teml.Var[(m, n), "float32", "output"], lo64: teml.Var[(m, n), "float64", "output"],
      hi64: teml.Var[(m, n), "float64", "output"]):
    for r in range(m):
        #! label: Li
        for i in range(n):
            lo[r, i] = min(x[i], y[i])
            hi[r, i] = max(x[i], y[i])
            t = min(max(x[i], 0), 1)
            clamped[r, i] = y[i] - t * y[i]
            lo64[r, i] = min(u[i], v[i])
            hi64[r, i] = max(u[i], v[i])

@teml.schedule(f)
def schedule(s):
    s.vectorize("Li")
)",
                          {{"m", 3}, {"n", kPairs + 11}});  // a remainder past the vector width
  std::string c = cSource(p.program);
  EXPECT_NE(c.find("teml_minf_lanes("), std::string::npos) << c;
  EXPECT_NE(c.find("teml_maxd_lanes("), std::string::npos) << c;
  runtime::BufferMap in = randomInputs(p.program);
  fillPairs(in, "x", "y");
  fillPairs(in, "u", "v");
  runtime::BufferMap expected = runInterpreter(p.program, in);
  runtime::BufferMap got = runJit(p.program, in);
  for (const char* out : {"lo", "hi", "lo64", "hi64"}) EXPECT_TRUE(sameBits(got.at(out), expected.at(out))) << out;
  // NaN stays NaN, -0 vs +0 keeps its first operand: the pairs' results by hand.
  for (int64_t k = 0; k < kPairs; ++k) {
    double a = kSpecial[k / 8], b = kSpecial[k % 8];
    double lo = b < a ? b : a;
    EXPECT_EQ(std::signbit(got.at("lo64").get(k)), std::signbit(lo)) << a << " " << b;
    EXPECT_EQ(std::isnan(got.at("lo64").get(k)), std::isnan(lo)) << a << " " << b;
  }
  for (int64_t k = 0; k < kPairs + 11; ++k) {  // a product and a difference: contracted or not
    double a = got.at("clamped").get(k), b = expected.at("clamped").get(k);
    EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b)) || std::abs(a - b) <= 1e-6) << k << ": " << a << " " << b;
  }
}

TEST(VectorSelects, AScalarLoopKeepsTheBranchForm) {
  auto p = compileForHost(R"(import teml

@teml.transform
def f(x: teml.Var[(n,), "float32"], y: teml.Var[(n,), "float32", "output"]):
    y[0] = x[0]
    for i in range(1, n):
        y[i] = min(y[i - 1] * 0.5 + x[i], 0.75)
)",
                          {{"n", 101}});
  std::string c = cSource(p.program);
  EXPECT_EQ(c.find("teml_minf_lanes("), std::string::npos) << c;
  EXPECT_NE(c.find("teml_minf("), std::string::npos) << c;
  expectJitMatchesInterpreter(p.program);
}
