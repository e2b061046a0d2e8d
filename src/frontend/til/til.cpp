#include "frontend/til/til.hpp"

#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "diag/diagnostics.hpp"

namespace teml::til {

namespace {

// A call's argument: a name, an integer or a list.
struct Arg {
  enum Kind { Name, Int, List } kind;
  std::string text;
  std::vector<Arg> items;
  SourceLoc loc;
  std::string str() const {
    if (kind != List) return text;
    std::string s = "[";
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i].str();
    return s + "]";
  }
};

class LineParser {
 public:
  LineParser(const std::string& line, int lineNo) : s_(line), line_(lineNo) {}

  // [target =] function(args); false for an empty or comment line.
  bool statement(std::string* target, std::string* function, std::vector<Arg>* args, SourceLoc* loc) {
    skip();
    if (pos_ >= s_.size() || s_[pos_] == '#') return false;
    *loc = here();
    std::string first = ident("a statement");
    skip();
    if (peek() == '=') {
      ++pos_;
      *target = first;
      skip();
      *function = ident("a function after '='");
    } else {
      *function = first;
    }
    skip();
    expect('(');
    *args = arguments(')');
    skip();
    if (pos_ < s_.size() && s_[pos_] != '#') throw UserError(here(), "unexpected text after the statement");
    return true;
  }

 private:
  SourceLoc here() const { return SourceLoc{line_, static_cast<int>(pos_) + 1}; }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip();
    if (peek() != c) throw UserError(here(), std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string ident(const std::string& what) {
    skip();
    size_t b = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    if (b == pos_ || std::isdigit(static_cast<unsigned char>(s_[b]))) throw UserError(SourceLoc{line_, static_cast<int>(b) + 1}, "expected " + what);
    return s_.substr(b, pos_ - b);
  }
  std::vector<Arg> arguments(char close) {
    std::vector<Arg> out;
    skip();
    if (peek() == close) {
      ++pos_;
      return out;
    }
    while (true) {
      out.push_back(argument());
      skip();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(close);
      return out;
    }
  }
  Arg argument() {
    skip();
    Arg a;
    a.loc = here();
    if (peek() == '[') {
      ++pos_;
      a.kind = Arg::List;
      a.items = arguments(']');
      return a;
    }
    if (std::isdigit(static_cast<unsigned char>(peek()))) {
      size_t b = pos_;
      while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
      a.kind = Arg::Int;
      a.text = s_.substr(b, pos_ - b);
      return a;
    }
    a.kind = Arg::Name;
    a.text = ident("an argument");
    return a;
  }

  const std::string& s_;
  int line_;
  size_t pos_ = 0;
};

struct Place {
  std::string nest;  // the TeML variable holding the loop nest
  int level;
  bool valid = true;
};

class Translator {
 public:
  std::string run(const std::string& source) {
    std::string out, line;
    int lineNo = 0;
    size_t start = 0;
    while (start <= source.size()) {
      size_t end = source.find('\n', start);
      if (end == std::string::npos) end = source.size();
      line = source.substr(start, end - start);
      ++lineNo;
      out += translate(line, lineNo) + "\n";
      start = end + 1;
      if (end == source.size()) break;
    }
    std::string nests;
    for (auto& n : order_)
      if (live_.count(n)) nests += (nests.empty() ? "" : ", ") + n;
    if (nests.empty()) throw UserError(SourceLoc{lineNo, 1}, "no build(...): nothing to compute");
    return out + "codegen(" + nests + ")\n";
  }

