// Syntax of TeML meta-programs. Arguments of built-in calls are parsed into a
// small generic tree (numbers, names, lists, arrows, affine arithmetic); each
// built-in then interprets its arguments.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"

namespace teml::teml_lang {

struct Node;
using NodeP = std::shared_ptr<const Node>;

struct Node {
  enum class Kind { Empty, Int, Float, Name, Text, List, Arrow, Add, Sub, Mul, Neg };
  Kind kind;
  SourceLoc loc;
  int64_t intValue = 0;
  double floatValue = 0;
  std::string name;  // of a Name; a Text's contents (a string literal: "blockIdx.x", "gpu/shared")
  std::vector<NodeP> kids;  // List: items; Arrow: {lhs, rhs}; Add/Sub/Mul: {a, b}; Neg: {a}
};

struct Call {
  std::string function;
  SourceLoc loc;
  std::vector<NodeP> args;
};

struct Statement {
  enum class Kind { Assign, Codegen, Init };
  Kind kind;
  SourceLoc loc;
  std::string target;      // Assign: the identifier on the left
  std::string targetName;  // Assign with @name: the name used in generated code
  Call call;
};

struct Script {
  std::vector<Statement> statements;
};

// Throws UserError with the position of the first syntax error.
Script parse(const std::string& source);

}  // namespace teml::teml_lang
