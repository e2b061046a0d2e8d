// Every example under examples/ compiles, and its three schedules (naive,
// Pluto's, teml's) give the interpreter's results at small, awkward sizes.
#include <fstream>
#include <sstream>

#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

std::string readExample(const std::string& kernel, const std::string& variant) {
  std::ifstream in(std::string(TEML_SOURCE_DIR) + "/examples/" + kernel + "/" + variant + ".teml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Small sizes that tile and unroll factors do not divide.
const std::map<std::string, int64_t> kSizes = {{"N", 37}, {"M", 19}, {"K", 11}, {"NB", 3}, {"E", 3},
                                               {"G", 2},  {"C", 3},  {"H", 9},  {"R", 3},  {"I", 9},
                                               {"J", 10}, {"L", 7}};

class ExampleTest : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(ExampleTest, SchedulesAgreeWithTheInterpreter) {
  auto sizes = kSizes;
  if (GetParam() == "interp" || GetParam() == "helm") sizes["N"] = 5;
  auto naive = compile(readExample(GetParam(), "naive"), sizes);
  for (const char* variant : {"naive", "pluto", "best", "paper"}) {
    SCOPED_TRACE(variant);
    if (readExample(GetParam(), variant).empty()) continue;  // paper.teml: only where it differs from best
    auto p = compile(readExample(GetParam(), variant), sizes);
    expectJitMatchesInterpreter(p);
    expectSameResults(p, naive);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, ExampleTest,
                         ::testing::Values("mm", "tmm", "bmm", "gconv", "mttkrp", "sddmm", "interp", "helm", "blur",
                                           "coars"));

TEST(Examples, MatrixProductHasKnownValues) {
  auto p = compile(readExample("mm", "best"), {{"N", 300}});
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  const auto &A = in.at("A"), &B = in.at("B");
  for (int i : {0, 17, 299})
    for (int j : {0, 255, 256, 299}) {
      double s = 0;
      for (int k = 0; k < 300; ++k) s += A.get(i * 300 + k) * B.get(k * 300 + j);
      EXPECT_NEAR(out.at("C").get(i * 300 + j), s, 1e-10);
    }
}

TEST(Examples, MttkrpHasKnownValues) {
  auto p = compile(readExample("mttkrp", "best"), {{"I", 5}, {"J", 6}, {"K", 7}, {"L", 8}});
  auto in = randomInputs(p);
  auto out = runJit(p, in);
  auto at3 = [](const runtime::Buffer& b, int i, int j, int k) {
    return b.get((i * b.shape()[1] + j) * b.shape()[2] + k);
  };
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 6; ++j) {
      double s = 0;
      for (int k = 0; k < 7; ++k)
        for (int l = 0; l < 8; ++l)
          s += at3(in.at("B"), i, k, l) * in.at("D").get(l * 6 + j) * in.at("C").get(k * 6 + j);
      EXPECT_NEAR(out.at("A").get(i * 6 + j), s, 1e-12);
    }
}
