// Safety net for TeIL: random well-typed programs are compiled by teml, and
// their generated C runs under AddressSanitizer and UndefinedBehaviorSanitizer
// (every tensor in a heap block of exactly its size) in a process of its own;
// the results must equal the reference interpreter's. Ill-typed mutations of
// the same programs are refused before any code exists.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "cache/directory.hpp"
#include "codegen/c_emitter.hpp"
#include "frontend/teil/teil.hpp"
#include "autoschedule/auto_schedule_program.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;
using types::Shape;

namespace {

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

std::string tmpDir() {
  std::string d = cacheDir() + "/sanitized-" + std::to_string(getpid());
  cache::makeDirectories(d);
  return d;
}

int shell(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

}  // namespace

TEST(TeilSanitized, RandomWellTypedProgramsRunCleanAndMatchTheInterpreter) {
  // Each random program as lowered and as --auto schedules it: both run
  // under the sanitizers and agree with the interpreter.
  const int count = 24, variants = 2 * count;
  Generator gen(2026);
  std::string dir = tmpDir();
  std::vector<ir::Program> programs;
  std::vector<runtime::BufferMap> inputs, expected;
  std::ostringstream harness;
  harness << "#include <stdio.h>\n#include <stdlib.h>\n";
  for (int k = 0; k < variants; ++k) harness << "void teml_entry_" << k << "(void **, int);\n";
  harness << "static void *block(FILE *in, long n) {\n"
             "  double *p = malloc(n * sizeof(double));\n"
             "  if (!p || fread(p, sizeof(double), n, in) != (size_t)n) exit(2);\n  return p;\n}\n"
             "int main(int argc, char **argv) {\n  FILE *in = fopen(argv[1], \"rb\"), *out = fopen(argv[2], \"wb\");\n"
             "  if (!in || !out) return 2;\n";
  std::string sources;
  for (int n = 0; n < count; ++n) {
    std::string text = gen.program();
    SCOPED_TRACE(text);
    teil::TeilProgram p = teil::parseTeil(text, {});
    ASSERT_NO_THROW(teil::checkTeil(p)) << text;
    p = teil::liftContractions(teil::rewriteTeil(p));
    teil::checkTeil(p);
    ir::Program lowered = teil::lowerTeil(p);
    auto in = randomInputs(lowered, 100 + n);
    auto want = runInterpreter(lowered, in);
    ir::Program scheduled = autoschedule::autoScheduleProgram(lowered, target::hostCpu(), nullptr, "").program;
    for (ir::Program* prog : {&lowered, &scheduled}) {
      int k = static_cast<int>(programs.size());
      std::string c = cSource(*prog);
      c.replace(c.find("void teml_entry("), 16, "void teml_entry_" + std::to_string(k) + "(");
      c.replace(c.find("int teml_error("), 15, "int teml_error_" + std::to_string(k) + "(");
      std::string file = dir + "/k" + std::to_string(k) + ".c";
      std::ofstream(file) << c;
      sources += " " + file;
      harness << "  {\n    void *b[" << prog->tensors.size() << "];\n";
      for (size_t t = 0; t < prog->tensors.size(); ++t)
        harness << "    b[" << t << "] = block(in, " << prog->tensors[t].elementCount() << ");\n";
      harness << "    teml_entry_" << k << "(b, 2);\n";
      for (size_t t = 0; t < prog->tensors.size(); ++t)
        harness << "    fwrite(b[" << t << "], sizeof(double), " << prog->tensors[t].elementCount()
                << ", out);\n    free(b[" << t << "]);\n";
      harness << "  }\n";
      programs.push_back(*prog);
      inputs.push_back(in);
      expected.push_back(want);
    }
  }
  harness << "  fclose(out);\n  return 0;\n}\n";
  std::ofstream(dir + "/harness.c") << harness.str();
  {
    std::ofstream in(dir + "/in.bin", std::ios::binary);
    for (int k = 0; k < variants; ++k)
      for (auto& t : programs[k].tensors) in.write(static_cast<const char*>(inputs[k].at(t.name).data()), inputs[k].at(t.name).bytes());
  }
  std::string exe = dir + "/sanitized";
  ASSERT_EQ(shell("cc -O1 -g -fopenmp -fsanitize=address,undefined -fno-sanitize-recover=all -o " + exe + " " + dir +
                  "/harness.c" + sources + " -lm 2> " + dir + "/cc.log"),
            0)
      << "see " << dir << "/cc.log";
  int rc = shell("ASAN_OPTIONS=detect_leaks=0 " + exe + " " + dir + "/in.bin " + dir + "/out.bin 2> " + dir + "/run.log");
  std::ifstream log(dir + "/run.log");
  std::stringstream findings;
  findings << log.rdbuf();
  ASSERT_EQ(rc, 0) << findings.str();
  EXPECT_EQ(findings.str().find("runtime error"), std::string::npos) << findings.str();
  std::ifstream out(dir + "/out.bin", std::ios::binary);
  for (int k = 0; k < variants; ++k)
    for (auto& t : programs[k].tensors) {
      runtime::Buffer got(t.dtype, t.shape);
      out.read(static_cast<char*>(got.data()), got.bytes());
      EXPECT_LE(runtime::maxRelativeDifference(got, expected[k].at(t.name)), 1e-9) << "program " << k / 2 << (k % 2 ? " auto-scheduled" : "") << " tensor " << t.name;
    }
  shell("rm -rf " + dir);
}

TEST(TeilSanitized, IllTypedMutationsAreRefusedBeforeCodeGeneration) {
  // Changing one size of an allocation breaks the typing of the statements
  // that use it (or leaves them well-typed): nothing in between.
  Generator gen(7);
  int refused = 0;
  for (int k = 0; k < 100; ++k) {
    std::string text = gen.program();
    size_t at = text.find("[");
    size_t digit = text.find_first_of("123456789", at);
    if (digit == std::string::npos || digit > text.find("\n")) continue;
    text[digit] = text[digit] == '4' ? '3' : static_cast<char>(text[digit] + 1);
    try {
      teil::TeilProgram p = teil::parseTeil(text, {});
      teil::checkTeil(p);
      ir::Program prog = teil::lowerTeil(teil::liftContractions(teil::rewriteTeil(p)));
      runInterpreter(prog, randomInputs(prog));  // well-typed: runs in bounds
    } catch (const UserError& e) {
      ++refused;
      std::string m = e.what();
      EXPECT_TRUE(m.find("T-") != std::string::npos || m.find("OK-") != std::string::npos) << m;
    }
  }
  EXPECT_GT(refused, 0);
}
