// A nest of plain loops copying one contiguous block of memory into another
// (a cache's copy of whole rows) is emitted as one flat copy: memcpy, or
// non-temporal vector stores into an output too large for the caches.
#include "codegen/c_emitter.hpp"
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
  std::string c = codegen::emitC(compile(src, sizes));
  EXPECT_TRUE(has(c, "memcpy(")) << c;
}

TEST(ContiguousCopy, PartOfARowStaysALoopNest) {
  const std::map<std::string, int64_t> sizes = {{"N", 9}, {"M", 7}};
  // A block of 3 columns is not contiguous in out.
  const std::string src = kStencil + "s = stripmine(l, 2, 3)\nc = cache(s, 2, out)\ncodegen(c)\n";
  expectKeepsResultsOf(src, kStencil + "codegen(l)\n", sizes);
  EXPECT_FALSE(has(codegen::emitC(compile(src, sizes)), "memcpy(")) << codegen::emitC(compile(src, sizes));
}

TEST(ContiguousCopy, LargeOutputsBypassTheCaches) {
  // out is 64 MiB: the copy-out of each block of rows streams past the
  // caches; each thread fences its stores before the parallel region ends.
  const std::map<std::string, int64_t> sizes = {{"N", 2048}, {"M", 4096}};
  const std::string src = kStencil + "s = stripmine(l, 1, 3)\nc = cache(s, 1, out)\nc = parallelize(c, 1)\ncodegen(c)\n";
  auto p = compile(src, sizes);
  std::string c = codegen::emitC(p);
  EXPECT_TRUE(has(c, "teml_stream_v")) << c;
  EXPECT_TRUE(has(c, "  {\n    #pragma omp for schedule(static)")) << c;
  expectJitMatchesInterpreter(p);
}
