#include "teml/operators.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

#include "backend/backend.hpp"
#include "driver/driver.hpp"
#include "frontend/teil/teil.hpp"
#include "runtime/buffer.hpp"
#include "runtime/jit.hpp"

namespace teml::op {

Matrix::Matrix(int64_t rows, int64_t cols) : rows_(rows), cols_(cols) {
  if (rows < 1 || cols < 1) throw std::invalid_argument("teml::op::Matrix: sizes must be positive");
  data_ = std::make_shared<std::vector<double>>(static_cast<size_t>(rows * cols));
}

Operator::Operator(std::vector<Term> terms) : terms_(std::move(terms)) {
  if (terms_.empty()) throw std::invalid_argument("teml::op::Operator: no terms");
  for (auto& t : terms_) {
    if (t.factors.size() != terms_[0].factors.size())
      throw std::invalid_argument("teml::op: a sum of operators of different ranks");
    for (size_t d = 0; d < t.factors.size(); ++d)
      if (t.factors[d].rows() != terms_[0].factors[d].rows() || t.factors[d].cols() != terms_[0].factors[d].cols())
        throw std::invalid_argument("teml::op: a sum of operators whose matrices at position " + std::to_string(d + 1) +
                                    " have different shapes");
  }
}

int Operator::rank() const { return static_cast<int>(terms_[0].factors.size()); }

namespace {

std::string sizes(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

std::string matrixName(size_t term, size_t factor) { return "M" + std::to_string(term) + "_" + std::to_string(factor); }

}  // namespace

std::string Operator::teilProgram(const std::vector<int64_t>& u) const {
  size_t n = static_cast<size_t>(rank());
  std::vector<int64_t> out;
  for (auto& m : terms_[0].factors) out.push_back(m.rows());
  std::string p = "alloc u : " + sizes(u) + "\nalloc v : " + sizes(out) + "\n";
  for (size_t t = 0; t < terms_.size(); ++t) {
    for (size_t f = 0; f < n; ++f)
      p += "alloc " + matrixName(t, f) + " : " + sizes({terms_[t].factors[f].rows(), terms_[t].factors[f].cols()}) + "\n";
    p += "alloc c" + std::to_string(t) + " : []\nalloc w" + std::to_string(t) + " : " + sizes(out) + "\n";
  }
  for (size_t t = 0; t < terms_.size(); ++t) {
    // prod M1 (prod M2 (... (prod MN u))): dimensions i1 j1 ... iN jN k1 ... kN;
    // contract every j_f with k_f, which leaves i1 ... iN.
    std::string e = "u";
    for (size_t f = n; f-- > 0;) e = "prod " + matrixName(t, f) + " (" + e + ")";
    std::vector<std::string> labels;
    for (size_t f = 0; f < n; ++f) {
      labels.push_back("i" + std::to_string(f));
      labels.push_back("j" + std::to_string(f));
    }
    for (size_t f = 0; f < n; ++f) labels.push_back("k" + std::to_string(f));
    for (size_t f = 0; f < n; ++f) {
      auto pj = std::find(labels.begin(), labels.end(), "j" + std::to_string(f)) - labels.begin();
      auto pk = std::find(labels.begin(), labels.end(), "k" + std::to_string(f)) - labels.begin();
      e = "contr " + std::to_string(pj + 1) + " " + std::to_string(pk + 1) + " (" + e + ")";
      labels.erase(labels.begin() + pk);
      labels.erase(labels.begin() + pj);
    }
    p += "w" + std::to_string(t) + " = " + e + "\n";
  }
  std::string sum = "mul c" + std::to_string(terms_.size() - 1) + " w" + std::to_string(terms_.size() - 1);
  for (size_t t = terms_.size() - 1; t-- > 0;)
    sum = "add (mul c" + std::to_string(t) + " w" + std::to_string(t) + ") (" + sum + ")";
  return p + "v = " + sum + "\n";
}

namespace {

struct Compiled {
  ir::Program program;
  std::unique_ptr<backend::Kernel> kernel;
};

// Programs compiled in this process, by their TeIL text.
const Compiled& compiled(const std::string& text) {
  static std::mutex lock;
  static std::map<std::string, std::unique_ptr<Compiled>> done;
  std::lock_guard<std::mutex> guard(lock);
  auto it = done.find(text);
  if (it != done.end()) return *it->second;
  teil::TeilProgram p = teil::parseTeil(text, {});
  teil::checkTeil(p);
  p = teil::liftContractions(p);
  teil::checkTeil(p);
  auto c = std::make_unique<Compiled>();
  c->program = teil::buildTeil(p);
  c->kernel = backend::buildFor(c->program, driver::machineTarget(0), runtime::JitOptions{});
  return *done.emplace(text, std::move(c)).first->second;
}

void copyInto(runtime::Buffer& b, const double* data) { std::memcpy(b.data(), data, b.bytes()); }

}  // namespace

void Operator::apply(const std::vector<int64_t>& shape, const double* u, double* v) const {
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != terms_[0].factors[d].cols())
      throw std::invalid_argument("teml::op: dimension " + std::to_string(d + 1) + " of the tensor has size " +
                                  std::to_string(shape[d]) + " but the operator's matrix there has " +
                                  std::to_string(terms_[0].factors[d].cols()) + " columns");
  const Compiled& c = compiled(teilProgram(shape));
  runtime::BufferMap buffers = runtime::allocateBuffers(c.program);
  copyInto(buffers.at("u"), u);
  for (size_t t = 0; t < terms_.size(); ++t) {
    buffers.at("c" + std::to_string(t)).set(0, terms_[t].coefficient);
    for (size_t f = 0; f < terms_[t].factors.size(); ++f) copyInto(buffers.at(matrixName(t, f)), terms_[t].factors[f].data());
  }
  std::vector<void*> ptrs;
  for (auto& t : c.program.tensors) ptrs.push_back(buffers.at(t.name).data());
  c.kernel->run(ptrs, 0);
  const runtime::Buffer& out = buffers.at("v");
  std::memcpy(v, out.data(), out.bytes());
}

Operator operator*(const Matrix& a, const Matrix& b) { return Operator({{1.0, {a, b}}}); }

Operator operator*(const Operator& a, const Matrix& b) {
  std::vector<Operator::Term> terms = a.terms();
  for (auto& t : terms) t.factors.push_back(b);
  return Operator(terms);
}

Operator operator*(double c, const Operator& a) {
  std::vector<Operator::Term> terms = a.terms();
  for (auto& t : terms) t.coefficient *= c;
  return Operator(terms);
}

Operator operator+(const Operator& a, const Operator& b) {
  std::vector<Operator::Term> terms = a.terms();
  terms.insert(terms.end(), b.terms().begin(), b.terms().end());
  return Operator(terms);
}

Operator operator-(const Operator& a, const Operator& b) { return a + (-1.0) * b; }

}  // namespace teml::op
