// The C++ operator API (include/teml/operators.hpp), used as a program
// linked with teml's library uses it.
#include <gtest/gtest.h>

#include <cmath>

#include "teml/operators.hpp"

using teml::op::Matrix;
using teml::op::Tensor;

namespace {

void fill(Matrix& m, double seed) {
  for (int64_t i = 0; i < m.rows(); ++i)
    for (int64_t j = 0; j < m.cols(); ++j) m(i, j) = std::sin(seed + 3 * i + j);
}

}  // namespace

TEST(OperatorApi, TensorProductApplicationMatchesTheDefinition) {
  // Rectangular matrices: A is 3x4, B 2x5, C 4x3; u is 4x5x3.
  Matrix A(3, 4), B(2, 5), C(4, 3);
  fill(A, 1);
  fill(B, 2);
  fill(C, 3);
  Tensor<3> u(4, 5, 3);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 5; ++b)
      for (int c = 0; c < 3; ++c) u(a, b, c) = std::cos(a + 7 * b + 13 * c);
  auto v = (A * B * C)(u);
  ASSERT_EQ(v.shape(), (std::array<int64_t, 3>{3, 2, 4}));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 4; ++k) {
        double s = 0;
        for (int a = 0; a < 4; ++a)
          for (int b = 0; b < 5; ++b)
            for (int c = 0; c < 3; ++c) s += A(i, a) * B(j, b) * C(k, c) * u(a, b, c);
        EXPECT_NEAR(v(i, j, k), s, 1e-12);
      }
}

TEST(OperatorApi, LinearCombinations) {
  Matrix A(3, 3), B(3, 3);
  fill(A, 4);
  fill(B, 5);
  Tensor<2> u(3, 3);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) u(a, b) = a - 2.0 * b;
  auto sum = (2.0 * (A * B) + B * A - A * A)(u);
  auto ab = (A * B)(u), ba = (B * A)(u), aa = (A * A)(u);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(sum(i, j), 2 * ab(i, j) + ba(i, j) - aa(i, j), 1e-12);
  // Matrices are shared with the operators built from them: a later change is seen.
  auto op = A * B;
  A(0, 0) += 1;
  auto changed = op(u);
  EXPECT_NE(changed(0, 0), ab(0, 0));
}

TEST(OperatorApi, MismatchedShapesAreRefused) {
  Matrix A(3, 4), B(2, 5);
  Tensor<2> wrong(5, 4);
  EXPECT_THROW((A * B)(wrong), std::invalid_argument);
  Tensor<3> rank3(4, 5, 1);
  EXPECT_THROW((A * B)(rank3), std::invalid_argument);
  Matrix C(2, 2);
  EXPECT_THROW(A * B + A * C, std::invalid_argument);
}
