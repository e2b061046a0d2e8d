// prefetch(l, copy): while a cache's copy is filled, the box of its tensor
// that the next iteration copies is fetched ahead. Results never change;
// copies without a copy-in, or whose box is not one run of memory, are
// refused with the reason.
#include "backend/cpu/c_emitter.hpp"
#include "test_programs.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const std::string& kBlocks = kElementBlocks;
const std::string kPlain = kContractAndCopy + "codegen(m1, m2)\n";

}  // namespace

TEST(Prefetch, NextBlockIsFetchedWhileThisOneIsCopied) {
  for (const char* ahead : {"f = prefetch(f, u_cache)\n", "f = prefetch(f, u_cache, 3)\n"}) {
    const std::map<std::string, int64_t> sizes = {{"N", 5}, {"E", 32}};
    auto p = compile(kBlocks + ahead + "codegen(f)\n", sizes);
    std::string c = cSource(p);
    EXPECT_NE(c.find("__builtin_prefetch("), std::string::npos) << c;
    expectJitMatchesInterpreter(p);
    expectSameResults(p, compile(kPlain, sizes));
  }
}

TEST(Prefetch, FlatCopiesFetchAsTheyCopy) {
  // u's block kept in its own layout: one flat copy, the next block's lines
  // spread over its vectors.
  const std::string src = kBlocks.substr(0, kBlocks.find("f = var_reorder(f, u_cache")) +
                          "f = parallelize(f, 1)\nf = prefetch(f, u_cache)\ncodegen(f)\n";
  const std::map<std::string, int64_t> sizes = {{"N", 5}, {"E", 32}};
  auto p = compile(src, sizes);
  EXPECT_NE(cSource(p).find("__builtin_prefetch("), std::string::npos) << cSource(p);
  expectJitMatchesInterpreter(p);
  expectSameResults(p, compile(kPlain, sizes));
}

TEST(Prefetch, RefusedWithoutACopyInOrAContiguousBox) {
  const std::map<std::string, int64_t> sizes = {{"N", 5}, {"E", 16}};
  // t is local, not a cache's copy.
  expectRefusedAt(kBlocks + "f = prefetch(f, t)\n", sizes, 20, "not filled from a tensor");
  // A cache of v, which the loop only writes, is never copied in.
  expectRefusedAt(kBlocks + "f = cache(f, 1, v)\ng = prefetch(f, v_cache)\n", sizes, 21, "not filled from a tensor");
  // A block of columns of B is not one run of memory.
  const std::string product = "A = tensor([N, N])\nB = tensor([N, N])\nC = contract(A, B, [2, 1])\nl = build(C)\n"
                              "l1 = stripmine(l, 2, 4)\nl2 = interchange(l1, 1, 2)\nc = cache(l2, 1, B)\n";
  expectRefusedAt(product + "d = prefetch(c, B_cache)\n", {{"N", 9}}, 8, "not contiguous in memory");
  expectRefusedAt(kBlocks + "f = prefetch(f, w_cache)\n", sizes, 20, "w_cache");
  expectRefusedAt(kBlocks + "f = prefetch(f, u_cache, 0)\n", sizes, 20, "at least 1");
}
