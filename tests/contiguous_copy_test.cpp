// Copy nests: one copying a contiguous block of memory into another (a
// cache's copy of whole rows) is one flat copy: memcpy, or non-temporal
// vector stores into an output too large for the caches. One that
// transposes (a copy into a reordered cache) runs in the destination's
// order, writing whole vectors gathered from the source's stride.
#include "backend/cpu/c_emitter.hpp"
#include "test_programs.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const std::string kStencil = "inp = tensor([N + 2, M])\nout = tensor([N, M])\n"
                             "s1 = vadd(inp, inp, [[i, j], [i + 1, j]])\ns2 = vadd(s1, inp, [, [i + 2, j]])\n"
                             "out = eq(s2, -> [i, j])\nl = build(out)\n";

bool has(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

}  // namespace

TEST(ContiguousCopy, WholeRowsAreOneCopy) {
  const std::map<std::string, int64_t> sizes = {{"N", 9}, {"M", 7}};
  // Blocks of 4 rows (the last one 1 row): the copy-out moves rows*M elements.
  const std::string src = kStencil + "s = stripmine(l, 1, 4)\nc = cache(s, 1, out)\nc = parallelize(c, 1)\ncodegen(c)\n";
  expectKeepsResultsOf(src, kStencil + "codegen(l)\n", sizes);
  std::string c = cSource(compile(src, sizes));
  EXPECT_TRUE(has(c, "memcpy(")) << c;
}

TEST(ContiguousCopy, PartOfARowStaysALoopNest) {
  const std::map<std::string, int64_t> sizes = {{"N", 9}, {"M", 7}};
  // A block of 3 columns is not contiguous in out.
  const std::string src = kStencil + "s = stripmine(l, 2, 3)\nc = cache(s, 2, out)\ncodegen(c)\n";
  expectKeepsResultsOf(src, kStencil + "codegen(l)\n", sizes);
  EXPECT_FALSE(has(cSource(compile(src, sizes)), "memcpy(")) << cSource(compile(src, sizes));
}

TEST(ContiguousCopy, LargeOutputsBypassTheCaches) {
  // out is 64 MiB: the copy-out of each block of rows streams past the
  // caches; each thread fences its stores before the parallel region ends.
  const std::map<std::string, int64_t> sizes = {{"N", 2048}, {"M", 4096}};
  const std::string src = kStencil + "s = stripmine(l, 1, 3)\nc = cache(s, 1, out)\nc = parallelize(c, 1)\ncodegen(c)\n";
  auto p = compile(src, sizes);
  std::string c = cSource(p);
  EXPECT_TRUE(has(c, "teml_stream_v")) << c;
  EXPECT_TRUE(has(c, "  {\n    #pragma omp for schedule(static)")) << c;
  expectJitMatchesInterpreter(p);
}

TEST(ContiguousCopy, TransposingCopiesWriteWholeVectors) {
  // Blocks of VLEN elements of u copied into [i][j][k][e] (the element in
  // the lanes), and t's block copied back into v's layout.
  const std::string& src = kElementBlocks;
  const std::string plain = kContractAndCopy + "codegen(m1, m2)\n";
  // 16 elements fill whole blocks: both copies gather; 19 leave a partial
  // last block, whose clamped element loop keeps u's copy a loop nest.
  for (int64_t elements : {16, 19}) {
    const std::map<std::string, int64_t> sizes = {{"N", 5}, {"E", elements}};
    auto p = compile(src + "codegen(f)\n", sizes);
    std::string c = cSource(p);
    size_t first = c.find("= (teml_vd){from[");
    ASSERT_NE(first, std::string::npos) << c;
    EXPECT_EQ(c.find("= (teml_vd){from[", first + 1) != std::string::npos, elements == 16) << c;
    expectJitMatchesInterpreter(p);
    expectSameResults(p, compile(plain, sizes));
  }
}
