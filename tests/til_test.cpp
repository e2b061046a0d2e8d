// The 2017 iterator language (.til): the paper's interpolation variants agree,
// transformations act on named iterators, and errors keep .til line numbers.
#include <fstream>
#include <sstream>

#include "frontend/til/til.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

ir::Program compileTil(const std::string& src, std::map<std::string, int64_t> sizes) {
  return compile(til::tilToTeml(src), std::move(sizes));
}

std::string example(const std::string& name) {  // under examples/til/
  std::ifstream in(std::string(TEML_SOURCE_DIR) + "/examples/til/" + name + ".til");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Failure tilError(const std::string& src, std::map<std::string, int64_t> sizes = {{"N", 5}}) {
  return failureOf([&] { compileTil(src, sizes); });
}

// The .til program is refused at `line` with a message containing `fragment`.
void expectTilRefusedAt(const std::string& src, int line, const std::string& fragment) {
  auto f = tilError(src);
  ASSERT_TRUE(f.failed) << src;
  EXPECT_EQ(f.loc.line, line) << f.message;
  EXPECT_NE(f.message.find(fragment), std::string::npos) << f.message;
}

const std::string kTwoNests = "A = array(2, double, [N, N])\nB = array(2, double, [N, N])\n"
                              "C = entrywise(A, B)\nD = entrywise(C, B)\n"
                              "i1 = iterator(0, N, 1)\ni2 = iterator(0, N, 1)\ni3 = iterator(0, N, 1)\ni4 = iterator(0, N, 1)\n"
                              "build(C, [i1, i2])\nbuild(D, [i3, i4])\n";

}  // namespace

TEST(Til, InterpolationVariantsAgree) {
  const std::map<std::string, int64_t> sizes = {{"N", 7}};
  auto e1 = compileTil(example("E1"), sizes), e2 = compileTil(example("E2"), sizes), e3 = compileTil(example("E3"), sizes);
  expectJitMatchesInterpreter(e1);
  auto r1 = runJit(e1, randomInputs(e1)), r2 = runJit(e2, randomInputs(e2)), r3 = runJit(e3, randomInputs(e3));
  // Inputs A and u are the first two tensors of every variant: the same random values.
  EXPECT_LE(runtime::maxRelativeDifference(r2.at("v"), r1.at("v")), 1e-12);
  EXPECT_LE(runtime::maxRelativeDifference(r3.at("v"), r1.at("v")), 1e-12);
}

TEST(Til, TransformationsActOnNamedIterators) {
  // Fuse the outer loops and the inner ones, then parallelize (the paper's Section 3.1).
  auto p = compileTil(kTwoNests + "fuse(i1, i3)\nfuse(i2, i4)\nparallelize(i1, THRD, dynamic, [i2])\n", {{"N", 6}});
  EXPECT_NE(cSource(p).find("schedule(dynamic)"), std::string::npos);
  ASSERT_EQ(p.nests.size(), 1u);
  auto base = compileTil(kTwoNests, {{"N", 6}});
  expectSameResults(p, base);
  // With C's loops interchanged first (the paper's example), row i of D would
  // read columns of C that later iterations compute: refused at the fuse line.
  auto f = tilError(kTwoNests + "interchange(i1, i2)\nfuse(i2, i3)\n");
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 12);
  EXPECT_NE(f.message.find("fuse_outer would reverse the dependence"), std::string::npos) << f.message;
}

TEST(Til, ErrorsKeepTheirLines) {
  expectTilRefusedAt(kTwoNests + "replace_array(i1, A, B)\n", 11, "'B' is not a transposition of 'A'");
  expectTilRefusedAt(kTwoNests + "parallelize(i1, THRD, often)\n", 11, "None, static, dynamic or guided");
  expectTilRefusedAt(kTwoNests + "parallelize(i1, THRD, None, [i2, x])\n", 11,
                     "'x' in the private list is not an iterator");
  expectTilRefusedAt(kTwoNests + "interchange(i1, i3)\n", 11, "different loop nests");
  expectTilRefusedAt(kTwoNests + "fuse(i1, i3)\nparallelize(i3, THRD)\n", 12, "fused away");
  // TeML's own checks report at the .til line: a fusion of loops with different ranges.
  auto k = tilError("A = array(2, double, [N, N])\nB = array(1, double, [N])\nC = entrywise(A, A)\nD = entrywise(B, B)\n"
                    "i1 = iterator(0, N, 1)\ni2 = iterator(0, N, 1)\ni3 = iterator(0, N, 1)\n"
                    "build(C, [i1, i2])\nbuild(D, [i3])\nfuse(i2, i3)\n");
  EXPECT_TRUE(k.failed);
  EXPECT_EQ(k.loc.line, 10) << k.message;
}

TEST(Til, ElementLoopInterpolationVariantsAgree) {
  const std::map<std::string, int64_t> sizes = {{"E", 6}, {"N", 5}};
  auto base = compileTil(example("mesh/interp_naive"), sizes);
  for (const char* name : {"mesh/E1", "mesh/E2", "mesh/E3"}) {
    SCOPED_TRACE(name);
    auto p = compileTil(example(name), sizes);
    expectJitMatchesInterpreter(p);
    expectSameResults(p, base);  // v from the same random A and u
  }
}

TEST(Til, HelmholtzVariantsAgree) {
  const std::map<std::string, int64_t> sizes = {{"E", 5}, {"N", 6}};
  auto base = compileTil(example("mesh/helm_naive"), sizes);
  for (const char* name : {"mesh/L1", "mesh/L2", "mesh/L3"}) {
    SCOPED_TRACE(name);
    auto p = compileTil(example(name), sizes);
    expectJitMatchesInterpreter(p);
    auto got = runJit(p, randomInputs(p)), want = runInterpreter(base, randomInputs(base));
    EXPECT_LE(runtime::maxRelativeDifference(got.at("v"), want.at("v")), 1e-12);
  }
  // L3 keeps the last three contractions' intermediates only in their transposed layouts.
  auto l3 = compileTil(example("mesh/L3"), sizes);
  EXPECT_EQ(l3.find("tmp5"), nullptr);
  EXPECT_NE(l3.find("tmp5t"), nullptr);
}

TEST(Til, VirtualTranspositionReplacedOnlyInTheConsumerIsRefused) {
  // The paper's listing replaces tmp5 by tmp5t in its consumer only; the
  // producer would still write tmp5's layout, so teml refuses it.
  std::string l3 = example("mesh/L3");
  std::string producerLine = "replace_array(f1, tmp5, tmp5t)\n";
  ASSERT_NE(l3.find(producerLine), std::string::npos);
  l3.replace(l3.find(producerLine), producerLine.size(), "\n");
  auto f = tilError(l3, {{"E", 3}, {"N", 4}});
  ASSERT_TRUE(f.failed);
  EXPECT_NE(f.message.find("still accesses 'tmp5'"), std::string::npos) << f.message;
}
