// Random well-typed TeIL programs: tensors of random shapes and statements
// whose expressions are built by the typing rules backwards (used by the
// sanitizer test and the random auto-schedule test).
#pragma once
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "types/teil_types.hpp"

namespace teml::testing {

using types::Shape;

// Random expressions of a required shape, built by the typing rules backwards.
class Generator {
 public:
  explicit Generator(unsigned seed) : rng_(seed) {}

  std::string program() {
    allocs_.clear();
    int n = 3 + static_cast<int>(rng_() % 3);
    for (int k = 0; k < n; ++k) allocs_.push_back({"T" + std::to_string(k), randomShape(3)});
    std::string text;
    for (auto& [name, shape] : allocs_) text += "alloc " + name + " : " + types::shapeText(shape) + "\n";
    int statements = 1 + static_cast<int>(rng_() % 3);
    for (int s = 0; s < statements; ++s) {
      auto& target = allocs_[rng_() % allocs_.size()];
      text += target.first + " = " + expr(target.second, 3) + "\n";
    }
    return text;
  }

 private:
  Shape randomShape(int maxRank) {
    Shape s;
    int rank = static_cast<int>(rng_() % (maxRank + 1));
    for (int d = 0; d < rank; ++d) s.push_back(1 + static_cast<int64_t>(rng_() % 4));
    return s;
  }
  int64_t pick(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng_() % (hi - lo + 1)); }

  std::string expr(const Shape& s, int depth) {
    std::vector<std::string> vars;
    for (auto& [name, shape] : allocs_)
      if (shape == s) vars.push_back(name);
    if (depth <= 0 || s.size() > 4) return vars.empty() ? terminal(s) : vars[rng_() % vars.size()];
    for (int attempt = 0; attempt < 20; ++attempt) {
      switch (rng_() % 9) {
        case 0:
          if (!vars.empty()) return vars[rng_() % vars.size()];
          break;
        case 1: return "(add " + expr(s, depth - 1) + " " + expr(s, depth - 1) + ")";
        case 2: return "(mul " + expr(s, depth - 1) + " " + expr(s, depth - 1) + ")";
        case 3: return "(mul " + expr({}, depth - 1) + " " + expr(s, depth - 1) + ")";
        case 4: {  // prod: split the shape
          size_t cut = rng_() % (s.size() + 1);
          Shape a(s.begin(), s.begin() + cut), b(s.begin() + cut, s.end());
          return "(prod " + expr(a, depth - 1) + " " + expr(b, depth - 1) + ")";
        }
        case 5: {  // red: a dimension more below
          int64_t i = pick(1, static_cast<int64_t>(s.size()) + 1);
          Shape k = s;
          k.insert(k.begin() + (i - 1), pick(1, 4));
          const char* ops[] = {"red+", "red*", "redmax", "redmin"};
          return std::string("(") + ops[rng_() % 4] + " " + std::to_string(i) + " " + expr(k, depth - 1) + ")";
        }
        case 6: {  // transp
          if (s.size() < 2) break;
          int64_t i0 = pick(1, static_cast<int64_t>(s.size())), i1 = pick(1, static_cast<int64_t>(s.size()));
          Shape k = s;
          std::swap(k[i0 - 1], k[i1 - 1]);
          return "(transp " + std::to_string(i0) + " " + std::to_string(i1) + " " + expr(k, depth - 1) + ")";
        }
        case 7: {  // diag: a repeated dimension below
          if (s.empty()) break;
          int64_t i0 = pick(1, static_cast<int64_t>(s.size()));
          int64_t i1 = pick(i0 + 1, static_cast<int64_t>(s.size()) + 1);
          Shape k = s;
          k.insert(k.begin() + (i1 - 1), s[i0 - 1]);
          return "(diag " + std::to_string(i0) + " " + std::to_string(i1) + " " + expr(k, depth - 1) + ")";
        }
        default: {  // expa or proj
          if (!s.empty() && rng_() % 2) {
            int64_t i = pick(1, static_cast<int64_t>(s.size()));
            Shape k = s;
            k.erase(k.begin() + (i - 1));
            return "(expa " + std::to_string(i) + " " + std::to_string(s[i - 1]) + " " + expr(k, depth - 1) + ")";
          }
          int64_t i = pick(1, static_cast<int64_t>(s.size()) + 1), n = pick(1, 4);
          Shape k = s;
          k.insert(k.begin() + (i - 1), n);
          return "(proj " + std::to_string(i) + " " + std::to_string(pick(1, n)) + " " + expr(k, depth - 1) + ")";
        }
      }
    }
    return vars.empty() ? terminal(s) : vars[0];
  }

  // Any shape from the first tensor: summed to a scalar, then expanded.
  std::string terminal(const Shape& s) {
    auto& [name, shape] = allocs_[0];
    std::string e = name;
    for (size_t d = 0; d < shape.size(); ++d) e = "(red+ 1 " + e + ")";
    for (size_t d = s.size(); d-- > 0;) e = "(expa 1 " + std::to_string(s[d]) + " " + e + ")";
    return e;
  }

  std::mt19937 rng_;
  std::vector<std::pair<std::string, Shape>> allocs_;
};

}  // namespace teml::testing
