#include <cctype>

#include "frontend/teil/teil.hpp"

namespace teml::teil {

using types::TExpr;
using types::TExprP;
using types::TOp;

namespace {

struct Token {
  enum Kind { Name, Int, Punct, End } kind;
  std::string text;
  int64_t value = 0;
  SourceLoc loc;
};

std::vector<Token> tokenize(const std::string& src) {
  std::vector<Token> out;
  int line = 1, col = 1;
  size_t i = 0;
  auto advance = [&](size_t n) {
    for (size_t k = 0; k < n; ++k, ++i) {
      if (src[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  };
  while (i < src.size()) {
    char c = src[i];
    if (c == '#') {
      while (i < src.size() && src[i] != '\n') advance(1);
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      advance(1);
      continue;
    }
    SourceLoc loc{line, col};
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < src.size() && (std::isalnum(static_cast<unsigned char>(src[j])) || src[j] == '_')) ++j;
      std::string word = src.substr(i, j - i);
      // red+ and red*: the operator is part of the keyword.
      if (word == "red" && j < src.size() && (src[j] == '+' || src[j] == '*')) word += src[j++];
      out.push_back({Token::Name, word, 0, loc});
      advance(j - i);
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) ++j;
      std::string digits = src.substr(i, j - i);
      if (digits.size() > 15) throw UserError(loc, "integer " + digits + " is too large");
      out.push_back({Token::Int, digits, std::stoll(digits), loc});
      advance(j - i);
      continue;
    }
    if (std::string("[],:=()").find(c) != std::string::npos) {
      out.push_back({Token::Punct, std::string(1, c), 0, loc});
      advance(1);
      continue;
    }
    throw UserError(loc, std::string("unexpected character '") + c + "'");
  }
  out.push_back({Token::End, "", 0, SourceLoc{line, col}});
  return out;
}

struct OpInfo {
  TOp op;
  types::RedKind red;
  int ints, exprs;
};

const std::map<std::string, OpInfo>& operations() {
  static const std::map<std::string, OpInfo> ops = {
      {"add", {TOp::Add, types::RedKind::Sum, 0, 2}},       {"mul", {TOp::Mul, types::RedKind::Sum, 0, 2}},
      {"prod", {TOp::Prod, types::RedKind::Sum, 0, 2}},     {"red+", {TOp::Red, types::RedKind::Sum, 1, 1}},
      {"red*", {TOp::Red, types::RedKind::Product, 1, 1}},  {"redmax", {TOp::Red, types::RedKind::Max, 1, 1}},
      {"redmin", {TOp::Red, types::RedKind::Min, 1, 1}},    {"transp", {TOp::Transp, types::RedKind::Sum, 2, 1}},
      {"diag", {TOp::Diag, types::RedKind::Sum, 2, 1}},     {"expa", {TOp::Expa, types::RedKind::Sum, 2, 1}},
      {"proj", {TOp::Proj, types::RedKind::Sum, 2, 1}},     {"contr", {TOp::Contr, types::RedKind::Sum, 2, 1}}};
  return ops;
}

class Parser {
 public:
  Parser(std::vector<Token> t, const std::map<std::string, int64_t>& sizes) : toks_(std::move(t)), sizes_(sizes) {}

  TeilProgram program() {
    TeilProgram p;
    while (peek().kind != Token::End) {
      if (peek().kind == Token::Name && peek().text == "alloc") {
        if (!p.statements.empty())
          throw UserError(peek().loc, "allocations come before the statements (OK-Prog)");
        p.allocs.push_back(alloc());
        continue;
      }
      p.statements.push_back(assign());
    }
    return p;
  }

 private:
  const Token& peek() const { return toks_[pos_]; }
  Token next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
  void expect(const std::string& p, const std::string& where) {
    Token t = next();
    if (t.kind != Token::Punct || t.text != p)
      throw UserError(t.loc, "expected '" + p + "' " + where + (t.kind == Token::End ? ", found the end" : ", found '" + t.text + "'"));
  }
  std::string name(const std::string& what) {
    Token t = next();
    if (t.kind != Token::Name || operations().count(t.text) || t.text == "alloc")
      throw UserError(t.loc, "expected " + what + (t.kind == Token::End ? ", found the end" : ", found '" + t.text + "'"));
    return t.text;
  }
  // An integer literal or a size bound with --set.
  int64_t integer(const std::string& what) {
    Token t = next();
    if (t.kind == Token::Int) return t.value;
    if (t.kind == Token::Name) {
      auto it = sizes_.find(t.text);
      if (it != sizes_.end()) return it->second;
      throw UserError(t.loc, what + ": '" + t.text + "' is not a size bound with --set NAME=INT");
    }
    throw UserError(t.loc, "expected " + what + (t.kind == Token::End ? ", found the end" : ", found '" + t.text + "'"));
  }

  Alloc alloc() {
    Alloc a;
    a.loc = next().loc;
    a.name = name("a tensor name after alloc");
    expect(":", "after the tensor's name");
    expect("[", "to open the tensor's sizes");
    if (!(peek().kind == Token::Punct && peek().text == "]")) {
      while (true) {
        SourceLoc at = peek().loc;
        int64_t n = integer("a dimension size");
        if (n < 1) throw UserError(at, "alloc " + a.name + ": dimension sizes are natural numbers (from 1)");
        a.shape.push_back(n);
        if (peek().kind == Token::Punct && peek().text == ",") {
          next();
          continue;
        }
        break;
      }
    }
    expect("]", "to close the tensor's sizes");
    // The same limit as TeML's tensors (2^36 elements), checked without overflow.
    int64_t elements = 1;
    for (int64_t n : a.shape) {
      if (n > (int64_t(1) << 36) || elements > (int64_t(1) << 36) / n)
        throw UserError(a.loc, "alloc " + a.name + ": tensor " + types::shapeText(a.shape) + " is too large");
      elements *= n;
    }
    return a;
  }

  Assign assign() {
    Assign s;
    s.loc = peek().loc;
    s.target = name("a statement 'x = e' or an allocation");
    expect("=", "after the assigned tensor");
    s.value = expr();
    return s;
  }

  TExprP expr() {
    struct Depth {
      int& d;
      explicit Depth(int& x) : d(++x) {}
      ~Depth() { --d; }
    } depth(depth_);
    if (depth_ > kMaxDepth) throw UserError(peek().loc, "expression nested more than 1000 levels deep");
    Token t = next();
    auto node = std::make_shared<TExpr>();
    node->loc = t.loc;
    if (t.kind == Token::Punct && t.text == "(") {
      node->op = TOp::Paren;
      node->kids.push_back(expr());
      expect(")", "to close the parenthesis");
      return node;
    }
    if (t.kind != Token::Name)
      throw UserError(t.loc, "expected a tensor expression" +
                                 (t.kind == Token::End ? std::string(", found the end") : ", found '" + t.text + "'"));
    auto op = operations().find(t.text);
    if (op == operations().end()) {
      node->op = TOp::Var;
      node->name = t.text;
      return node;
    }
    node->op = op->second.op;
    node->red = op->second.red;
    for (int k = 0; k < op->second.ints; ++k) node->ints.push_back(integer(t.text + ": an integer argument"));
    for (int k = 0; k < op->second.exprs; ++k) node->kids.push_back(expr());
    return node;
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
  static constexpr int kMaxDepth = 1000;
  const std::map<std::string, int64_t>& sizes_;
};

}  // namespace

TeilProgram parseTeil(const std::string& source, const std::map<std::string, int64_t>& sizes) {
  return Parser(tokenize(source), sizes).program();
}

}  // namespace teml::teil
