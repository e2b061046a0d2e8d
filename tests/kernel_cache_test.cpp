// The kernel cache heals itself: whatever state a cache entry or the cache
// directory is in, `teml run` compiles or loads the right kernel and gives
// the right result; damaged analysis answers are recomputed, never believed.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "test_util.hpp"

using teml::testing::runTeml;
namespace fs = std::filesystem;

namespace {

const std::string kMm = std::string(TEML_SOURCE_DIR) + "/examples/mm/best.teml";

std::string freshCache(const std::string& name) {
  std::string dir = teml::testing::cacheDir() + "-healing-" + name;
  std::error_code ignored;
  fs::permissions(dir, fs::perms::owner_all, ignored);
  fs::remove_all(dir);
  return dir;
}

std::string resultOf(const std::string& out) {
  auto at = out.find("C: ");
  return at == std::string::npos ? "(no result)" : out.substr(at, out.find('\n', at) - at);
}

std::vector<std::string> filesIn(const std::string& dir, const std::string& extension) {
  std::vector<std::string> out;
  for (auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == extension) out.push_back(e.path().string());
  return out;
}

void writeFile(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

const std::string kRun = "run " + kMm + " --set N=24 --random 1 -v";

// Runs mm into a new cache, damages its kernel with `damage`, runs again.
void expectHealsAfter(const std::string& name, const std::function<void(const std::string&)>& damage) {
  std::string dir = freshCache(name);
  auto first = runTeml(kRun, "", dir);
  ASSERT_EQ(first.status, 0) << first.out;
  auto kernels = filesIn(dir, ".so");
  ASSERT_EQ(kernels.size(), 1u);
  damage(kernels[0]);
  auto again = runTeml(kRun, "", dir);
  EXPECT_EQ(again.status, 0) << name << ":\n" << again.out;
  EXPECT_EQ(resultOf(again.out), resultOf(first.out)) << name;
  EXPECT_NE(again.out.find("removed and rebuilt"), std::string::npos) << name << ":\n" << again.out;
  auto third = runTeml(kRun, "", dir);
  EXPECT_NE(third.out.find("teml: load"), std::string::npos) << name << ": the rebuilt kernel is kept\n" << third.out;
}

}  // namespace

TEST(KernelCache, ATruncatedKernelIsRebuilt) {
  expectHealsAfter("truncated", [](const std::string& so) { fs::resize_file(so, fs::file_size(so) / 2); });
}

TEST(KernelCache, AKernelOverwrittenWithGarbageIsRebuilt) {
  expectHealsAfter("garbage", [](const std::string& so) {
    std::string bytes = readFile(so);
    for (size_t k = 100; k < bytes.size(); k += 997) bytes[k] ^= 0x5a;  // an ELF header intact, its insides not
    writeFile(so, bytes);
  });
  expectHealsAfter("text", [](const std::string& so) { writeFile(so, "not a shared object\n"); });
}

TEST(KernelCache, AnEmptyKernelIsRebuilt) {
  expectHealsAfter("empty", [](const std::string& so) { writeFile(so, ""); });
}

TEST(KernelCache, ADirectoryWhereTheKernelShouldBeIsReplaced) {
  expectHealsAfter("directory", [](const std::string& so) {
    fs::remove(so);
    fs::create_directories(so + "/inside");
  });
}

TEST(KernelCache, AForeignSharedObjectIsNeverLoaded) {
  expectHealsAfter("foreign", [](const std::string& so) {
    std::string libm;
    for (const char* p : {"/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6",
                          "/lib/aarch64-linux-gnu/libm.so.6", "/lib64/libm.so.6"})
      if (fs::exists(p)) libm = p;
    ASSERT_FALSE(libm.empty());
    fs::copy_file(libm, so, fs::copy_options::overwrite_existing);
  });
}

TEST(KernelCache, AKernelFromAnotherTemlVersionIsRebuilt) {
  expectHealsAfter("version", [](const std::string& so) {
    std::string bytes = readFile(so);
    // The trailer's last 48 bytes: magic (8), version (24), length, checksum.
    std::string other = "0.0.1";
    other.resize(24, '\0');
    bytes.replace(bytes.size() - 40, 24, other);
    writeFile(so, bytes);
  });
}

TEST(KernelCache, AnUnusableDirectoryMeansATemporaryOneWithAWarning) {
  // A directory that cannot be created (its parent is a file), and one that
  // cannot be written (read-only; /proc also for root, whom modes do not stop).
  std::string parent = freshCache("not-creatable");
  writeFile(parent, "a file");
  std::string readOnly = freshCache("read-only");
  fs::create_directories(readOnly);
  fs::permissions(readOnly, fs::perms::owner_read | fs::perms::owner_exec);
  std::vector<std::string> dirs = {parent + "/cache", readOnly};
  if (geteuid() == 0) dirs.push_back("/proc");
  std::string want = resultOf(runTeml(kRun).out);
  for (auto& dir : dirs) {
    auto r = runTeml(kRun, "", dir);
    EXPECT_EQ(r.status, 0) << dir << ":\n" << r.out;
    EXPECT_EQ(resultOf(r.out), want) << dir;
    if (dir != readOnly || geteuid() != 0) {
      auto warning = r.out.find("teml: warning: cannot use the kernel cache directory '" + dir + "'");
      EXPECT_NE(warning, std::string::npos) << r.out;
      EXPECT_EQ(r.out.find("teml: warning", warning + 1), std::string::npos) << "one warning:\n" << r.out;
    }
  }
  fs::permissions(readOnly, fs::perms::owner_all);
  fs::remove(parent);
}

TEST(KernelCache, EightProcessesBuildingOneNewKernelAllSucceed) {
  std::string dir = freshCache("concurrent");
  std::string command;
  for (int k = 0; k < 8; ++k)
    command += "(" + std::string(TEML_BINARY) + " run " + kMm + " --set N=29 --random 2 --verify --cache-dir " + dir +
               "; echo $? > " + dir + "-rc" + std::to_string(k) + ") > " + dir + "-out" + std::to_string(k) +
               " 2>&1 &\n";
  ASSERT_EQ(std::system((command + "wait\n").c_str()), 0);
  std::string first;
  for (int k = 0; k < 8; ++k) {
    std::string out = readFile(dir + "-out" + std::to_string(k));
    EXPECT_EQ(readFile(dir + "-rc" + std::to_string(k)), "0\n") << out;
    EXPECT_NE(out.find("(ok)"), std::string::npos) << out;
    if (k == 0) first = resultOf(out);
    EXPECT_EQ(resultOf(out), first);
  }
  EXPECT_EQ(filesIn(dir, ".so").size(), 1u);
}

TEST(KernelCache, DamagedAnalysisAnswersAreRecomputed) {
  // The FreeTensor paper's Figure 11: interchanging would reverse (i, j) -> (i + 2, j - 1).
  std::string illegal = freshCache("analysis") + "-illegal.teml";
  writeFile(illegal,
            "a = tensor([9, 8])\nB = tensor([6, 6])\nt = vadd(a, B, [[i + 1, j + 2], [i, j]])\n"
            "a = eq(t, -> [i + 3, j + 1])\nl = build(a)\ns = interchange(l, 1, 2)\n");
  std::string dir = freshCache("analysis");
  auto first = runTeml("check " + illegal, "", dir);
  ASSERT_EQ(first.status, 1) << first.out;
  auto answers = filesIn(dir + "/analysis", "");
  ASSERT_FALSE(answers.empty());
  for (auto& path : answers) {
    std::string bytes = readFile(path);
    auto verdict = bytes.find("illegal");
    if (verdict != std::string::npos) bytes.replace(verdict, 7, "legal\n\n");  // the verdict changed, not resealed
    else bytes[bytes.size() / 2] ^= 1;
    writeFile(path, bytes);
  }
  auto again = runTeml("check " + illegal, "", dir);
  EXPECT_EQ(again.status, 1) << again.out;
  EXPECT_EQ(again.out, first.out);
  for (auto& path : filesIn(dir + "/analysis", "")) writeFile(path, "");
  EXPECT_EQ(runTeml("check " + illegal, "", dir).out, first.out);
}

TEST(KernelCache, KeptAnswersAboutLocalTensorsAreReusedAndDamagedOnesRecomputed) {
  // Blur's schedule makes tmp local to the row loop: isl's answer is kept.
  std::string blur = std::string(TEML_SOURCE_DIR) + "/examples/blur/best.teml --set N=37";
  std::string dir = freshCache("locals");
  auto first = runTeml("check " + blur, "", dir);
  ASSERT_EQ(first.status, 0) << first.out;
  auto aboutLocals = [&] {
    std::vector<std::string> out;
    for (auto& path : filesIn(dir + "/analysis", ""))
      if (fs::path(path).filename().string().front() == 'l') out.push_back(path);
    return out;
  };
  auto answers = aboutLocals();
  ASSERT_FALSE(answers.empty());
  EXPECT_EQ(runTeml("check " + blur, "", dir).status, 0);
  // An answer changed on disk (not resealed) or emptied is recomputed, not believed.
  for (auto& path : answers) {
    std::string bytes = readFile(path);
    bytes.replace(0, 2, "9\nnot sound");
    writeFile(path, bytes);
  }
  EXPECT_EQ(runTeml("check " + blur, "", dir).status, 0);
  for (auto& path : aboutLocals()) writeFile(path, "");
  EXPECT_EQ(runTeml("check " + blur, "", dir).status, 0);
}
