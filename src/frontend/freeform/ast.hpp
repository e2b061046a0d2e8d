// Syntax of free-form programs: the subset of Python's grammar that teml
// reads (INTERFACES.md, "Free-form programs"), as one generic tree. What a
// construct means is decided when the tree is lowered (lower_*.cpp).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"

namespace teml::freeform {

struct Node;
using NodeP = std::shared_ptr<const Node>;

enum class NodeKind {
  // expressions
  Name,       // text
  Int,        // intValue
  Float,      // floatValue
  Str,        // text
  Bool,       // intValue 0/1
  NoneLit,
  BinOp,      // text: + - * / // % ** ; kids {a, b}
  UnaryOp,    // text: - + not ; kids {a}
  Compare,    // ops: < <= ... is, is not; kids: operands (chained: a < b < c)
  BoolOp,     // text: and / or ; kids: operands
  IfExp,      // kids {then, cond, otherwise}
  Call,       // kids[0]: callee; then args; keywords: names of the trailing keyword args
  Attribute,  // kids {value}; text: attribute name
  Subscript,  // kids {value, index...}; an index is an expression or a Slice
  Slice,      // kids {lower, upper}; either may be null
  Tuple,      // kids
  List,       // kids
  Dict,       // kids: key, value, key, value, ...
  // statements
  Module,     // kids: statements
  FunctionDef,  // text: name; params; kids: body; decorators
  Param,      // text: name; kids {annotation, default value} (either may be null)
  For,        // text: iterator; kids {iterable, body...}
  If,         // kids {cond, then-block, else-block (may be null)}
  Block,      // kids: statements
  Assign,     // kids {target, value}
  AugAssign,  // text: + - * /; kids {target, value}
  ExprStmt,   // kids {value}
  Pass,
  Assert,     // kids {cond, message (optional)}
  Return,     // kids {value} (may be empty)
  Import,     // text: module; alias: local name
  Unsupported,  // text: what (a construct parsed only to be refused where it is); at module level,
                // a statement teml could not read (parsePythonModule): text the name it binds,
                // alias "def" or "assign", unread the reason
};

struct Node {
  NodeKind kind;
  SourceLoc loc;
  std::string text;
  std::string label;                 // statements: `#! label: NAME` on the line before
  int64_t intValue = 0;
  double floatValue = 0;
  std::vector<std::string> ops;      // Compare
  std::vector<std::string> keywords; // Call: names of the last keywords.size() args
  std::vector<NodeP> kids;
  std::vector<NodeP> params;         // FunctionDef
  std::vector<NodeP> decorators;     // FunctionDef
  std::string alias;                 // Import
  std::shared_ptr<const UserError> unread;  // Unsupported at module level: why teml did not read it
};

NodeP makeNode(NodeKind kind, SourceLoc loc, std::vector<NodeP> kids = {}, std::string text = "");

// Parses a whole file; syntax errors are UserErrors at file:line:col.
NodeP parseModule(const std::string& source);

// A user's Python file, where only what a transform uses is teml's business:
// each top-level statement is read on its own. Imports, function definitions
// and assignments (`a = ...`, `a += ...`) are parsed; every other statement
// (`if __name__ == "__main__":`, `print(...)`, classes, loops) is Python's and
// left out. A function or an assignment outside teml's subset becomes an
// Unsupported node that names what it binds and why (an error where it is
// used); a syntax error in a function decorated from teml, or in an import of
// teml, is thrown as parseModule would.
NodeP parsePythonModule(const std::string& source);

}  // namespace teml::freeform
