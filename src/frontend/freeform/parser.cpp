// Recursive descent over Python's grammar, restricted to the subset; the
// constructs teml refuses are recognised here and refused at their place.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>

#include "frontend/freeform/ast.hpp"
#include "frontend/freeform/lexer.hpp"

namespace teml::freeform {

NodeP makeNode(NodeKind kind, SourceLoc loc, std::vector<NodeP> kids, std::string text) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->loc = loc;
  n->kids = std::move(kids);
  n->text = std::move(text);
  return n;
}

namespace {

using NodeM = std::shared_ptr<Node>;

NodeM make(NodeKind kind, SourceLoc loc, std::vector<NodeP> kids = {}, std::string text = "") {
  return std::const_pointer_cast<Node>(makeNode(kind, loc, std::move(kids), std::move(text)));
}

[[noreturn]] void unsupported(SourceLoc loc, const std::string& what) {
  throw UserError(loc, "not supported in teml programs: " + what);
}

class Parser {
 public:
  explicit Parser(std::vector<Token> t) : toks_(std::move(t)) {}

  NodeP module() {
    auto m = make(NodeKind::Module, {1, 1});
    while (!at(TokenKind::End)) {
      if (accept(TokenKind::Newline)) continue;
      m->kids.push_back(statement());
    }
    return m;
  }

 private:
  // ---- tokens
  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool at(TokenKind k) const { return peek().kind == k; }
  bool atOp(const std::string& s) const { return peek().kind == TokenKind::Op && peek().text == s; }
  bool atName(const std::string& s) const { return peek().kind == TokenKind::Name && peek().text == s; }
  const Token& next() { return toks_[std::min(pos_++, toks_.size() - 1)]; }
  bool accept(TokenKind k) {
    if (!at(k)) return false;
    next();
    return true;
  }
  bool acceptOp(const std::string& s) {
    if (!atOp(s)) return false;
    next();
    return true;
  }
  std::string describe(const Token& t) const {
    switch (t.kind) {
      case TokenKind::Newline: return "end of line";
      case TokenKind::Indent: return "an indented block";
      case TokenKind::Dedent: return "the end of a block";
      case TokenKind::End: return "the end of the file";
      case TokenKind::String: return "a string";
      default: return "'" + t.text + "'";
    }
  }
  const Token& expectOp(const std::string& s, const Token* open = nullptr) {
    if (!atOp(s)) {
      std::vector<DiagnosticNote> notes;
      if (open) notes.push_back({open->loc, "to match this '" + open->text + "'"});
      throw UserError(peek().loc, "expected '" + s + "', found " + describe(peek()), notes);
    }
    return next();
  }
  std::string expectName(const std::string& what) {
    if (!at(TokenKind::Name) || keyword(peek().text))
      throw UserError(peek().loc, "expected " + what + ", found " + describe(peek()));
    return next().text;
  }
  static bool keyword(const std::string& s) {
    static const std::set<std::string> k = {"False", "None",   "True",  "and",    "as",     "assert", "async",
                                            "await", "break",  "class", "continue", "def",  "del",    "elif",
                                            "else",  "except", "finally", "for",  "from",   "global", "if",
                                            "import", "in",    "is",    "lambda", "nonlocal", "not",  "or",
                                            "pass",  "raise",  "return", "try",   "while",  "with",   "yield"};
    return k.count(s) > 0;
  }
  void endOfStatement() {
    if (acceptOp(";")) {
      if (!at(TokenKind::Newline)) unsupported(peek().loc, "several statements on one line (';')");
    }
    if (!accept(TokenKind::Newline) && !at(TokenKind::End) && !at(TokenKind::Dedent))
      throw UserError(peek().loc, "expected end of line, found " + describe(peek()));
  }

  // ---- statements
  NodeP statement() {
    const Token& first = peek();
    std::string label = first.label;
    NodeM s = statementBody();
    if (!label.empty()) s->label = label;
    return s;
  }

