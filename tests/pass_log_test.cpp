// `--dump-passes DIR` writes the IR after each stage and lowering pass that
// changed it, numbered in the order they ran, with its time; index.txt
// lists every pass, changed or not. What a file holds is what the next
// pass got: the last one's is the lowered program `--emit lowered` prints.
// The passes that run for each target are those docs/lowering.md lists.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "test_util.hpp"

using namespace teml;
using teml::testing::runTeml;

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A row sum whose scatter into y the lowering stage gives a strategy.
const char* kProgram = R"(import teml
@teml.transform
def f(x: teml.Var[(64, 16), "float32"], idx: teml.Var[(64,), "int32"], y: teml.Var[(16,), "float32", "output"]):
    for i in range(64):
        for j in range(16):
            y[j] += x[idx[i] % 64, j] * 2
)";

// The program as a file of its own (a .py program is read from a file).
std::string programFile() {
  auto path = std::filesystem::temp_directory_path() / ("teml-passes-" + std::to_string(::getpid()) + ".py");
  std::ofstream(path) << kProgram;
  return path.string();
}

}  // namespace

TEST(PassLog, EachPassThatChangedTheIrLeavesAFileAndEveryPassALine) {
  auto dir = std::filesystem::temp_directory_path() / ("teml-passes-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto r = runTeml("emit " + programFile() + " --emit lowered --dump-passes " + dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::string index = read(dir / "index.txt");
  for (const char* pass : {"hoist_invariant_checks", "branches_to_selects", "narrow_float_conversions",
                           "reduction_init", "carried_dependences", "parallel_reductions", "local_boxes",
                           "memory_kinds", "vector_plans", "copy_plans", "indirect_prefetches"})
    EXPECT_NE(index.find(std::string(" ") + pass + " nest 1 "), std::string::npos) << pass << "\n" << index;
  int files = 0;
  std::filesystem::path last;
  for (auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".ir") continue;
    ++files;
    if (last.empty() || e.path().filename() > last.filename()) last = e.path();
    EXPECT_NE(index.find(e.path().filename().string()), std::string::npos) << e.path();
    EXPECT_EQ(read(e.path()).rfind("# ", 0), 0u) << e.path();
  }
  EXPECT_GE(files, 1);
  EXPECT_LT(files, teml::testing::occurrences(index, "\n")) << "unchanged passes write no file\n" << index;
  // The last file is the lowered program.
  std::string lastIr = read(last);
  EXPECT_NE(r.out.find(lastIr.substr(lastIr.find('\n') + 1, 60)), std::string::npos) << lastIr << "\n---\n" << r.out;
  std::filesystem::remove_all(dir);
}

TEST(PassLog, TheGradientStageLogsEachOfItsPassesBeforeLowering) {
  auto dir = std::filesystem::temp_directory_path() / ("teml-grad-passes-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto r = runTeml("grad " + programFile() + " --random 1 --wrt x --of y --dump-passes " + dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::string index = read(dir / "index.txt");
  size_t at = 0;
  for (const char* pass : {"gradient.running_reductions", "gradient.tapes", "gradient.backward", "auto_schedule",
                           "hoist_invariant_checks"}) {
    size_t next = index.find(std::string(" ") + pass + " ", at);
    EXPECT_NE(next, std::string::npos) << pass << " after " << at << "\n" << index;
    at = next == std::string::npos ? at : next;
  }
  // The backward pass changed the program: its file holds the gradient's nests.
  bool backward = false;
  for (auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().find("gradient.backward") != std::string::npos)
      backward = read(e.path()).find("x.grad") != std::string::npos;
  EXPECT_TRUE(backward) << index;
  std::filesystem::remove_all(dir);
}

TEST(PassLog, ADirectoryThatCannotBeMadeIsAUsageError) {
  auto r = runTeml("emit " + programFile() + " --dump-passes /proc/teml-cannot-be-here");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--dump-passes"), std::string::npos) << r.out;
}

namespace {

// The lowering passes nest 1 went through, in order, as index.txt lists them.
std::vector<std::string> passesRun(const std::string& flags) {
  auto dir = std::filesystem::temp_directory_path() / ("teml-pass-list-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto r = runTeml("emit " + programFile() + " --emit lowered " + flags + " --dump-passes " + dir.string());
  EXPECT_EQ(r.status, 0) << r.out;
  std::istringstream index(read(dir / "index.txt"));
  std::vector<std::string> out;
  std::string number, name, nest, which;
  while (index >> number >> name >> nest >> which) {
    if (nest == "nest" && which == "1" && name.find('.') == std::string::npos && name != "auto_schedule")
      out.push_back(name);
    std::getline(index, number);
  }
  std::filesystem::remove_all(dir);
  return out;
}

// docs/lowering.md's list: its numbered passes (for CUDA the shared ones
// but the CPU's range checks), then for CUDA the passes named in
// backquotes in the sentence that starts "and for CUDA", then the passes
// numbered "(after the target's own passes)".
std::vector<std::string> passesDocumented(bool cuda) {
  std::string docs = read(std::string(TEML_SOURCE_DIR) + "/docs/lowering.md");
  std::vector<std::string> out, last;
  std::istringstream lines(docs);
  for (std::string line; std::getline(lines, line);) {
    size_t dot = line.find(". `");
    if (dot == std::string::npos || dot == 0 || dot > 2 || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
    int number = std::stoi(line);
    std::string name = line.substr(dot + 3, line.find('`', dot + 3) - dot - 3);
    if (line.find("(after the target's own passes)") != std::string::npos) last.push_back(name);
    else if (cuda && (number > 11 || name == "checks_by_range")) continue;  // the CPU's own; the CPU with one rank
    else out.push_back(name);
  }
  if (cuda) {
    size_t at = docs.find("and for CUDA"), end = docs.find(". ", docs.find("gpu_launches", at));
    for (size_t q = docs.find('`', at); q < end; q = docs.find('`', q + 1)) {
      size_t close = docs.find('`', q + 1);
      std::string name = docs.substr(q + 1, close - q - 1);
      if (name.find('/') == std::string::npos) out.push_back(name);  // not the folder's name
      q = close;
    }
  }
  out.insert(out.end(), last.begin(), last.end());
  return out;
}

}  // namespace

TEST(PassLog, ThePassesThatRunAreThoseDocsLoweringMdListsForEachTarget) {
  EXPECT_EQ(passesRun(""), passesDocumented(false));
  EXPECT_EQ(passesRun("--target cuda"), passesDocumented(true));
}
