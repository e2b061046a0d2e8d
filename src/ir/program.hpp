// A whole lowered program: the tensors it declares, their initial values set
// by the program (TeML's init), and the loop nests to run, in order.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/distribution.hpp"
#include "ir/stmt.hpp"
#include "ir/tensor_decl.hpp"

namespace teml::ir {

struct Program {
  std::vector<TensorDecl> tensors;
  std::map<std::string, double> initialValues;  // tensor -> value every element starts with
  std::vector<StmtP> nests;                     // executed in this order
  std::set<std::string> temporaries;            // tensors a front end introduced (not the user's)
  Distribution distribution;                    // lowered for several MPI ranks (ranks > 1)

  // The last tensor of that name: a view that appends the tensors a nest
  // defines finds the innermost.
  const TensorDecl* find(const std::string& name) const {
    for (auto t = tensors.rbegin(); t != tensors.rend(); ++t)
      if (t->name == name) return &*t;
    return nullptr;
  }
};

}  // namespace teml::ir
