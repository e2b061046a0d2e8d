#include "ir/exp_as_generated.hpp"

#include <cstdint>
#include <cstring>

namespace teml::ir {

namespace {
double fromBits(int64_t i) {
  double f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}
int64_t bitsOf(double f) {
  int64_t i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}
}  // namespace

double expAsGenerated(double x) {
  if (x < -746.0) return 0.0;
  x = x > 710.0 ? 710.0 : x;
  double k = x * 1.4426950408889634 + 6755399441055744.0;
  double n = k - 6755399441055744.0;
  int64_t ni = bitsOf(k) - 0x4338000000000000LL, h = ni >> 1;
  double r = x - n * 6.93147180369123816490e-01;
  r = r - n * 1.90821492927058770002e-10;
  double p = 1.0 / 6227020800.0;
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * (r * r) + r + 1.0;
  return p * fromBits((h + 1023) << 52) * fromBits((ni - h + 1023) << 52);
}

}  // namespace teml::ir
