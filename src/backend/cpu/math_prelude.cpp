#include "backend/cpu/math_prelude.hpp"

namespace teml::codegen {

// exp(x) = 2^n * exp(r), n = round(x / ln 2), r = x - n ln 2 in [-ln2/2, ln2/2]:
// n is rounded by adding 1.5 * 2^23 (2^52), whose low bits then hold it; r is
// taken in two steps (ln 2's high part has trailing zero bits, so n times it
// is exact); exp(r) is a polynomial (Cephes's minimax one for float, Taylor's
// to degree 13 for double); 2^n is applied as two powers of two, so that a
// result below the smallest normal number rounds once into the subnormals
// and one above the largest becomes inf. Arguments are held in the range
// where that holds (above it the result is inf); an argument below it gives 0
// by a select, computed from 0 instead: letting it underflow made every vector
// with such a lane pay the core's slow path for subnormal results (SoftRas,
// whose far pixels all have one: 17 -> 10.5 ms on Zen 4). NaN passes through
// (the comparisons are false for it; its n is garbage, shifted as unsigned).
std::string mathPrelude() {
  return "/* exp within 1 ulp (backend/cpu/math_prelude.cpp), inline: vectorized with the loop around it. Its\n"
         "   rounding by adding 1.5 * 2^23 is what -ffast-math may fold away: math.h's exp then. */\n"
         "#ifdef __FAST_MATH__\n"
         "static inline float teml_expf(float x) { return expf(x); }\n"
         "static inline double teml_exp(double x) { return exp(x); }\n"
         "#else\n"
         "static inline float teml_expf(float x) {\n"
         "  _Bool zero = x < -104.0f;\n"
         "  x = zero ? 0.0f : x;\n"
         "  x = x > 89.0f ? 89.0f : x;\n"
         "  union { float f; int32_t i; } k;\n"
         "  union { float f; uint32_t u; } s1, s2;\n"
         "  k.f = x * 1.44269504088896341f + 12582912.0f;\n"
         "  float n = k.f - 12582912.0f;\n"
         "  int32_t ni = k.i - 0x4B400000, h = ni >> 1;\n"
         "  float r = x - n * 0.693359375f;\n"
         "  r = r - n * -2.12194440e-4f;\n"
         "  float p = 1.9875691500e-4f;\n"
         "  p = p * r + 1.3981999507e-3f;\n"
         "  p = p * r + 8.3334519073e-3f;\n"
         "  p = p * r + 4.1665795894e-2f;\n"
         "  p = p * r + 1.6666665459e-1f;\n"
         "  p = p * r + 5.0000001201e-1f;\n"
         "  p = p * (r * r) + r + 1.0f;\n"
         "  s1.u = (uint32_t)(h + 127) << 23;\n"
         "  s2.u = (uint32_t)(ni - h + 127) << 23;\n"
         "  return zero ? 0 : p * s1.f * s2.f;\n"
         "}\n"
         "static inline double teml_exp(double x) {\n"
         "  _Bool zero = x < -746.0;\n"
         "  x = zero ? 0.0 : x;\n"
         "  x = x > 710.0 ? 710.0 : x;\n"
         "  union { double f; int64_t i; } k;\n"
         "  union { double f; uint64_t u; } s1, s2;\n"
         "  k.f = x * 1.4426950408889634 + 6755399441055744.0;\n"
         "  double n = k.f - 6755399441055744.0;\n"
         "  int64_t ni = k.i - 0x4338000000000000LL, h = ni >> 1;\n"
         "  double r = x - n * 6.93147180369123816490e-01;\n"
         "  r = r - n * 1.90821492927058770002e-10;\n"
         "  double p = 1.0 / 6227020800.0;\n"
         "  p = p * r + 1.0 / 479001600.0;\n"
         "  p = p * r + 1.0 / 39916800.0;\n"
         "  p = p * r + 1.0 / 3628800.0;\n"
         "  p = p * r + 1.0 / 362880.0;\n"
         "  p = p * r + 1.0 / 40320.0;\n"
         "  p = p * r + 1.0 / 5040.0;\n"
         "  p = p * r + 1.0 / 720.0;\n"
         "  p = p * r + 1.0 / 120.0;\n"
         "  p = p * r + 1.0 / 24.0;\n"
         "  p = p * r + 1.0 / 6.0;\n"
         "  p = p * r + 0.5;\n"
         "  p = p * (r * r) + r + 1.0;\n"
         "  s1.u = (uint64_t)(h + 1023) << 52;\n"
         "  s2.u = (uint64_t)(ni - h + 1023) << 52;\n"
         "  return zero ? 0 : p * s1.f * s2.f;\n"
         "}\n"
         "#endif\n"
         "/* sigmoid from exp(-|a|): 1 / (1 + e) for a >= 0, e / (1 + e) below; NaN passes through. */\n"
         "static inline double teml_sigmoid(double a) {\n"
         "  double e = teml_exp(-fabs(a));\n"
         "  double r = (a >= 0 ? 1 : e) / (1 + e);\n"
         "  return a != a ? a : r;\n"
         "}\n"
         "static inline float teml_sigmoidf(float a) {\n"
         "  float e = teml_expf(-fabsf(a));\n"
         "  float r = (a >= 0 ? 1 : e) / (1 + e);\n"
         "  return a != a ? a : r;\n"
         "}\n";
}

}  // namespace teml::codegen
