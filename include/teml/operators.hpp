// teml's C++ operator API (the TeIL paper, Section 5): matrices, tensors,
// tensor products of matrices (A * B * C), their linear combinations, and
// their application to a tensor, (A * B * C)(u). An application is lowered
// to a TeIL program (nested contractions, lifted to single ones), type-checked,
// compiled to C by teml's code generator and run by its JIT; compiled kernels
// are cached, so a repeated application costs no compilation.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace teml::op {

// A dense matrix of doubles, row-major: rows x cols.
class Matrix {
 public:
  Matrix(int64_t rows, int64_t cols);
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  double& operator()(int64_t i, int64_t j) { return data_->at(static_cast<size_t>(i * cols_ + j)); }
  double operator()(int64_t i, int64_t j) const { return data_->at(static_cast<size_t>(i * cols_ + j)); }
  double* data() { return data_->data(); }
  const double* data() const { return data_->data(); }

 private:
  int64_t rows_, cols_;
  std::shared_ptr<std::vector<double>> data_;  // shared by the operators built from it
};

// A dense N-dimensional tensor of doubles, row-major.
template <int N>
class Tensor {
 public:
  explicit Tensor(std::array<int64_t, N> shape) : shape_(shape), data_(count(shape)) {}
  template <typename... Sizes>
  explicit Tensor(Sizes... sizes) : Tensor(std::array<int64_t, N>{static_cast<int64_t>(sizes)...}) {
    static_assert(sizeof...(Sizes) == N, "one size per dimension");
  }
  const std::array<int64_t, N>& shape() const { return shape_; }
  template <typename... Index>
  double& operator()(Index... idx) {
    return data_.at(offset({static_cast<int64_t>(idx)...}));
  }
  template <typename... Index>
  double operator()(Index... idx) const {
    return data_.at(offset({static_cast<int64_t>(idx)...}));
  }
  double* data() { return data_.data(); }
  const double* data() const { return data_.data(); }

 private:
  static size_t count(const std::array<int64_t, N>& s) {
    int64_t n = 1;
    for (auto d : s) {
      if (d < 1) throw std::invalid_argument("teml::op::Tensor: sizes must be positive");
      n *= d;
    }
    return static_cast<size_t>(n);
  }
  size_t offset(const std::array<int64_t, N>& idx) const {
    int64_t o = 0;
    for (int d = 0; d < N; ++d) {
      if (idx[d] < 0 || idx[d] >= shape_[d]) throw std::out_of_range("teml::op::Tensor: index out of range");
      o = o * shape_[d] + idx[d];
    }
    return static_cast<size_t>(o);
  }
  std::array<int64_t, N> shape_;
  std::vector<double> data_;
};

// A linear combination of tensor products of matrices: sum of c * (M1 x M2 x ...).
class Operator {
 public:
  struct Term {
    double coefficient;
    std::vector<Matrix> factors;
  };
  explicit Operator(std::vector<Term> terms);
  const std::vector<Term>& terms() const { return terms_; }
  // The number of matrices in each product: the rank of the tensors it maps.
  int rank() const;

  // v = (this)(u): v[i1..iN] = sum over terms of c * M1[i1][j1] ... MN[iN][jN] u[j1..jN].
  template <int N>
  Tensor<N> operator()(const Tensor<N>& u) const {
    if (rank() != N) throw std::invalid_argument("teml::op: an operator of rank " + std::to_string(rank()) +
                                                 " applied to a tensor of rank " + std::to_string(N));
    std::array<int64_t, N> out{};
    for (int d = 0; d < N; ++d) out[d] = terms_.at(0).factors[d].rows();
    Tensor<N> v(out);
    apply(std::vector<int64_t>(u.shape().begin(), u.shape().end()), u.data(), v.data());
    return v;
  }

  // The TeIL program an application to a tensor of shape `u` runs.
  std::string teilProgram(const std::vector<int64_t>& u) const;

 private:
  void apply(const std::vector<int64_t>& shape, const double* u, double* v) const;
  std::vector<Term> terms_;
};

Operator operator*(const Matrix& a, const Matrix& b);      // a x b
Operator operator*(const Operator& a, const Matrix& b);    // each product times b
Operator operator*(double c, const Operator& a);           // scaled
Operator operator+(const Operator& a, const Operator& b);  // sum of the terms
Operator operator-(const Operator& a, const Operator& b);

}  // namespace teml::op
