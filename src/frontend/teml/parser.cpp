#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "frontend/teml/ast.hpp"

namespace teml::teml_lang {

namespace {

enum class Tok { Ident, Int, Float, Text, LParen, RParen, LBracket, RBracket, Comma, Assign, At, Colon,
                 Arrow, Plus, Minus, Star, Semi, End };

struct Token {
  Tok kind;
  std::string text;
  SourceLoc loc;
};

std::vector<Token> lex(const std::string& src) {
  std::vector<Token> out;
  int line = 1, col = 1;
  size_t i = 0;
  auto advance = [&](size_t n) {
    for (size_t k = 0; k < n && i < src.size(); ++k, ++i) {
      if (src[i] == '\n') { ++line; col = 1; } else if ((src[i] & 0xC0) != 0x80) { ++col; }
    }
  };
  while (i < src.size()) {
    char c = src[i];
    SourceLoc loc{line, col};
    if (std::isspace(static_cast<unsigned char>(c))) { advance(1); continue; }
    if (c == '#' || (c == '/' && i + 1 < src.size() && src[i + 1] == '/')) {
      while (i < src.size() && src[i] != '\n') advance(1);
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < src.size() && (std::isalnum(static_cast<unsigned char>(src[j])) || src[j] == '_')) ++j;
      out.push_back({Tok::Ident, src.substr(i, j - i), loc});
      advance(j - i);
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < src.size() && std::isdigit(static_cast<unsigned char>(src[i + 1])))) {
      size_t j = i;
      bool isFloat = false;
      while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) ++j;
      if (j < src.size() && src[j] == '.') { isFloat = true; ++j; while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) ++j; }
      if (j < src.size() && (src[j] == 'e' || src[j] == 'E')) {
        size_t k = j + 1;
        if (k < src.size() && (src[k] == '+' || src[k] == '-')) ++k;
        if (k < src.size() && std::isdigit(static_cast<unsigned char>(src[k]))) {
          isFloat = true;
          j = k;
          while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) ++j;
        }
      }
      out.push_back({isFloat ? Tok::Float : Tok::Int, src.substr(i, j - i), loc});
      advance(j - i);
      continue;
    }
    if (c == '"') {  // a string: a GPU scope or a memory type
      size_t j = i + 1;
      while (j < src.size() && src[j] != '"' && src[j] != '\n') ++j;
      if (j >= src.size() || src[j] != '"') throw UserError(loc, "unterminated string");
      out.push_back({Tok::Text, src.substr(i + 1, j - i - 1), loc});
      advance(j + 1 - i);
      continue;
    }
    if (c == '-' && i + 1 < src.size() && src[i + 1] == '>') { out.push_back({Tok::Arrow, "->", loc}); advance(2); continue; }
    if (src.compare(i, 3, "\xE2\x86\x92") == 0) { out.push_back({Tok::Arrow, "->", loc}); advance(3); continue; }
    Tok k;
    switch (c) {
      case '(': k = Tok::LParen; break;
      case ')': k = Tok::RParen; break;
      case '[': k = Tok::LBracket; break;
      case ']': k = Tok::RBracket; break;
      case ',': k = Tok::Comma; break;
      case '=': k = Tok::Assign; break;
      case '@': k = Tok::At; break;
      case ':': k = Tok::Colon; break;
      case '+': k = Tok::Plus; break;
      case '-': k = Tok::Minus; break;
      case '*': k = Tok::Star; break;
      case ';': k = Tok::Semi; break;
      default: {
        std::string shown = (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126)
                                ? "byte " + std::to_string(static_cast<unsigned char>(c))
                                : std::string("'") + c + "'";
        throw UserError(loc, "unexpected character " + shown);
      }
    }
    out.push_back({k, std::string(1, c), loc});
    advance(1);
  }
  out.push_back({Tok::End, "end of input", SourceLoc{line, col}});
  return out;
}

