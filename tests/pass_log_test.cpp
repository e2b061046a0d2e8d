// `--dump-passes DIR` writes the IR after each stage and lowering pass that
// changed it, numbered in the order they ran, with its time; index.txt
// lists every pass, changed or not. What a file holds is what the next
// pass got: the last one's is the lowered program `--emit lowered` prints.
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