  NodeM statementBody() {
    const Token& t = peek();
    SourceLoc loc = t.loc;
    if (atOp("@")) return decorated();
    if (t.kind == TokenKind::Indent) throw UserError(loc, "unexpected indent");
    if (t.kind == TokenKind::Name) {
      const std::string& w = t.text;
      if (w == "def") return function({});
      if (w == "for") return forStmt();
      if (w == "if") return ifStmt();
      if (w == "pass") {
        next();
        endOfStatement();
        return make(NodeKind::Pass, loc);
      }
      if (w == "assert") {
        next();
        auto a = make(NodeKind::Assert, loc, {test()});
        if (acceptOp(",")) a->kids.push_back(test());  // the message
        endOfStatement();
        return a;
      }
      if (w == "return") {
        next();
        auto r = make(NodeKind::Return, loc);
        if (!at(TokenKind::Newline) && !at(TokenKind::End)) r->kids.push_back(testList());
        endOfStatement();
        return r;
      }
      if (w == "import") return importStmt();
      if (w == "from") return fromImport();
      static const std::map<std::string, std::string> refused = {
          {"while", "'while' loops (use for ... in range(...))"}, {"with", "'with' statements"},
          {"try", "'try' statements"}, {"class", "classes"}, {"global", "'global'"}, {"nonlocal", "'nonlocal'"},
          {"del", "'del'"}, {"raise", "'raise'"}, {"yield", "generators ('yield')"}, {"break", "'break'"},
          {"continue", "'continue'"}, {"async", "'async'"}, {"await", "'await'"}, {"lambda", "lambda expressions"},
          {"else", "'else' without 'if'"}, {"elif", "'elif' without 'if'"}};
      auto r = refused.find(w);
      if (r != refused.end()) unsupported(loc, r->second);
    }
    NodeP lhs = testList();
    if (atOp("=")) {
      next();
      NodeP value = testList();
      if (atOp("=")) unsupported(peek().loc, "chained assignment (a = b = ...)");
      endOfStatement();
      return make(NodeKind::Assign, loc, {lhs, value});
    }
    static const std::set<std::string> aug = {"+=", "-=", "*=", "/="};
    if (peek().kind == TokenKind::Op && aug.count(peek().text)) {
      std::string op = next().text;
      NodeP value = testList();
      endOfStatement();
      return make(NodeKind::AugAssign, loc, {lhs, value}, op.substr(0, 1));
    }
    if (peek().kind == TokenKind::Op && peek().text.size() >= 2 && peek().text.back() == '=' &&
        peek().text != "==" && peek().text != "!=" && peek().text != "<=" && peek().text != ">=")
      unsupported(peek().loc, "augmented assignment '" + peek().text + "' (only += -= *= /=)");
    if (atOp(":")) unsupported(peek().loc, "annotated assignments");
    endOfStatement();
    return make(NodeKind::ExprStmt, loc, {lhs});
  }

  NodeM decorated() {
    std::vector<NodeP> decorators;
    while (acceptOp("@")) {
      decorators.push_back(test());
      if (!accept(TokenKind::Newline)) throw UserError(peek().loc, "expected end of line after a decorator");
    }
    if (!atName("def")) throw UserError(peek().loc, "expected 'def' after decorators");
    return function(decorators);
  }

  NodeM function(std::vector<NodeP> decorators) {
    SourceLoc loc = next().loc;  // def
    auto f = make(NodeKind::FunctionDef, loc, {}, expectName("a function name"));
    f->decorators = std::move(decorators);
    const Token& open = expectOp("(");
    while (!atOp(")")) {
      if (atOp("*") || atOp("**") || atOp("/")) unsupported(peek().loc, "'*', '**' and '/' in parameter lists");
      SourceLoc ploc = peek().loc;
      auto p = make(NodeKind::Param, ploc, {nullptr, nullptr}, expectName("a parameter name"));
      if (acceptOp(":")) p->kids[0] = test();
      if (acceptOp("=")) p->kids[1] = test();
      f->params.push_back(p);
      if (!acceptOp(",")) break;
    }
    expectOp(")", &open);
    if (acceptOp("->")) test();
    f->kids = block();
    return f;
  }

  std::vector<NodeP> block() {
    expectOp(":");
    std::vector<NodeP> body;
    if (!accept(TokenKind::Newline)) {  // a simple statement on the same line
      body.push_back(statement());
      return body;
    }
    if (!accept(TokenKind::Indent)) throw UserError(peek().loc, "expected an indented block");
    while (!accept(TokenKind::Dedent) && !at(TokenKind::End)) {
      if (accept(TokenKind::Newline)) continue;
      body.push_back(statement());
    }
    // A docstring is not a statement.
    if (!body.empty() && body[0]->kind == NodeKind::ExprStmt && body[0]->kids[0]->kind == NodeKind::Str)
      body.erase(body.begin());
    if (body.empty()) body.push_back(makeNode(NodeKind::Pass, peek().loc));
    return body;
  }

