// Random mutations of the example programs: each either compiles (and then
// generates C without an internal error) or is refused with a UserError.
// Nothing else may escape, and nothing may crash or hang.
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>

#include "backend/cpu/c_emitter.hpp"
#include "frontend/til/til.hpp"
#include "mutate.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

std::string readFile(const std::string& relative) {
  std::ifstream in(std::string(TEML_SOURCE_DIR) + "/" + relative);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> examplePrograms() {
  std::vector<std::string> out;
  for (const char* k : {"mm", "tmm", "bmm", "gconv", "mttkrp", "sddmm", "interp", "helm", "blur", "coars"})
    for (const char* v : {"naive", "pluto", "best"})
      out.push_back(readFile(std::string("examples/") + k + "/" + v + ".teml"));
  return out;
}

std::vector<std::string> tilPrograms() {
  std::vector<std::string> out;
  for (const char* f : {"E1", "E2", "E3", "mesh/E1", "mesh/E2", "mesh/E3", "mesh/L1", "mesh/L2", "mesh/L3"})
    out.push_back(readFile(std::string("examples/til/") + f + ".til"));
  return out;
}

// Compiles `count` mutants of `programs` (toTeml: their translation into
// TeML); the first `run` accepted ones also run, JIT against interpreter.
void checkMutants(const std::vector<std::string>& programs, const std::function<std::string(const std::string&)>& toTeml,
                  const std::map<std::string, int64_t>& sizes, unsigned seed, int count, int run, const std::string& what) {
  std::mt19937 rng(seed);
  int accepted = 0, refused = 0;
  for (int n = 0; n < count; ++n) {
    std::string src = mutate(programs[rng() % programs.size()], rng);
    try {
      auto p = compile(toTeml(src), sizes);
      cSource(p);
      if (++accepted <= run) {
        SCOPED_TRACE(src);
        expectJitMatchesInterpreter(p);
      }
    } catch (const UserError&) {
      ++refused;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected " << e.what() << " for:\n" << src;
    }
  }
  std::cout << accepted << " mutated " << what << " accepted, " << refused << " refused\n";
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace

TEST(Robustness, MutatedExamplesNeverCrashTheCompiler) {
  const std::map<std::string, int64_t> sizes = {{"N", 24}, {"M", 9}, {"K", 5}, {"NB", 2}, {"E", 2}, {"G", 2},
                                                {"C", 2},  {"H", 4}, {"R", 3}, {"I", 4},  {"J", 5}, {"L", 3}};
  checkMutants(examplePrograms(), [](const std::string& s) { return s; }, sizes, 12345, 2000, 40, "programs");
}

TEST(Robustness, MutatedTilProgramsNeverCrashTheCompiler) {
  checkMutants(tilPrograms(), til::tilToTeml, {{"N", 4}, {"E", 3}}, 2017, 1000, 20, ".til programs");
}
