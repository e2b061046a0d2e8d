// var_reorder, var_split and var_merge change the layout of a tensor local to
// a loop: every access is rewritten, and the results stay the same.
#include "backend/cpu/c_emitter.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const std::map<std::string, int64_t> kSizes = {{"N", 9}, {"M", 7}};

// Blur's passes fused over rows with tmp local to the row loop.
const std::string kBlur = R"(inp = tensor([N, M])
tmp = tensor([N - 2, M])
out = tensor([N - 2, M - 2])
s1 = vadd(inp, inp, [[i, j], [i + 1, j]])
s2 = vadd(s1, inp, [, [i + 2, j]])
tmp = eq(s2, -> [i, j])
s3 = vadd(tmp, tmp, [[i, j], [i, j + 1]])
s4 = vadd(s3, tmp, [, [i, j + 2]])
out = eq(s4, -> [i, j])
l1 = build(tmp)
l2 = build(out)
f = fuse_outer(l1, l2, 1)
f = local(f, 1, tmp)
)";

void expectKeepsResults(const std::string& schedule) {
  expectKeepsResultsOf(kBlur + schedule, kBlur + "codegen(f)\n", kSizes);
}

}  // namespace

TEST(VarLayout, ReorderSplitAndMergeKeepResults) {
  expectKeepsResults("g = var_reorder(f, tmp, [2, 1])\ncodegen(g)\n");
  expectKeepsResults("g = var_split(f, tmp, 2, 3)\ng = parallelize(g, 1)\ncodegen(g)\n");
  expectKeepsResults("g = var_merge(f, tmp, 1)\ncodegen(g)\n");
  auto p = compile(kBlur + "g = var_reorder(f, tmp, [2, 1])\ncodegen(g)\n", kSizes);
  EXPECT_NE(cSource(p).find("tmp[7][1]"), std::string::npos) << cSource(p);
}

TEST(VarLayout, CacheCopiesCanBeReshaped) {
  expectKeepsResults("g = cache(f, 1, inp)\ng = var_split(g, inp_cache, 2, 4)\ncodegen(g)\n");
}

TEST(VarLayout, ProgramTensorsAndBadDimensionsAreRefused) {
  auto f = compileError(kBlur + "g = var_reorder(f, inp, [2, 1])\n", kSizes);
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 14);
  EXPECT_NE(f.message.find("layout is fixed by its inputs and outputs"), std::string::npos) << f.message;
  auto g = compileError(kBlur + "g = var_reorder(f, tmp, [1, 1])\n", kSizes);
  EXPECT_NE(g.message.find("each of the 2 dimensions"), std::string::npos) << g.message;
  auto h = compileError(kBlur + "g = var_merge(f, tmp, 2)\n", kSizes);
  EXPECT_NE(h.message.find("dimension 3 does not exist"), std::string::npos) << h.message;
}
