// The exponentials generated CPU code calls (backend/cpu/math_prelude.cpp),
// compiled as kernels are, in vectorized loops, against the exact result.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cfenv>
#include <memory>
#include <random>

#include "backend/cpu/math_prelude.hpp"
#include "ir/exp_as_generated.hpp"
#include "runtime/jit.hpp"
#include "test_util.hpp"

namespace {

const char* const kLoops = R"(
void teml_entry(void **buffers, int nthreads) { (void)buffers; (void)nthreads; }
void exp_floats(const float *x, float *y, long n) {
  #pragma omp simd
  for (long i = 0; i < n; i++) y[i] = teml_expf(x[i]);
}
void exp_doubles(const double *x, double *y, long n) {
  #pragma omp simd
  for (long i = 0; i < n; i++) y[i] = teml_exp(x[i]);
}
void sigmoid_floats(const float *x, float *y, long n) {
  #pragma omp simd
  for (long i = 0; i < n; i++) y[i] = teml_sigmoidf(x[i]);
}
)";

// The prelude and the loops, compiled as kernels are (`contracted`: GCC's default FMA contraction) or with
// -ffp-contract=off (how the fuzz harness runs a path again to compare it with the interpreter bit for bit).
const teml::runtime::Kernel& kernel(bool contracted) {
  auto make = [](bool contract) {
    teml::runtime::JitOptions o;
    o.cacheDir = teml::testing::cacheDir();
    if (!contract) o.cflags += " -ffp-contract=off";
    return std::make_unique<teml::runtime::Kernel>(
        "#include <math.h>\n#include <stdint.h>\n" + teml::codegen::mathPrelude() + kLoops, o);
  };
  static auto withFma = make(true), without = make(false);
  return contracted ? *withFma : *without;
}

template <class F>
F function(const char* name, bool contracted = true) {
  void* p = kernel(contracted).symbol(name);
  EXPECT_NE(p, nullptr) << name;
  return reinterpret_cast<F>(p);
}

// Distance in units in the last place: floats ordered as integers.
int64_t ulps(float a, float b) {
  int32_t i, j;
  std::memcpy(&i, &a, 4), std::memcpy(&j, &b, 4);
  int64_t x = i < 0 ? -int64_t(i & 0x7fffffff) : i, y = j < 0 ? -int64_t(j & 0x7fffffff) : j;
  return x > y ? x - y : y - x;
}
int64_t ulps(double a, double b) {
  int64_t i, j;
  std::memcpy(&i, &a, 8), std::memcpy(&j, &b, 8);
  int64_t x = i < 0 ? -(i & 0x7fffffffffffffffLL) : i, y = j < 0 ? -(j & 0x7fffffffffffffffLL) : j;
  return x > y ? x - y : y - x;
}

TEST(ExpAccuracy, FloatsWithinOneUlpFromUnderflowThroughSubnormalsToOverflow) {
  auto exp_floats = function<void (*)(const float*, float*, long)>("exp_floats");
  // Every 61st bit pattern (every sign and exponent, 1/61 of the mantissas: the whole range was run once).
  std::vector<float> x;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 61) {
    uint32_t bits = uint32_t(u);
    float f;
    std::memcpy(&f, &bits, 4);
    if (!std::isnan(f)) x.push_back(f);
  }
  for (float f : {0.0f, -0.0f, 88.72f, 88.73f, -87.33f, -103.9f, -104.5f, 1e-30f, INFINITY, -INFINITY}) x.push_back(f);
  std::vector<float> y(x.size());
  exp_floats(x.data(), y.data(), long(x.size()));
  int64_t worst = 0;
  float at = 0;
  for (size_t i = 0; i < x.size(); i++) {
    int64_t d = ulps(y[i], float(std::exp(double(x[i]))));
    if (d > worst) worst = d, at = x[i];
  }
  EXPECT_LE(worst, 1) << "at x = " << at;
}

TEST(ExpAccuracy, DoublesWithinOneUlpOnRandomArguments) {
  auto exp_doubles = function<void (*)(const double*, double*, long)>("exp_doubles");
  std::mt19937_64 rng(7);
  std::vector<double> x;
  for (auto [lo, hi] : {std::pair{-750.0, 712.0}, {-1.0, 1.0}, {-745.2, -708.0}, {709.0, 709.9}})
    for (int i = 0; i < 250000; i++) x.push_back(std::uniform_real_distribution<double>(lo, hi)(rng));
  for (double d : {0.0, -0.0, 709.78, 709.79, -745.1, -745.2, 1e-300, double(INFINITY), -double(INFINITY)}) x.push_back(d);
  std::vector<double> y(x.size());
  exp_doubles(x.data(), y.data(), long(x.size()));
  int64_t worst = 0;
  double at = 0;
  for (size_t i = 0; i < x.size(); i++) {
    int64_t d = ulps(y[i], double(std::exp((long double)x[i])));
    if (d > worst) worst = d, at = x[i];
  }
  EXPECT_LE(worst, 1) << "at x = " << at;
}

