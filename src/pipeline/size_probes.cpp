#include "pipeline/size_probes.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <set>

#include "diag/diagnostics.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "runtime/size_generic_source.hpp"

namespace teml::pipeline {

namespace {

// Steps that keep each size's remainder modulo 256: tiles and vectors divide
// the probe's sizes as they divide the given ones, so the probe's program is
// the same program, and its automatic schedule costs what the first did (at
// a size that no tile divides, it may cost several times as much).
constexpr int64_t kStep = 256;
constexpr size_t kMostSingleProbes = 4;
constexpr int64_t kSmallestVariableSize = 128;
constexpr double kProbeSeconds = 0.5;  // all probes of one program, about (TEML_SIZE_PROBE_SECONDS)

int64_t larger(int64_t v) { return v + kStep; }
int64_t halved(int64_t v) { return v - kStep * (v / (2 * kStep)); }
int64_t tripled(int64_t v) { return v + 2 * kStep * (v / kStep); }
// One larger where vectors leave a remainder already: the remainders' counts change, not whether there are any.
int64_t nextOne(int64_t v) { return v % 16 != 0 ? v + 1 : v; }

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

std::vector<std::string> sizeProbes(const std::string& source, const freeform::FreeformOptions& options,
                                           const std::map<std::string, int64_t>& inputSizes,
                                           const std::function<std::string(const ir::Program&)>& emit,
                                           const std::string& base, double baseSeconds) {
  std::set<std::string> large;
  for (auto& [size, value] : inputSizes)
    if (value >= kSmallestVariableSize) large.insert(size);
  std::vector<std::string> out;
  if (large.empty()) return out;
  std::string key = runtime::sizeGenericKey(base);
  const char* given = std::getenv("TEML_SIZE_PROBE_SECONDS");
  double budget = given ? std::atof(given) : kProbeSeconds;
  auto start = std::chrono::steady_clock::now();
  double longest = baseSeconds;  // the longest compile so far: the next probe may take as long
  auto probe = [&](int64_t (*change)(int64_t), const std::set<std::string>& changed) -> std::optional<std::string> {
    if (secondsSince(start) + longest > budget) return std::nullopt;
    auto began = std::chrono::steady_clock::now();
    freeform::FreeformOptions o = options;
    o.inputShapes.clear();  // the sizes say the shapes
    bool differs = false;
    for (auto& [size, value] : inputSizes) {
      o.sizes[size] = changed.count(size) ? change(value) : value;
      differs = differs || o.sizes[size] != value;
    }
    if (!differs) return std::nullopt;
    std::optional<std::string> c;
    try {
      c = emit(compileFreeform(source, o).program);
      if (runtime::sizeGenericKey(*c) != key) c.reset();
    } catch (const UserError&) {  // refused at those sizes: no probe
    } catch (const UsageError&) {
    }
    longest = std::max(longest, secondsSince(began));
    return c;
  };
  bool together = false;
  if (auto c = probe(larger, large)) out.push_back(*c), together = true;
  if (auto c = probe(nextOne, large)) out.push_back(*c);
  for (auto change : {halved, tripled})
    if (auto c = probe(change, large)) out.push_back(*c);
  if (!together && large.size() > 1) {
    size_t singles = 0;
    for (auto& size : large)
      if (singles++ < kMostSingleProbes)
        if (auto c = probe(larger, {size})) out.push_back(*c);
  }
  return out;
}

}  // namespace teml::pipeline