const char* tokName(Tok t) {
  switch (t) {
    case Tok::Ident: return "an identifier";
    case Tok::Int: return "an integer";
    case Tok::Float: return "a number";
    case Tok::Text: return "a string";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::Comma: return "','";
    case Tok::Assign: return "'='";
    case Tok::At: return "'@'";
    case Tok::Colon: return "':'";
    case Tok::Arrow: return "'->'";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Semi: return "';'";
    case Tok::End: return "end of input";
  }
  return "?";
}

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : toks_(std::move(toks)) {}

  Script script() {
    Script s;
    while (peek().kind != Tok::End) {
      if (peek().kind == Tok::Semi) { next(); continue; }
      s.statements.push_back(statement());
    }
    return s;
  }

 private:
  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  Token next() { Token t = peek(); if (pos_ < toks_.size() - 1) ++pos_; return t; }
  Token expect(Tok k, const std::string& context) {
    if (peek().kind != k)
      throw UserError(peek().loc, std::string("expected ") + tokName(k) + " " + context + ", found " + describe(peek()));
    return next();
  }
  // The closing bracket of `open`; when missing, the error (where the parser
  // noticed) carries a note at the bracket it would have matched.
  void expectClosing(Tok k, const Token& open, const std::string& context) {
    if (peek().kind == k) {
      next();
      return;
    }
    throw UserError(peek().loc, std::string("expected ") + tokName(k) + " " + context + ", found " + describe(peek()),
                    {{open.loc, "to match this '" + open.text + "'"}});
  }
  static std::string describe(const Token& t) {
    if (t.kind == Tok::End) return "end of input";
    return "'" + t.text + "'";
  }

  Statement statement() {
    Statement st;
    st.loc = peek().loc;
    Token first = expect(Tok::Ident, "at the start of a statement");
    if ((first.text == "codegen" || first.text == "init") && peek().kind == Tok::LParen) {
      st.kind = first.text == "codegen" ? Statement::Kind::Codegen : Statement::Kind::Init;
      st.call = call(first);
      return st;
    }
    st.kind = Statement::Kind::Assign;
    st.target = first.text;
    expect(Tok::Assign, "after '" + first.text + "'");
    if (peek().kind == Tok::At) {
      next();
      st.targetName = expect(Tok::Ident, "after '@'").text;
      expect(Tok::Colon, "after '@" + st.targetName + "'");
    }
    Token fn = expect(Tok::Ident, "(a built-in such as tensor, eq, build) on the right of '='");
    if (peek().kind != Tok::LParen)
      throw UserError(peek().loc, "expected '(' after '" + fn.text + "': the right of '=' is a call of a built-in");
    st.call = call(fn);
    return st;
  }

  Call call(const Token& fn) {
    Call c{fn.text, fn.loc, {}};
    Token open = expect(Tok::LParen, "after '" + fn.text + "'");
    if (peek().kind != Tok::RParen) {
      c.args.push_back(argument());
      while (peek().kind == Tok::Comma) {
        next();
        c.args.push_back(argument());
      }
    }
    expectClosing(Tok::RParen, open, "to close the arguments of '" + fn.text + "'");
    return c;
  }

  static NodeP make(Node::Kind k, SourceLoc loc, std::vector<NodeP> kids = {}) {
    auto n = std::make_shared<Node>();
    n->kind = k;
    n->loc = loc;
    n->kids = std::move(kids);
    return n;
  }

  bool atItemEnd() const {
    Tok k = peek().kind;
    return k == Tok::Comma || k == Tok::RBracket || k == Tok::RParen || k == Tok::Arrow;
  }

  // argument := [sum] ['->' sum]
  NodeP argument() {
    SourceLoc loc = peek().loc;
    NodeP lhs = atItemEnd() ? make(Node::Kind::Empty, loc) : sum();
    if (peek().kind == Tok::Arrow) {
      next();
      NodeP rhs = sum();
      return make(Node::Kind::Arrow, loc, {lhs, rhs});
    }
    if (lhs->kind == Node::Kind::Empty) throw UserError(loc, "expected an argument, found " + describe(peek()));
    return lhs;
  }

  NodeP sum() {
    NodeP a = term();
    while (peek().kind == Tok::Plus || peek().kind == Tok::Minus) {
      Token op = next();
      NodeP b = term();
      a = make(op.kind == Tok::Plus ? Node::Kind::Add : Node::Kind::Sub, op.loc, {a, b});
    }
    return a;
  }

  NodeP term() {
    NodeP a = unary();
    while (peek().kind == Tok::Star) {
      Token op = next();
      NodeP b = unary();
      a = make(Node::Kind::Mul, op.loc, {a, b});
    }
    return a;
  }

  NodeP unary() {
    struct Depth {
      int& d;
      explicit Depth(int& x) : d(x) { ++d; }
      ~Depth() { --d; }
    } guard(depth_);
    if (depth_ > 200) throw UserError(peek().loc, "expression nested too deeply");
    if (peek().kind == Tok::Minus) {
      Token op = next();
      return make(Node::Kind::Neg, op.loc, {unary()});
    }
    return primary();
  }

  NodeP primary() {
    Token t = peek();
    switch (t.kind) {
      case Tok::Int: {
        next();
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::Int;
        n->loc = t.loc;
        errno = 0;
        n->intValue = std::strtoll(t.text.c_str(), nullptr, 10);
        if (errno == ERANGE) throw UserError(t.loc, "integer " + t.text + " is too large");
        return n;
      }
      case Tok::Float: {
        next();
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::Float;
        n->loc = t.loc;
        n->floatValue = std::strtod(t.text.c_str(), nullptr);
        return n;
      }
      case Tok::Text: {
        next();
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::Text;
        n->loc = t.loc;
        n->name = t.text;
        return n;
      }
      case Tok::Ident: {
        next();
        if (peek().kind == Tok::LParen)
          throw UserError(t.loc, "calls cannot be nested: TeML statements are in three-address form; "
                                 "assign '" + t.text + "(...)' to an identifier first");
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::Name;
        n->loc = t.loc;
        n->name = t.text;
        return n;
      }
      case Tok::LBracket: {
        next();
        std::vector<NodeP> items;
        if (peek().kind != Tok::RBracket) {
          while (true) {
            SourceLoc loc = peek().loc;
            items.push_back(atItemEnd() && peek().kind != Tok::Arrow ? make(Node::Kind::Empty, loc) : argument());
            if (peek().kind != Tok::Comma) break;
            next();
            if (peek().kind == Tok::RBracket) { items.push_back(make(Node::Kind::Empty, peek().loc)); break; }
          }
        }
        expectClosing(Tok::RBracket, t, "to close the list");
        return make(Node::Kind::List, t.loc, std::move(items));
      }
      case Tok::LParen: {
        next();
        NodeP inner = sum();
        expectClosing(Tok::RParen, t, "to close the parenthesis");
        return inner;
      }
      default:
        throw UserError(t.loc, "expected a number, a name or a list, found " + describe(t));
    }
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Script parse(const std::string& source) { return Parser(lex(source)).script(); }

}  // namespace teml::teml_lang
