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
#include "backend/cpu/c_emitter.hpp"
#include "frontend/teil/teil.hpp"
#include "autoschedule/auto_schedule_program.hpp"
#include "random_teil_programs.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

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
    ir::Program lowered = teil::buildTeil(p);
    auto in = randomInputs(lowered, 100 + n);
    auto want = runInterpreter(lowered, in);
    ir::Program scheduled = autoschedule::autoScheduleProgram(lowered, driver::machineTarget(), nullptr, "").program;
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
      ir::Program prog = teil::buildTeil(teil::liftContractions(teil::rewriteTeil(p)));
      runInterpreter(prog, randomInputs(prog));  // well-typed: runs in bounds
    } catch (const UserError& e) {
      ++refused;
      std::string m = e.what();
      EXPECT_TRUE(m.find("T-") != std::string::npos || m.find("OK-") != std::string::npos) << m;
    }
  }
  EXPECT_GT(refused, 0);
}