  NodeM forStmt() {
    SourceLoc loc = next().loc;
    SourceLoc vloc = peek().loc;
    std::string v = expectName("a loop variable");
    if (atOp(",")) unsupported(peek().loc, "several loop variables (for a, b in ...)");
    if (!atName("in")) throw UserError(peek().loc, "expected 'in', found " + describe(peek()));
    next();
    NodeP iterable = testList();
    auto f = make(NodeKind::For, loc, {iterable}, v);
    auto body = block();
    f->kids.push_back(makeNode(NodeKind::Block, vloc, body));
    if (atName("else")) unsupported(peek().loc, "'else' after a loop");
    return f;
  }

  NodeM ifStmt() {
    SourceLoc loc = next().loc;  // if / elif
    NodeP cond = test();
    NodeP then = makeNode(NodeKind::Block, loc, block());
    NodeP otherwise;
    if (atName("elif")) {
      SourceLoc eloc = peek().loc;
      otherwise = makeNode(NodeKind::Block, eloc, {ifStmt()});
    } else if (atName("else")) {
      SourceLoc eloc = next().loc;
      otherwise = makeNode(NodeKind::Block, eloc, block());
    }
    return make(NodeKind::If, loc, {cond, then, otherwise});
  }

  NodeM importStmt() {
    SourceLoc loc = next().loc;
    std::string module = dottedName();
    auto n = make(NodeKind::Import, loc, {}, module);
    n->alias = module;
    if (atName("as")) {
      next();
      n->alias = expectName("a name");
    }
    if (!atOp(",")) {
      endOfStatement();
      return n;
    }
    // `import numpy as np, teml`: one Import per module, in a Block.
    auto all = make(NodeKind::Block, loc, {n});
    while (acceptOp(",")) {
      SourceLoc mloc = peek().loc;
      std::string more = dottedName();
      auto m = make(NodeKind::Import, mloc, {}, more);
      m->alias = more;
      if (atName("as")) {
        next();
        m->alias = expectName("a name");
      }
      all->kids.push_back(m);
    }
    endOfStatement();
    return all;
  }

  NodeM fromImport() {
    SourceLoc loc = next().loc;
    std::string module = dottedName();
    if (!atName("import")) throw UserError(peek().loc, "expected 'import', found " + describe(peek()));
    next();
    auto n = make(NodeKind::Import, loc, {}, module);
    bool paren = acceptOp("(");
    while (true) {
      if (acceptOp("*")) break;
      SourceLoc nloc = peek().loc;
      std::string name = expectName("a name");
      std::string alias = name;
      if (atName("as")) {
        next();
        alias = expectName("a name");
      }
      auto item = make(NodeKind::Name, nloc, {}, name);
      item->alias = alias;
      n->kids.push_back(item);
      if (!acceptOp(",")) break;
    }
    if (paren) expectOp(")");
    endOfStatement();
    return n;
  }

  std::string dottedName() {
    std::string s = expectName("a module name");
    while (acceptOp(".")) s += "." + expectName("a module name");
    return s;
  }

  // ---- expressions
  NodeP testList() {
    SourceLoc loc = peek().loc;
    NodeP first = test();
    if (!atOp(",")) return first;
    auto t = make(NodeKind::Tuple, loc, {first});
    while (acceptOp(",")) {
      if (endsTuple()) break;
      t->kids.push_back(test());
    }
    return t;
  }
  bool endsTuple() const {
    return at(TokenKind::Newline) || at(TokenKind::End) || atOp("=") || atOp(")") || atOp("]") || atOp(":") ||
           (peek().kind == TokenKind::Op && peek().text.size() == 2 && peek().text[1] == '=' && peek().text != "==");
  }

