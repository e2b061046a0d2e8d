// TeML's tensor expressions at the meta level. A Virtual is a tensor whose
// elements are computed, not stored: `body` gives the element at the point
// named by the iterators in `dims`; `reductions` are iterators summed over
// (a vcontract inside). A declared tensor not yet given iterators is the
// Virtual A[d1, ..., dn] over fresh iterators, marked `indexed = false`.
#pragma once
#include <string>
#include <vector>

#include "ir/expr.hpp"

namespace teml::teml_lang {

struct Virtual {
  ir::ExprP body;
  std::vector<std::string> dims;
  std::vector<std::string> reductions;
  bool indexed = true;
  std::string tensor;  // when !indexed: the declared tensor it stands for
};

// Fresh iterators are spelled with a leading '%', which no program can write.
inline bool isFreshIterator(const std::string& name) { return !name.empty() && name[0] == '%'; }

}  // namespace teml::teml_lang
