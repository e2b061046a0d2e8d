// The operator API in a user's program: v = (A * B * C)(u) and a linear
// combination, compiled through TeIL by teml's JIT.
// Built as build/teml_operator_example; run it with no arguments.
#include <cmath>
#include <cstdio>

#include "teml/operators.hpp"

int main() {
  using teml::op::Matrix;
  using teml::op::Tensor;
  const int n = 8;
  Matrix A(n, n), B(n, n), C(n, n);
  Tensor<3> u(n, n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      A(i, j) = 1.0 / (1 + i + j);
      B(i, j) = i == j ? 2.0 : 0.0;
      C(i, j) = std::sin(i + 2.0 * j);
    }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) u(i, j, k) = std::cos(i + j * k);

  auto v = (A * B * C)(u);
  auto w = (A * B * C - 0.5 * (B * B * B))(u);  // a linear combination of tensor products

  double sum = 0, check = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        sum += v(i, j, k);
        check += w(i, j, k) - v(i, j, k) + 0.5 * 8 * u(i, j, k);  // B x B x B = 8 I
      }
  std::printf("sum of (A*B*C)(u) = %.10f\n", sum);
  std::printf("(A*B*C - 0.5*(B*B*B))(u) - (A*B*C)(u) + 4u sums to %.2e (0 expected)\n", check);
  return std::fabs(check) < 1e-9 ? 0 : 1;
}