  NodeP test() {
    if (atName("lambda")) unsupported(peek().loc, "lambda expressions");
    NodeP e = orTest();
    if (atName("if")) {
      SourceLoc loc = next().loc;
      NodeP cond = orTest();
      if (!atName("else")) throw UserError(peek().loc, "expected 'else' in a conditional expression");
      next();
      NodeP otherwise = test();
      return make(NodeKind::IfExp, loc, {e, cond, otherwise});
    }
    if (atOp(":=")) unsupported(peek().loc, "assignment expressions (':=')");
    return e;
  }

  NodeP boolChain(const std::string& op, NodeP (Parser::*sub)()) {
    NodeP first = (this->*sub)();
    if (!atName(op)) return first;
    auto n = make(NodeKind::BoolOp, first->loc, {first}, op);
    while (atName(op)) {
      next();
      n->kids.push_back((this->*sub)());
    }
    return n;
  }
  NodeP orTest() { return boolChain("or", &Parser::andTest); }
  NodeP andTest() { return boolChain("and", &Parser::notTest); }
  NodeP notTest() {
    if (atName("not")) {
      SourceLoc loc = next().loc;
      return make(NodeKind::UnaryOp, loc, {notTest()}, "not");
    }
    return comparison();
  }

  NodeP comparison() {
    NodeP first = arith();
    static const std::set<std::string> ops = {"<", "<=", ">", ">=", "==", "!="};
    if (!(peek().kind == TokenKind::Op && ops.count(peek().text)) && !atName("in") && !atName("is") &&
        !(atName("not") && peek(1).text == "in"))
      return first;
    auto n = make(NodeKind::Compare, first->loc, {first});
    while (true) {
      if (atName("is")) {  // only with None: `x is None`, `x is not None`
        next();
        bool negated = atName("not") && (next(), true);
        n->ops.push_back(negated ? "is not" : "is");
        n->kids.push_back(arith());
        continue;
      }
      if (atName("in") || atName("not")) unsupported(peek().loc, "'" + peek().text + "' comparisons");
      if (!(peek().kind == TokenKind::Op && ops.count(peek().text))) break;
      n->ops.push_back(next().text);
      n->kids.push_back(arith());
    }
    return n;
  }

  NodeP binaryLevel(const std::set<std::string>& ops, NodeP (Parser::*sub)()) {
    NodeP e = (this->*sub)();
    while (peek().kind == TokenKind::Op && ops.count(peek().text)) {
      const Token& t = next();
      e = make(NodeKind::BinOp, e->loc, {e, (this->*sub)()}, t.text);
    }
    return e;
  }
  NodeP arith() {
    NodeP e = binaryLevel({"+", "-"}, &Parser::term);
    if (peek().kind == TokenKind::Op && (peek().text == "&" || peek().text == "|" || peek().text == "^" ||
                                         peek().text == "<<" || peek().text == ">>"))
      unsupported(peek().loc, "bitwise operator '" + peek().text + "'");
    return e;
  }
  NodeP term() {
    NodeP e = binaryLevel({"*", "/", "//", "%"}, &Parser::factor);
    if (atOp("@")) unsupported(peek().loc, "the '@' operator (use teml.libop.matmul)");
    return e;
  }
  NodeP factor() {
    if (atOp("-") || atOp("+")) {
      const Token& t = next();
      return make(NodeKind::UnaryOp, t.loc, {factor()}, t.text);
    }
    if (atOp("~")) unsupported(peek().loc, "bitwise operator '~'");
    return power();
  }
  NodeP power() {
    NodeP e = trailers(atom());
    if (atOp("**")) {
      next();
      return make(NodeKind::BinOp, e->loc, {e, factor()}, "**");
    }
    return e;
  }

  NodeP trailers(NodeP e) {
    while (true) {
      if (atOp("(")) {
        const Token& open = next();
        auto c = make(NodeKind::Call, open.loc, {e});
        c->loc = e->loc;
        bool keywords = false;
        while (!atOp(")")) {
          if (atOp("*") || atOp("**")) unsupported(peek().loc, "'*' and '**' arguments");
          if (at(TokenKind::Name) && peek(1).kind == TokenKind::Op && peek(1).text == "=") {
            c->keywords.push_back(next().text);
            next();
            keywords = true;
          } else if (keywords) {
            throw UserError(peek().loc, "a positional argument follows a keyword argument");
          }
          c->kids.push_back(test());
          if (atName("for")) unsupported(peek().loc, "generator expressions");
          if (!acceptOp(",")) break;
        }
        expectOp(")", &open);
        e = c;
      } else if (atOp("[")) {
        const Token& open = next();
        auto s = make(NodeKind::Subscript, open.loc, {e});
        s->loc = e->loc;
        while (!atOp("]")) {  // t[()] indexes with an empty tuple: no index at all
          s->kids.push_back(subscriptItem());
          if (!acceptOp(",")) break;
        }
        expectOp("]", &open);
        e = s;
      } else if (atOp(".")) {
        next();
        e = make(NodeKind::Attribute, e->loc, {e}, expectName("an attribute name"));
      } else {
        return e;
      }
    }
  }

