// A whole lowered program: the tensors it declares, their initial values set
// by the program (TeML's init), and the loop nests to run, in order.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::ir {

struct TensorDecl {
  std::string name;
  DType dtype = DType::F64;
  std::vector<int64_t> shape;  // empty: a scalar
  int64_t elementCount() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

struct Program {
  std::vector<TensorDecl> tensors;
  std::map<std::string, double> initialValues;  // tensor -> value every element starts with
  std::vector<StmtP> nests;                     // executed in this order

  const TensorDecl* find(const std::string& name) const {
    for (auto& t : tensors)
      if (t.name == name) return &t;
    return nullptr;
  }
};

}  // namespace teml::ir
