// Every access of one tensor (loads, stores, reductions) made to another.
#pragma once
#include <string>

#include "ir/stmt.hpp"

namespace teml::ir {

StmtP renameTensor(const StmtP& s, const std::string& from, const std::string& to);

}  // namespace teml::ir