  NodeP subscriptItem() {
    SourceLoc loc = peek().loc;
    NodeP lower, upper;
    if (!atOp(":")) {
      lower = test();
      if (!atOp(":")) return lower;
    }
    next();  // ':'
    if (!atOp(",") && !atOp("]") && !atOp(":")) upper = test();
    if (atOp(":")) unsupported(peek().loc, "slices with a step");
    return make(NodeKind::Slice, loc, {lower, upper});
  }

  NodeP atom() {
    const Token& t = peek();
    SourceLoc loc = t.loc;
    switch (t.kind) {
      case TokenKind::Number: return number(next());
      case TokenKind::String: {
        std::string s;
        while (at(TokenKind::String)) s += next().text;
        return make(NodeKind::Str, loc, {}, s);
      }
      case TokenKind::Name: {
        if (t.text == "True" || t.text == "False") {
          auto b = make(NodeKind::Bool, loc);
          b->intValue = next().text == "True";
          return b;
        }
        if (t.text == "None") {
          next();
          return make(NodeKind::NoneLit, loc);
        }
        if (t.text == "lambda") unsupported(loc, "lambda expressions");
        if (t.text == "yield" || t.text == "await") unsupported(loc, "'" + t.text + "'");
        if (keyword(t.text) && t.text != "not") throw UserError(loc, "unexpected '" + t.text + "'");
        return make(NodeKind::Name, loc, {}, next().text);
      }
      case TokenKind::Op: {
        if (t.text == "(") {
          const Token& open = next();
          if (atOp(")")) {
            next();
            return make(NodeKind::Tuple, loc);
          }
          NodeP e = test();
          if (atName("for")) unsupported(peek().loc, "generator expressions");
          if (atOp(",")) {
            auto tup = make(NodeKind::Tuple, loc, {e});
            while (acceptOp(",")) {
              if (atOp(")")) break;
              tup->kids.push_back(test());
            }
            e = tup;
          }
          expectOp(")", &open);
          return e;
        }
        if (t.text == "[") {
          const Token& open = next();
          auto l = make(NodeKind::List, loc);
          while (!atOp("]")) {
            l->kids.push_back(test());
            if (atName("for")) unsupported(peek().loc, "list comprehensions");
            if (!acceptOp(",")) break;
          }
          expectOp("]", &open);
          return l;
        }
        if (t.text == "{") {  // a dict (an entry returns its tensors by name in one)
          const Token& open = next();
          auto d = make(NodeKind::Dict, loc);
          while (!atOp("}")) {
            d->kids.push_back(test());
            if (atName("for")) unsupported(peek().loc, "dict comprehensions");
            if (!acceptOp(":")) unsupported(loc, "sets");
            d->kids.push_back(test());
            if (!acceptOp(",")) break;
          }
          expectOp("}", &open);
          return d;
        }
        if (t.text == "...") unsupported(loc, "'...'");
        break;
      }
      default: break;
    }
    throw UserError(loc, "expected an expression, found " + describe(t));
  }

  NodeP number(const Token& t) {
    std::string s;
    for (char c : t.text)
      if (c != '_') s += c;
    bool isFloat = s.find_first_of(".eE") != std::string::npos && s.find_first_of("xX") == std::string::npos;
    if (s.find_first_of("jJ") != std::string::npos) unsupported(t.loc, "complex numbers");
    char* end = nullptr;
    errno = 0;
    if (isFloat) {
      auto n = make(NodeKind::Float, t.loc);
      n->floatValue = std::strtod(s.c_str(), &end);
      if (*end) throw UserError(t.loc, "malformed number '" + t.text + "'");
      return n;
    }
    auto n = make(NodeKind::Int, t.loc);
    int base = 10;
    std::string digits = s;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'o' || s[1] == 'O' || s[1] == 'b' || s[1] == 'B')) {
      base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
      digits = s.substr(2);
    }
    n->intValue = std::strtoll(digits.c_str(), &end, base);
    if (*end || digits.empty()) throw UserError(t.loc, "malformed number '" + t.text + "'");
    if (errno == ERANGE) throw UserError(t.loc, "the integer " + t.text + " does not fit in 64 bits");
    return n;
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
};

}  // namespace

