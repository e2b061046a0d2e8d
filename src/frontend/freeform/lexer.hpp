// Python's tokens, with its layout rules: NEWLINE ends a logical line,
// INDENT/DEDENT follow indentation, lines inside brackets join, comments
// vanish except `#! label: NAME`, which names the next statement.
#pragma once
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"

namespace teml::freeform {

enum class TokenKind { Name, Number, String, Op, Newline, Indent, Dedent, End };

struct Token {
  TokenKind kind;
  std::string text;   // Name/Op: as written; String: the value; Number: as written
  SourceLoc loc;
  std::string label;  // first token of a logical line: the label given before it
};

std::vector<Token> tokenize(const std::string& source);

}  // namespace teml::freeform
