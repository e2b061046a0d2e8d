#include "frontend/freeform/lexer.hpp"

#include <cctype>

namespace teml::freeform {

namespace {

const char* const kOps[] = {"**=", "//=", ">>=", "<<=", "...", "**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=",
                            "/=",  "%=",  "&=",  "|=",  "^=",  "->", "<<", ">>", ":=", "+",  "-",  "*",  "/",  "%",
                            "<",   ">",   "=",   "(",   ")",   "[",  "]",  "{",  "}",  ",",  ":",  ".",  ";",  "@",
                            "~",   "&",   "|",   "^"};

class Lexer {
 public:
  explicit Lexer(const std::string& s) : src_(s) {}

  std::vector<Token> run() {
    indents_.push_back(0);
    while (pos_ < src_.size()) {
      if (atLineStart_ && depth_ == 0 && !lineStart()) continue;
      char c = src_[pos_];
      if (c == '\n') {
        if (depth_ == 0 && !out_.empty() && out_.back().kind != TokenKind::Newline && !lineEmpty_)
          emit(TokenKind::Newline, "");
        advance();
        // Inside brackets a line continues the statement (implicit joining).
        atLineStart_ = depth_ == 0;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        advance();
        continue;
      }
      if (c == '\\' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n') {  // explicit line joining
        advance();
        advance();
        continue;
      }
      if (c == '#') {
        comment();
        continue;
      }
      token();
    }
    if (!out_.empty() && out_.back().kind != TokenKind::Newline && !lineEmpty_) emit(TokenKind::Newline, "");
    while (indents_.size() > 1) {
      indents_.pop_back();
      emit(TokenKind::Dedent, "");
    }
    emit(TokenKind::End, "");
    return out_;
  }

 private:
  // At the start of a physical line outside brackets: measure the
  // indentation; blank and comment-only lines do not count. Returns false
  // when it consumed the line.
  bool lineStart() {
    int width = 0;
    size_t p = pos_;
    while (p < src_.size() && (src_[p] == ' ' || src_[p] == '\t')) width = src_[p++] == '\t' ? (width / 8 + 1) * 8 : width + 1;
    while (pos_ < p) advance();
    if (pos_ >= src_.size()) return false;
    char c = src_[pos_];
    if (c == '\n' || c == '\r' || c == '#') {
      if (c == '#') comment();
      if (pos_ < src_.size() && src_[pos_] == '\r') advance();
      if (pos_ < src_.size() && src_[pos_] == '\n') advance();
      return false;
    }
    atLineStart_ = false;
    lineEmpty_ = false;
    if (width > indents_.back()) {
      indents_.push_back(width);
      emit(TokenKind::Indent, "");
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        emit(TokenKind::Dedent, "");
      }
      if (width != indents_.back()) fail("unindent does not match any outer indentation level");
    }
    firstOfLine_ = true;
    return true;
  }

  void comment() {
    size_t end = src_.find('\n', pos_);
    if (end == std::string::npos) end = src_.size();
    std::string text = src_.substr(pos_, end - pos_);
    SourceLoc at = here();
    while (pos_ < end) advance();
    // "#! label: NAME"
    if (text.rfind("#!", 0) != 0) return;
    std::string rest = text.substr(2);
    size_t k = rest.find_first_not_of(" \t");
    if (k == std::string::npos || rest.compare(k, 6, "label:") != 0) return;
    std::string name = rest.substr(k + 6);
    size_t a = name.find_first_not_of(" \t\r"), b = name.find_last_not_of(" \t\r");
    name = a == std::string::npos ? "" : name.substr(a, b - a + 1);
    bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char ch : name) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
    if (!ok) throw UserError(at, "a label is a name: '#! label: NAME', not '" + text + "'");
    pendingLabel_ = name;
    pendingLabelLoc_ = at;
  }

  void token() {
    SourceLoc at = here();
    char c = src_[pos_];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::string s;
      while (pos_ < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
        s += advance();
      // String prefixes (r"...", b'...') are not part of the subset.
      if (pos_ < src_.size() && (src_[pos_] == '"' || src_[pos_] == '\'') && s.size() <= 2)
        throw UserError(at, "not supported in teml programs: string prefix '" + s + "'");
      push(TokenKind::Name, s, at);
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && pos_ + 1 < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_ + 1])))) {
      std::string s;
      while (pos_ < src_.size()) {
        char d = src_[pos_];
        bool exp = (d == 'e' || d == 'E');
        if (std::isalnum(static_cast<unsigned char>(d)) || d == '.' || d == '_') {
          s += advance();
          if (exp && pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-') && s.find_first_of("xX") == std::string::npos)
            s += advance();
        } else {
          break;
        }
      }
      push(TokenKind::Number, s, at);
      return;
    }
    if (c == '"' || c == '\'') {
      push(TokenKind::String, string(c, at), at);
      return;
    }
    for (const char* op : kOps) {
      size_t n = std::char_traits<char>::length(op);
      if (src_.compare(pos_, n, op) == 0) {
        std::string s(op);
        for (size_t k = 0; k < n; ++k) advance();
        if (s == "(" || s == "[" || s == "{") ++depth_;
        if ((s == ")" || s == "]" || s == "}") && depth_ > 0) --depth_;
        push(TokenKind::Op, s, at);
        return;
      }
    }
    throw UserError(at, std::string("unexpected character '") + c + "'");
  }

  std::string string(char quote, SourceLoc at) {
    bool triple = src_.compare(pos_, 3, std::string(3, quote)) == 0;
    for (int k = 0; k < (triple ? 3 : 1); ++k) advance();
    std::string s;
    while (true) {
      if (pos_ >= src_.size()) throw UserError(at, "unterminated string");
      char c = src_[pos_];
      if (triple ? src_.compare(pos_, 3, std::string(3, quote)) == 0 : c == quote) {
        for (int k = 0; k < (triple ? 3 : 1); ++k) advance();
        return s;
      }
      if (c == '\n' && !triple) throw UserError(at, "unterminated string");
      if (c == '\\' && pos_ + 1 < src_.size()) {
        advance();
        char e = advance();
        s += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        continue;
      }
      s += advance();
    }
  }

  void push(TokenKind kind, std::string text, SourceLoc at) {
    Token t{kind, std::move(text), at, ""};
    if (firstOfLine_) {
      t.label = pendingLabel_;
      pendingLabel_.clear();
      firstOfLine_ = false;
    }
    out_.push_back(std::move(t));
  }
  void emit(TokenKind kind, std::string text) { out_.push_back(Token{kind, std::move(text), here(), ""}); }

  char advance() {
    char c = src_[pos_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    return c;
  }
  SourceLoc here() const { return {line_, col_}; }
  [[noreturn]] void fail(const std::string& m) const { throw UserError(here(), m); }

  const std::string& src_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
  int depth_ = 0;  // open brackets
  bool atLineStart_ = true, firstOfLine_ = false, lineEmpty_ = true;
  std::vector<int> indents_;
  std::vector<Token> out_;
  std::string pendingLabel_;
  SourceLoc pendingLabelLoc_;
};

}  // namespace

std::vector<Token> tokenize(const std::string& source) { return Lexer(source).run(); }

}  // namespace teml::freeform