NodeP parseModule(const std::string& source) { return Parser(tokenize(source)).module(); }

// ---- a user's Python file, statement by statement (parsePythonModule)
namespace {

// What each character of Python source is, to split a file into its
// top-level statements without parsing them: code at bracket depth 0, code
// inside brackets (or a backslash joining lines), or text of a string or comment.
enum class CharClass : char { Top, Nested, Text };

std::vector<CharClass> classifyChars(const std::string& s) {
  std::vector<CharClass> out(s.size(), CharClass::Top);
  int depth = 0;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') out[i++] = CharClass::Text;
      continue;
    }
    if (c == '"' || c == '\'') {  // a prefix (f, r, b) is a name's letters before it: code
      const std::string close(s.compare(i, 3, std::string(3, c)) == 0 ? 3 : 1, c);
      for (size_t k = 0; k < close.size(); ++k) out[i++] = CharClass::Text;
      while (i < s.size()) {
        if (s.compare(i, close.size(), close) == 0) {
          for (size_t k = 0; k < close.size(); ++k) out[i++] = CharClass::Text;
          break;
        }
        if (close.size() == 1 && s[i] == '\n') break;  // unterminated: the line ends it
        if (s[i] == '\\' && i + 1 < s.size()) out[i++] = CharClass::Text;
        out[i++] = CharClass::Text;
      }
      continue;
    }
    if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {  // explicit line joining
      out[i++] = CharClass::Nested;
      out[i++] = CharClass::Nested;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      out[i++] = depth > 0 ? CharClass::Nested : CharClass::Top;
      ++depth;
      continue;
    }
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    out[i++] = depth > 0 ? CharClass::Nested : CharClass::Top;
  }
  return out;
}

// One top-level statement: [begin, end) from the start of its first line
// (decorators included) to the end of its last logical line.
struct TopStatement {
  size_t begin, end;
  int line;
};