 private:
  std::string translate(const std::string& line, int lineNo) {
    std::string target, f;
    std::vector<Arg> args;
    SourceLoc loc;
    if (!LineParser(line, lineNo).statement(&target, &f, &args, &loc)) return "";
    auto need = [&](size_t n, const std::string& usage) {
      if (args.size() != n) throw UserError(loc, f + " takes " + usage);
    };
    auto assigned = [&]() {
      if (target.empty()) throw UserError(loc, f + "(...) produces a value: write 'name = " + f + "(...)'");
    };
    if (f == "array") {
      need(3, "array(rank, dtype, [sizes])");
      assigned();
      if (args[2].kind != Arg::List || args[0].kind != Arg::Int || std::stoul(args[0].text) != args[2].items.size())
        throw UserError(loc, "array: the rank must be the number of sizes");
      return target + " = tensor(" + args[1].text + ", " + args[2].str() + ")";
    }
    if (f == "iterator") {
      need(3, "iterator(0, extent, 1)");
      assigned();
      if (args[0].text != "0" || args[2].text != "1")
        throw UserError(loc, "iterator: only iterator(0, extent, 1) is supported (the loop's range comes from build)");
      iterators_[target] = Place{"", 0, false};
      return "";
    }
    if (f == "contract" || f == "outerproduct") {
      assigned();
      std::string text = target + " = " + f + "(";
      for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + args[i].str();
      return text + ")";
    }
    if (f == "entrywise") {
      need(2, "entrywise(a, b)");
      assigned();
      return target + " = entrywise_mul(" + args[0].str() + ", " + args[1].str() + ")";
    }
    if (f == "transpose" || f == "vtranspose") {
      need(3, f + "(t, rank1, rank2)");
      assigned();
      return target + " = " + f + "(" + args[0].str() + ", [[" + args[1].str() + ", " + args[2].str() + "]])";
    }
    if (!target.empty()) throw UserError(loc, f + "(...) has side effects and produces no value");
    if (f == "build") {
      need(2, "build(tensor, [iterators])");
      if (args[1].kind != Arg::List) throw UserError(args[1].loc, "build: expected a list of iterators");
      std::string nest = "L_" + args[0].text;
      if (live_.count(nest)) throw UserError(loc, "build: '" + args[0].text + "' is built twice");
      for (size_t k = 0; k < args[1].items.size(); ++k) {
        auto it = iterators_.find(args[1].items[k].text);
        if (it == iterators_.end()) throw UserError(args[1].items[k].loc, "build: '" + args[1].items[k].text + "' is not an iterator");
        if (!it->second.nest.empty()) throw UserError(args[1].items[k].loc, "build: iterator '" + it->first + "' is already used");
        it->second = Place{nest, static_cast<int>(k + 1), true};
      }
      order_.push_back(nest);
      live_.insert(nest);
      return nest + " = build(" + args[0].text + ")";
    }
    if (f == "interchange") {
      need(2, "interchange(iterator, iterator)");
      Place& a = place(args[0]);
      Place& b = place(args[1]);
      if (a.nest != b.nest) throw UserError(loc, "interchange: the iterators belong to different loop nests");
      std::string text = a.nest + " = interchange(" + a.nest + ", " + std::to_string(a.level) + ", " + std::to_string(b.level) + ")";
      std::swap(a.level, b.level);
      return text;
    }
    if (f == "fuse") {
      need(2, "fuse(iterator, iterator)");
      Place& a = place(args[0]);
      Place& b = place(args[1]);
      if (a.level != b.level) throw UserError(loc, "fuse: the loops are at different depths");
      std::string text;
      if (a.nest != b.nest) {
        if (a.level != 1) throw UserError(loc, "fuse: loops of two nests must be their outermost loops");
        text = a.nest + " = fuse_outer(" + a.nest + ", " + b.nest + ", 1)";
        live_.erase(b.nest);
        std::string from = b.nest;
        for (auto& [name, p] : iterators_)
          if (p.nest == from) p.nest = a.nest;
      } else {
        text = a.nest + " = fuse_inner(" + a.nest + ", " + std::to_string(a.level) + ")";
      }
      b.valid = false;
      return text;
    }
    if (f == "parallelize") {
      if (args.size() < 2 || args.size() > 4) throw UserError(loc, "parallelize takes (iterator, THRD[, schedule, [private]])");
      if (args[1].text != "THRD") throw UserError(args[1].loc, "parallelize: only THRD (threads) is supported");
      std::string schedule;  // None: OpenMP's static schedule
      if (args.size() >= 3 && args[2].text != "None") {
        if (args[2].text != "static" && args[2].text != "dynamic" && args[2].text != "guided")
          throw UserError(args[2].loc, "parallelize: the schedule must be None, static, dynamic or guided");
        schedule = ", " + args[2].text;
      }
      if (args.size() == 4) {
        // Loop iterators are private in generated code anyway; the list must name iterators.
        if (args[3].kind != Arg::List) throw UserError(args[3].loc, "parallelize: expected a list of private iterators");
        for (auto& it : args[3].items)
          if (it.kind != Arg::Name || !iterators_.count(it.text))
            throw UserError(it.loc, "parallelize: '" + it.str() + "' in the private list is not an iterator");
      }
      Place& a = place(args[0]);
      return a.nest + " = parallelize(" + a.nest + ", " + std::to_string(a.level) + schedule + ")";
    }
    if (f == "distribute") {
      need(1, "distribute(iterator)");
      Place& a = place(args[0]);
      return a.nest + " = distribute(" + a.nest + ", " + std::to_string(a.level) + ")";
    }
    if (f == "replace_array") {
      need(3, "replace_array(iterator, old, new)");
      Place& a = place(args[0]);
      return a.nest + " = replace_array(" + a.nest + ", " + std::to_string(a.level) + ", " + args[1].str() + ", " +
             args[2].str() + ")";
    }
    throw UserError(loc, "unknown statement '" + f + "'");
  }

  Place& place(const Arg& a) {
    auto it = iterators_.find(a.text);
    if (it == iterators_.end()) throw UserError(a.loc, "'" + a.text + "' is not an iterator");
    if (it->second.nest.empty()) throw UserError(a.loc, "iterator '" + a.text + "' is used by no build(...)");
    if (!it->second.valid) throw UserError(a.loc, "iterator '" + a.text + "' was fused away");
    return it->second;
  }

  std::map<std::string, Place> iterators_;
  std::vector<std::string> order_;
  std::set<std::string> live_;
};

}  // namespace

std::string tilToTeml(const std::string& source) { return Translator().run(source); }

}  // namespace teml::til
