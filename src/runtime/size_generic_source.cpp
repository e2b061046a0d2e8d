#include "runtime/size_generic_source.hpp"

#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>

namespace teml::runtime {

namespace {

// A run of C text with no numeral in it, or one numeral. Kinds: 'i' an
// integer (with its suffix, if any, in `suffix`), 'f' a float ("0.5f"), 'd' a
// double, 's' a run of digits inside a string literal.
struct Piece {
  bool numeral = false;
  char kind = 0;
  std::string text;
  std::string suffix;
};

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Generated C, cut at its numerals. Preprocessor lines and comments stay
// text (a numeral there is never a variable), and so do identifiers.
std::vector<Piece> cut(const std::string& s) {
  std::vector<Piece> out;
  std::string text;
  auto numeral = [&](char kind, std::string spelled, std::string suffix = "") {
    out.push_back(Piece{false, 0, text, ""});
    text.clear();
    out.push_back(Piece{true, kind, std::move(spelled), std::move(suffix)});
  };
  size_t i = 0, n = s.size();
  bool lineStart = true;
  while (i < n) {
    char c = s[i];
    if (c == '\n') {
      text += c, ++i, lineStart = true;
      continue;
    }
    if (lineStart && (c == ' ' || c == '\t')) {
      text += c, ++i;
      continue;
    }
    if (lineStart && c == '#') {
      size_t j = i;
      while (j < n && !(s[j] == '\n' && s[j - 1] != '\\')) ++j;
      text += s.substr(i, j - i), i = j;
      continue;
    }
    lineStart = false;
    if (c == '/' && i + 1 < n && (s[i + 1] == '*' || s[i + 1] == '/')) {
      size_t j = s[i + 1] == '*' ? s.find("*/", i + 2) : s.find('\n', i + 2);
      j = j == std::string::npos ? n : (s[i + 1] == '*' ? j + 2 : j);
      text += s.substr(i, j - i), i = j;
      continue;
    }
    if (c == '"' || c == '\'') {
      text += c, ++i;
      while (i < n && s[i] != c) {
        if (s[i] == '\\' && i + 1 < n) {
          size_t j = i + 1;
          if (s[j] >= '0' && s[j] <= '7')
            while (j < n && j < i + 4 && s[j] >= '0' && s[j] <= '7') ++j;
          else if (s[j] == 'x')
            for (++j; j < n && std::isxdigit(static_cast<unsigned char>(s[j])); ++j) {
            }
          else
            ++j;
          text += s.substr(i, j - i), i = j;
        } else if (c == '"' && isDigit(s[i])) {
          size_t j = i;
          while (j < n && isDigit(s[j])) ++j;
          numeral('s', s.substr(i, j - i)), i = j;
        } else {
          text += s[i++];
        }
      }
      if (i < n) text += s[i++];
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < n && isWordChar(s[j])) ++j;
      text += s.substr(i, j - i), i = j;
      continue;
    }
    if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(s[i + 1]))) {
      bool hex = c == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X');
      size_t j = i;
      while (j < n && (isWordChar(s[j]) || s[j] == '.' ||
                       (!hex && (s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
        ++j;
      std::string spelled = s.substr(i, j - i);
      i = j;
      bool real = !hex && spelled.find_first_of(".eE") != std::string::npos;
      if (real) {
        numeral(spelled.back() == 'f' || spelled.back() == 'F' ? 'f' : 'd', spelled);
      } else {
        size_t end = spelled.size();
        while (end > 0 && (std::isalpha(static_cast<unsigned char>(spelled[end - 1])) && !hex)) --end;
        numeral(hex ? 'x' : 'i', spelled, spelled.substr(end));
      }
      continue;
    }
    text += c, ++i;
  }
  out.push_back(Piece{false, 0, text, ""});
  return out;
}

std::string keyOf(const std::vector<Piece>& pieces) {
  std::string key;
  for (auto& p : pieces) {
    if (!p.numeral) {
      key += p.text;
      continue;
    }
    key += '\x01';
    key += p.kind;
    key += p.suffix;
    if (p.kind == 'x') key += p.text;  // hex numerals (bit masks) never vary
  }
  return key;
}

std::vector<std::string> numeralsOf(const std::vector<Piece>& pieces) {
  std::vector<std::string> out;
  for (auto& p : pieces)
    if (p.numeral) out.push_back(p.text);
  return out;
}

// The C type of a variable for a numeral of this kind.
std::string typeOf(const Piece& p) {
  if (p.kind == 'f') return "float";
  if (p.kind == 'd') return "double";
  return p.suffix.find_first_of("uU") == std::string::npos ? "long" : "unsigned long";
}

// Functions read the sizes from local copies, made where each begins: the C
// compiler must assume that a store through a may_alias vector changes a
// variable of the file, and would load it again after every one.
std::string withLocalCopies(const std::string& text, const std::string& copies) {
  std::istringstream in(text);
  std::ostringstream out;
  bool inBody = false;
  for (std::string line; std::getline(in, line);) {
    bool definition = !line.empty() && line[0] != ' ' && line[0] != '#' && line.size() >= 3 &&
                      line.compare(line.size() - 3, 3, ") {") == 0;
    if (inBody) {
      for (size_t at = line.find("teml_size_"); at != std::string::npos; at = line.find("teml_size_", at))
        line.replace(at, 10, "teml_sz_");
      inBody = line != "}";
    }
    out << line << '\n';
    if (definition && !inBody) {
      out << copies;
      inBody = true;
    }
  }
  return out.str();
}

}  // namespace

std::string sizeGenericKey(const std::string& source) { return keyOf(cut(source)); }

std::optional<SizeGenericSource> generalize(const std::string& source, const std::vector<std::string>& probes) {
  std::vector<Piece> pieces = cut(source);
  SizeGenericSource g;
  g.key = keyOf(pieces);
  g.numerals = numeralsOf(pieces);
  std::vector<bool> varies(g.numerals.size(), false);
  // Numerals spelled alike in every source share a variable (the C compiler
  // then sees one bound where the code repeats it).
  std::vector<std::string> alike = g.numerals;
  for (auto& probe : probes) {
    std::vector<Piece> other = cut(probe);
    if (keyOf(other) != g.key) continue;
    std::vector<std::string> theirs = numeralsOf(other);
    for (size_t k = 0; k < theirs.size(); ++k) {
      varies[k] = varies[k] || theirs[k] != g.numerals[k];
      alike[k] += ' ' + theirs[k];
    }
  }
  std::ostringstream decls, body, bind, copies;
  bind << "\nvoid teml_bind_sizes(const long *ints, const double *reals) {\n  (void)ints;\n  (void)reals;\n";
  int count = 0;
  std::map<std::string, int> variableOf;  // by kind and spellings
  size_t k = 0;
  for (auto& p : pieces) {
    if (!p.numeral) {
      body << p.text;
      continue;
    }
    int var = -1;
    if (varies[k]) {
      auto [at, isNew] = variableOf.emplace(p.kind + alike[k], count);
      var = at->second;
      if (isNew && p.kind != 's') {
        decls << "static " << typeOf(p) << " teml_size_" << var << ";\n";
        copies << "  const " << typeOf(p) << " teml_sz_" << var << " = teml_size_" << var << ";\n";
        bind << "  teml_size_" << var << " = " << (p.kind == 'i' ? "ints[" : p.kind == 'f' ? "(float)reals[" : "reals[")
             << var << "];\n";
      }
      count += isNew;
    }
    g.variable.push_back(var);
    ++k;
    if (var < 0)
      body << p.text;
    else if (p.kind == 's')
      body << "\\001" << var << "\\002";
    else
      body << "teml_size_" << var;
  }
  if (count == 0) return std::nullopt;
  bind << "}\n";
  g.text = "/* Sizes bound by teml_bind_sizes before each run (runtime/size_generic_source.hpp). */\n" + decls.str() +
           withLocalCopies(body.str(), copies.str()) + bind.str();
  return g;
}

std::optional<SizeValues> instanceValues(const SizeGenericSource& generic, const std::string& source) {
  std::vector<Piece> pieces = cut(source);
  if (keyOf(pieces) != generic.key) return std::nullopt;
  SizeValues v;
  size_t k = 0;
  for (auto& p : pieces) {
    if (!p.numeral) continue;
    int var = generic.variable[k];
    if (var < 0) {
      if (p.text != generic.numerals[k]) return std::nullopt;
      ++k;
      continue;
    }
    ++k;
    if (v.spelled.size() <= static_cast<size_t>(var)) {
      v.spelled.resize(var + 1);
      v.ints.resize(var + 1);
      v.reals.resize(var + 1);
    }
    if (!v.spelled[var].empty() && v.spelled[var] != p.text) return std::nullopt;  // a shared variable
    v.spelled[var] = p.text;
    char* end = nullptr;
    if (p.kind == 'i') v.ints[var] = std::strtol(p.text.c_str(), &end, 10);
    if (p.kind == 'f') v.reals[var] = std::strtof(p.text.c_str(), &end);  // exact in a double
    if (p.kind == 'd') v.reals[var] = std::strtod(p.text.c_str(), &end);
  }
  return v;
}

std::string expandMessage(const std::string& message, const SizeValues& values) {
  std::string out;
  for (size_t i = 0; i < message.size(); ++i) {
    size_t close = message[i] == '\001' ? message.find('\002', i) : std::string::npos;
    if (close == std::string::npos) {
      out += message[i];
      continue;
    }
    size_t var = std::strtoul(message.substr(i + 1, close - i - 1).c_str(), nullptr, 10);
    out += var < values.spelled.size() ? values.spelled[var] : "?";
    i = close;
  }
  return out;
}

}  // namespace teml::runtime