TEST(ExpAccuracy, NanPassesThroughExpAndSigmoid) {
  auto exp_floats = function<void (*)(const float*, float*, long)>("exp_floats");
  auto exp_doubles = function<void (*)(const double*, double*, long)>("exp_doubles");
  auto sigmoid_floats = function<void (*)(const float*, float*, long)>("sigmoid_floats");
  std::vector<float> xf(37, NAN), yf(37), sf(37);
  std::vector<double> xd(37, NAN), yd(37);
  exp_floats(xf.data(), yf.data(), 37);
  sigmoid_floats(xf.data(), sf.data(), 37);
  exp_doubles(xd.data(), yd.data(), 37);
  for (int i = 0; i < 37; i++) EXPECT_TRUE(std::isnan(yf[i]) && std::isnan(sf[i]) && std::isnan(yd[i])) << i;
}

TEST(ExpAccuracy, SigmoidIsOneOverOnePlusExpOfMinusA) {
  auto sigmoid_floats = function<void (*)(const float*, float*, long)>("sigmoid_floats");
  std::vector<float> x;
  for (float a = -120.0f; a <= 120.0f; a += 0.37f) x.push_back(a);
  for (float a : {INFINITY, -INFINITY, 0.0f}) x.push_back(a);
  std::vector<float> y(x.size());
  sigmoid_floats(x.data(), y.data(), long(x.size()));
  for (size_t i = 0; i < x.size(); i++) {
    double exact = 1.0 / (1.0 + std::exp(-double(x[i])));
    EXPECT_LE(ulps(y[i], float(exact)), 2) << "sigmoid(" << x[i] << ") = " << y[i] << ", exactly " << exact;
  }
}

// Far below the range (SoftRas's far pixels: sigmoid of -d^2 / 1e-4) the result is 0 without arithmetic
// on subnormals, whose slow path doubled SoftRas's time: the underflow flag stays clear.
TEST(ExpAccuracy, ArgumentsWhoseExpIsZeroUnderflowNothing) {
  auto exp_floats = function<void (*)(const float*, float*, long)>("exp_floats");
  auto exp_doubles = function<void (*)(const double*, double*, long)>("exp_doubles");
  auto sigmoid_floats = function<void (*)(const float*, float*, long)>("sigmoid_floats");
  std::vector<float> xf(64, -80000.0f), yf(64, 1.0f), sf(64, 1.0f);
  xf[5] = -104.5f, xf[9] = -INFINITY, xf[40] = -1e30f;
  std::vector<double> xd(64, -1e5), yd(64, 1.0);
  xd[3] = -746.5, xd[7] = -INFINITY;
  std::feclearexcept(FE_ALL_EXCEPT);
  exp_floats(xf.data(), yf.data(), 64);
  exp_doubles(xd.data(), yd.data(), 64);
  sigmoid_floats(xf.data(), sf.data(), 64);
  EXPECT_FALSE(std::fetestexcept(FE_UNDERFLOW));
  for (int i = 0; i < 64; i++) {
    EXPECT_EQ(yf[i], 0.0f) << i;
    EXPECT_FALSE(std::signbit(yf[i])) << i;
    EXPECT_EQ(yd[i], 0.0) << i;
    EXPECT_EQ(sf[i], 0.0f) << i;
  }
}

TEST(ExpAccuracy, TheInterpretersExpIsGeneratedCodesBitForBitWithoutContraction) {
  auto exp_doubles = function<void (*)(const double*, double*, long)>("exp_doubles", false);
  std::mt19937_64 rng(11);
  std::vector<double> x;
  for (int i = 0; i < 200000; i++) x.push_back(std::uniform_real_distribution<double>(-750.0, 712.0)(rng));
  for (int i = 0; i < 200000; i++) x.push_back(std::uniform_real_distribution<double>(-2.0, 2.0)(rng));
  std::vector<double> y(x.size());
  exp_doubles(x.data(), y.data(), long(x.size()));
  size_t differ = 0;
  for (size_t i = 0; i < x.size(); i++) {
    double interpreted = teml::ir::expAsGenerated(x[i]);
    differ += std::memcmp(&y[i], &interpreted, 8) != 0;
  }
  EXPECT_EQ(differ, 0u) << "of " << x.size();
}

}  // namespace
