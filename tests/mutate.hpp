// Random edits of program text (tokens deleted, inserted, replaced,
// repeated), for the robustness tests: no edit may crash the compiler.
#pragma once
#include <cctype>
#include <random>
#include <string>
#include <vector>

namespace teml::testing {

inline std::vector<std::string> tokens(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (word) {
      cur += c;
      continue;
    }
    if (!cur.empty()) out.push_back(cur), cur.clear();
    out.push_back(std::string(1, c));
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

inline std::string mutate(const std::string& src, std::mt19937& rng) {
  auto t = tokens(src);
  static const std::vector<std::string> pieces = {"0", "1", "-1", "7", "100000", "[", "]", "(", ")", ",", "->",
                                                  "i", "j", "l", "A", "unroll", "tile", "+", "*", "\n", "@", ":",
                                                  "replace_array", "vtranspose", "tmp2", "a4", "f1"};
  int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits && !t.empty(); ++e) {
    size_t at = rng() % t.size();
    switch (rng() % 4) {
      case 0: t.erase(t.begin() + at); break;
      case 1: t.insert(t.begin() + at, pieces[rng() % pieces.size()]); break;
      case 2: t[at] = pieces[rng() % pieces.size()]; break;
      case 3: t.insert(t.begin() + at, t[rng() % t.size()]); break;
    }
  }
  std::string out;
  for (auto& x : t) out += x;
  return out;
}

}  // namespace teml::testing