std::vector<TopStatement> topLevelStatements(const std::string& s, const std::vector<CharClass>& cls) {
  std::vector<TopStatement> out;
  bool afterDecorator = false;
  size_t segment = 0;  // start of the current logical line's first physical line
  int line = 1, segmentLine = 1;
  for (size_t i = 0; i <= s.size(); ++i) {
    bool ends = i == s.size() || (s[i] == '\n' && cls[i] == CharClass::Top);
    if (!ends) {
      if (s[i] == '\n') ++line;
      continue;
    }
    size_t k = segment;
    while (k < i && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\f')) ++k;
    if (k < i && s[k] != '#') {  // not blank, not only a comment
      bool indented = k > segment;
      if (indented && !out.empty()) {
        out.back().end = i;
      } else if (!indented && afterDecorator && !out.empty()) {
        out.back().end = i;
      } else {
        out.push_back({segment, i, segmentLine});
      }
      if (!indented) afterDecorator = s[k] == '@';
    }
    segment = i + 1;
    segmentLine = ++line;
  }
  return out;
}

std::string firstWord(const std::string& s, size_t at) {
  size_t e = at;
  while (e < s.size() && (std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '_' || s[e] == '.')) ++e;
  return s.substr(at, e - at);
}

bool isIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string trimmed(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n\f"), b = s.find_last_not_of(" \t\r\n\f");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

NodeP unreadNode(SourceLoc loc, const std::string& binds, const char* what, const UserError& why) {
  auto n = make(NodeKind::Unsupported, loc, {}, binds);
  n->alias = what;
  n->unread = std::make_shared<UserError>(why);
  return n;
}

// The statements of `text` (a part of the file starting at `line`), parsed
// with the file's line numbers.
std::vector<NodeP> parsePart(const std::string& text, int line) {
  return Parser(tokenize(std::string(line - 1, '\n') + text)).module()->kids;
}

}  // namespace

NodeP parsePythonModule(const std::string& source) {
  static const std::set<std::string> pythonOnly = {
      "if",     "for",   "while", "with",  "try",      "class", "del",  "global", "nonlocal", "assert", "raise",
      "pass",   "return", "yield", "break", "continue", "elif",  "else", "except", "finally",  "await",  "lambda"};
  auto module = make(NodeKind::Module, {1, 1});
  std::vector<CharClass> cls = classifyChars(source);
  for (const TopStatement& st : topLevelStatements(source, cls)) {
    std::string text = source.substr(st.begin, st.end - st.begin);
    std::string word = firstWord(source, st.begin);
    auto append = [&](const std::vector<NodeP>& kids) { module->kids.insert(module->kids.end(), kids.begin(), kids.end()); };
    if (source[st.begin] == '@' || word == "def" || word == "async") {
      try {
        append(parsePart(text, st.line));
      } catch (const UserError& e) {
        size_t def = text.find("def ");
        std::string decorators = text.substr(0, def == std::string::npos ? 0 : def);
        if (decorators.find("teml") != std::string::npos || decorators.find("transform") != std::string::npos ||
            decorators.find("schedule") != std::string::npos || def == std::string::npos)
          throw;  // teml's own functions are read as they are
        size_t at = text.find_first_not_of(" \t", def + 4);
        int defLine = st.line + static_cast<int>(std::count(text.begin(), text.begin() + def, '\n'));
        std::string name = at == std::string::npos ? "" : firstWord(text, at);
        if (isIdentifier(name)) module->kids.push_back(unreadNode({defLine, 1}, name, "def", e));
      }
      continue;
    }
    if (word == "import" || word == "from") {
      try {
        append(parsePart(text, st.line));
      } catch (const UserError&) {
        std::string mod = firstWord(text, std::min(text.size(), text.find_first_not_of(" \t", word.size())));
        if (mod == "teml" || mod.rfind("teml.", 0) == 0) throw;
        // another module's import teml cannot read (`from . import x`): Python's business
      }
      continue;
    }
    if (pythonOnly.count(word)) continue;
    // Simple statements, separated by ';' on the line: assignments are read,
    // expression statements (`print(...)`) are Python's.
    std::vector<std::pair<size_t, size_t>> parts;  // [begin, end) in source
    size_t from = st.begin;
    for (size_t i = st.begin; i < st.end; ++i)
      if (source[i] == ';' && cls[i] == CharClass::Top) {
        parts.push_back({from, i});
        from = i + 1;
      }
    parts.push_back({from, st.end});
    for (auto [b, e] : parts) {
      size_t assign = std::string::npos;
      for (size_t i = b; i < e && assign == std::string::npos; ++i) {
        if (source[i] != '=' || cls[i] != CharClass::Top) continue;
        if (i + 1 < e && source[i + 1] == '=') {
          ++i;  // ==
          continue;
        }
        if (i > b && std::string("=!<>:").find(source[i - 1]) != std::string::npos) continue;  // <=, :=, ...
        assign = i;
      }
      if (assign == std::string::npos) continue;
      int line = st.line + static_cast<int>(std::count(source.begin() + st.begin, source.begin() + b, '\n'));
      std::string piece = source.substr(b, e - b);
      size_t lead = piece.find_first_not_of(" \t");
      try {
        append(parsePart(lead == std::string::npos ? "" : piece.substr(lead), line));
      } catch (const UserError& why) {
        // What it binds: the names before '=' (`a, b = ...`, `n: int = ...`, `n += 1`).
        std::string target = source.substr(b, assign - b);
        while (!target.empty() && std::string("+-*/%&|^@<>").find(target.back()) != std::string::npos) target.pop_back();
        if (size_t colon = target.find(':'); colon != std::string::npos) target = target.substr(0, colon);
        std::string name;
        for (char c : target + ",") {
          if (c != ',') {
            if (c != '(' && c != ')' && c != '[' && c != ']') name += c;
            continue;
          }
          if (isIdentifier(trimmed(name))) module->kids.push_back(unreadNode({line, 1}, trimmed(name), "assign", why));
          name.clear();
        }
      }
    }
  }
  return module;
}

}  // namespace teml::freeform
