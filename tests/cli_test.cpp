// The `teml` command as users and scripts see it: exit codes, diagnostics,
// .npy input and output, the kernel cache, bench --json.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <random>

#include "runtime/npy.hpp"
#include "test_util.hpp"

using namespace teml;

namespace {

using teml::testing::runTeml;

const std::string kMm = std::string(TEML_SOURCE_DIR) + "/examples/mm/best.teml";

}  // namespace

TEST(Cli, RunVerifiesAgainstTheInterpreter) {
  auto r = runTeml("run " + kMm + " --set N=70 --random 3 --verify");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("(ok)"), std::string::npos) << r.out;
}

TEST(Cli, WrongProgramExitsOneWithPosition) {
  auto r = runTeml("check -", "A = tensor([3])\nB = eq(A, [i] -> [i, j])\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("<stdin>:2:1: error:"), std::string::npos) << r.out;
}

TEST(Cli, CheckPrintsNothingOnSuccess) {
  auto r = runTeml("check " + kMm + " --set N=64");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "");
}

TEST(Cli, BadCommandLinesExitTwo) {
  EXPECT_EQ(runTeml("frobnicate x.teml").status, 2);
  EXPECT_EQ(runTeml("run " + kMm + " --bogus").status, 2);
  EXPECT_EQ(runTeml("run " + kMm + " --set N").status, 2);
  EXPECT_EQ(runTeml("run /nonexistent.teml").status, 2);
  EXPECT_EQ(runTeml("run x.py").status, 2);
  EXPECT_EQ(runTeml("run " + kMm + " --set N=8 --input A=/nonexistent.npy").status, 2);
}

TEST(Cli, InputsAndOutputsAsNpy) {
  std::string dir = teml::testing::cacheDir();
  runtime::Buffer a(ir::DType::F64, {2, 2}), b(ir::DType::F64, {2, 2});
  for (int k = 0; k < 4; ++k) {
    a.set(k, k + 1);       // [[1, 2], [3, 4]]
    b.set(k, k == 0 || k == 3);  // identity
  }
  runtime::writeNpy(dir + "-A.npy", a);
  runtime::writeNpy(dir + "-B.npy", b);
  auto r = runTeml("run " + kMm + " --set N=2 --input A=" + dir + "-A.npy --input B=" + dir + "-B.npy --output C=" +
                dir + "-C.npy");
  ASSERT_EQ(r.status, 0) << r.out;
  runtime::Buffer c(ir::DType::F64, {2, 2});
  runtime::loadNpyInto(dir + "-C.npy", "C", c);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(c.get(k), k + 1);

  auto bad = runTeml("run " + kMm + " --set N=3 --input A=" + dir + "-A.npy");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("tensor 'A' is declared double[3, 3] but the file holds double[2, 2]"), std::string::npos)
      << bad.out;
}

TEST(Cli, RepeatedRunSkipsTheCompiler) {
  runTeml("run " + kMm + " --set N=40");
  auto r = runTeml("run " + kMm + " --set N=40 -v");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("teml: load"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("teml: compile"), std::string::npos) << r.out;
}

TEST(Cli, BenchJson) {
  auto r = runTeml("bench " + kMm + " --set N=64 --runs 3 --json --threads 1");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("{\"program\": ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\"threads\": 1, \"runs\": 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"gflops\": "), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

TEST(Cli, EmitForms) {
  auto c = runTeml("emit " + kMm + " --set N=64");
  EXPECT_NE(c.out.find("void teml_entry(void **buffers, int nthreads)"), std::string::npos);
  EXPECT_NE(c.out.find("#pragma omp parallel for"), std::string::npos);
  auto loops = runTeml("emit " + kMm + " --set N=64 --emit loops");
  EXPECT_NE(loops.out.find("for i2_o in [0, 1)"), std::string::npos) << loops.out;
  auto ir = runTeml("emit " + kMm + " --set N=64 --emit ir");
  EXPECT_NE(ir.out.find("@L1."), std::string::npos) << ir.out;
}

TEST(Cli, NamesThatClashWithCAreMangled) {
  auto r = runTeml("run - --random 1 --verify",
                "int = tensor([3])\ndouble = tensor([3])\nmain = entrywise_add(int, double)\ncodegen(main)\n");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("(ok)"), std::string::npos) << r.out;
}

TEST(Cli, IllegalTransformationIsRefusedUnlessNoCheck) {
  const std::string src = "a = tensor([N + 3, M + 2])\nB = tensor([N, M])\nt = vadd(a, B, [[i + 1, j + 2], [i, j]])\n"
                          "a = eq(t, -> [i + 3, j + 1])\nl = build(a)\ns = interchange(l, 1, 2)\ncodegen(s)\n";
  auto r = runTeml("check - --set N=6 --set M=5", src);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("<stdin>:6:5: error: interchange would reverse the dependence (i, j) -> (i + 2, j - 1) on 'a'"),
            std::string::npos)
      << r.out;
  auto forced = runTeml("check - --set N=6 --set M=5 --no-check", src);
  EXPECT_EQ(forced.status, 0);
  EXPECT_NE(forced.out.find("--no-check"), std::string::npos) << forced.out;
}

TEST(Cli, VerboseShowsTheAnalysisTime) {
  auto r = runTeml("check " + kMm + " --set N=64 -v");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("teml: (analysis)"), std::string::npos) << r.out;
}

TEST(Cli, TeilProgramsRunAndReportTheRule) {
  std::string dir = teml::testing::cacheDir();
  std::string good = dir + "-ok.teil", bad = dir + "-bad.teil";
  std::ofstream(good) << "alloc A : [n, 3]\nalloc B : [3, n]\nalloc C : [n, n]\nC = contr 2 3 (prod A B)\n";
  std::ofstream(bad) << "alloc A : [2, 3]\nalloc C : [2, 3]\nC = transp 1 2 A\n";
  auto r = runTeml("run " + good + " --set n=5 --random 1 --verify");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("(ok)"), std::string::npos) << r.out;
  auto e = runTeml("check " + bad);
  EXPECT_EQ(e.status, 1) << e.out;
  EXPECT_NE(e.out.find("-bad.teil:3:1: error: OK-Stmt: 'C' has shape [2, 3] but the expression has shape [3, 2]"),
            std::string::npos)
      << e.out;
  auto t = runTeml("emit " + good + " --set n=5 --emit teil");
  EXPECT_EQ(t.status, 0) << t.out;
  EXPECT_NE(t.out.find("C = contr 2 3 (prod A B)"), std::string::npos) << t.out;
}

TEST(Cli, GarbageTeilNeverCrashes) {
  // Random bytes and random token soup: exit 1 with a diagnostic, never a signal or an internal error.
  std::mt19937 rng(3);
  const std::string alphabet = "alloc red+*max min prod diag expa proj transp contr add mul ()[]:,=#\n 0123456789AB";
  std::string file = teml::testing::cacheDir() + "-garbage.teil";
  for (int n = 0; n < 40; ++n) {
    std::string text;
    int len = 1 + static_cast<int>(rng() % 80);
    for (int k = 0; k < len; ++k)
      text += n % 4 == 0 ? static_cast<char>(1 + rng() % 255) : alphabet[rng() % alphabet.size()];
    std::ofstream(file) << text;
    auto r = runTeml("check " + file);
    EXPECT_TRUE(r.status == 0 || r.status == 1) << "status " << r.status << " for:\n" << text << "\n" << r.out;
  }
}
