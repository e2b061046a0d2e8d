// Random sequences of transformations on programs with dependences: every
// sequence teml accepts computes what the untransformed program computes
// (reference interpreter on both; some also compiled and run on threads), and
// refused steps are counted. TEML_RANDOM_SEQUENCES raises the count (CI runs
// a few hundred; `TEML_RANDOM_SEQUENCES=3000 ./build/teml_tests
// --gtest_filter=RandomSchedules.*` is the long run; TEML_RANDOM_SEED picks
// another sequence).
#include <iostream>
#include <random>

#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

struct Template {
  std::string source;  // defines nests l1 (and l2), depth levels
  int depth;
  bool twoNests;
  std::string local;  // a tensor that local(...) steps try to make local
  std::string transposed = "";  // a vtranspose of `local` that replace_array steps try
  std::string written = "";     // a tensor the nests only store: cache steps try it too (no copy-in)
};

const std::vector<Template> kTemplates = {
    // matrix product: reductions commute
    {"A = tensor([N, K])\nB = tensor([K, M])\nC = contract(A, B, [2, 1])\nl1 = build(C)\n", 3, false, "C"},
    // in-place stencil with the dependence (2, -1)
    {"a = tensor([N + 3, M + 2])\nB = tensor([N, M])\nt = vadd(a, B, [[i + 1, j + 2], [i, j]])\n"
     "a = eq(t, -> [i + 3, j + 1])\nl1 = build(a)\n", 2, false, "a"},
    // in-place stencil with the dependence (1, 1)
    {"a = tensor([N + 2, M + 2])\nB = tensor([N, M])\nt = vadd(a, B, [[i + 1, j + 1], [i, j]])\n"
     "a = eq(t, -> [i + 2, j + 2])\nl1 = build(a)\n", 2, false, "a"},
    // scalar recurrence: a = a * b + 1
    {"a = scalar()\nb = tensor([N, M])\none = scalar()\ninit(one, 1)\nt = vmul(a, b, [, [i, j]])\n"
     "u = vadd(t, one, [, ])\na = eq(u, -> [])\nl1 = build(a)\n", 2, false, "a"},
    // producer and consumer with a shift, then an independent second nest
    {"x = tensor([N, M])\nt = tensor([N + 2, M])\nz = tensor([N, M])\nr = tensor([N, M])\n"
     "t = eq(x, [i, j] -> [i + 1, j])\nw = vadd(t, z, [[i + 2, j], [i, j]])\nr = eq(w, -> [i, j])\n"
     "tt = vtranspose(t, [[1, 2]])\nl1 = build(t)\nl2 = build(r)\n", 2, true, "t", "tt", "r"},
    // producer and consumer in the same iteration (t can be local once fused)
    {"x = tensor([N, M])\nt = tensor([N, M + 1])\nr = tensor([N, M])\nt = eq(x, [i, j] -> [i, j + 1])\n"
     "w = vadd(t, t, [[i, j], [i, j + 1]])\nr = eq(w, -> [i, j])\ntt = vtranspose(t, [[1, 2]])\n"
     "l1 = build(t)\nl2 = build(r)\n", 2, true, "t", "tt", "r"},
    // 3-d accumulation (interp-like)
    {"A = tensor([K, K])\nu = tensor([N, K, M])\nt = tensor([N, K, M])\np = vmul(A, u, [[i, l], [e, l, k]])\n"
     "t = add(t, p, [[e, i, k], ] -> [e, i, k])\nl1 = build(t)\n", 4, false, "t"},
};

std::string randomStep(std::mt19937& rng, const std::string& cur, int depth, bool canFuse, const std::string& next,
                       const Template& t) {
  const std::string& local = t.local;
  auto lv = [&](int hi) { return std::to_string(1 + static_cast<int>(rng() % std::max(1, hi))); };
  auto factor = [&]() { return std::to_string(2 + static_cast<int>(rng() % 4)); };
  // A virtual transposition must replace every access: in both nests while
  // they are apart (the second one whole), in the one nest once fused.
  if (!t.transposed.empty() && rng() % 8 == 0)
    return next + " = replace_array(" + cur + ", " + lv(depth) + ", " + local + ", " + t.transposed + ")" +
           (canFuse ? "\nl2 = replace_array(l2, 1, " + local + ", " + t.transposed + ")" : "");
  switch (rng() % (canFuse ? 18 : 17)) {
    case 0:
    case 1: return next + " = interchange(" + cur + ", " + lv(depth) + ", " + lv(depth) + ")";
    case 2: return next + " = stripmine(" + cur + ", " + lv(depth) + ", " + factor() + ")";
    case 3: return next + " = tile(" + cur + ", " + factor() + ")";
    case 4: return next + " = unroll_and_jam(" + cur + ", " + lv(depth) + ", " + factor() + ")";
    case 5: return next + " = unroll(" + cur + ", " + lv(depth) + ", " + factor() + ")";
    case 6: return next + " = parallelize(" + cur + ", " + lv(depth) + ")";
    case 7: return next + " = vectorize(" + cur + ", " + lv(depth) + ")";
    case 8: return next + " = skew(" + cur + ", " + lv(depth) + ", " + lv(depth) + ", " + lv(2) + ")";
    case 9: return next + " = merge(" + cur + ", " + lv(depth) + ")";
    case 10: return next + " = separate_tail(" + cur + ", " + lv(depth) + ")";
    case 11: return next + " = fission(" + cur + ", " + lv(depth) + ", 1)";
    case 12: return next + " = swap(" + cur + ", " + lv(depth) + ", 1, 2)";
    case 13: return next + " = blend(" + cur + ", " + lv(depth) + ")";
    case 14: return next + " = local(" + cur + ", " + lv(depth) + ", " + local + ")";
    case 15: {
      const std::string& cached = !t.written.empty() && rng() % 2 ? t.written : local;
      return next + " = cache(" + cur + ", " + lv(depth) + ", " + cached + ")";
    }
    case 16:
      if (rng() % 2) return next + " = prefetch(" + cur + ", " + local + "_cache)";
      return next + " = cache_reduce(" + cur + ", " + lv(depth) + ", " + local + ")";
    default: return next + " = fuse_outer(" + cur + ", l2, " + lv(2) + ")";
  }
}

}  // namespace

TEST(RandomSchedules, AcceptedSequencesPreserveResults) {
  const char* seed = std::getenv("TEML_RANDOM_SEED");
  std::mt19937 rng(seed ? static_cast<unsigned>(std::atoi(seed)) : 2026u);
  const std::map<std::string, int64_t> sizes = {{"N", 7}, {"M", 6}, {"K", 5}};
  int accepted = 0, refused = 0, compiled = 0, replaced = 0, threaded = 0;
  const int total = randomSequenceCount(300);
  for (int n = 0; n < total; ++n) {
    const Template& t = kTemplates[rng() % kTemplates.size()];
    std::string base = t.source + (t.twoNests ? "codegen(l1, l2)\n" : "codegen(l1)\n");
    ir::Program original = compile(base, sizes);
    std::string program = t.source, cur = "l1";
    bool fused = false;
    int steps = 1 + static_cast<int>(rng() % 5);
    for (int s = 0; s < steps; ++s) {
      std::string next = "s" + std::to_string(s);
      std::string step = randomStep(rng, cur, t.depth + 2 * s, t.twoNests && !fused, next, t);
      std::string candidate = program + step + "\n";
      std::string full = candidate + (t.twoNests && !fused && step.find("fuse_outer") == std::string::npos
                                          ? "codegen(" + next + ", l2)\n"
                                          : "codegen(" + next + ")\n");
      try {
        ir::Program p = compile(full, sizes);
        program = candidate;
        cur = next;
        fused |= step.find("fuse_outer") != std::string::npos;
        ++accepted;
        replaced += step.find("replace_array") != std::string::npos;
        SCOPED_TRACE(full);
        expectSameResults(p, original);  // compiled code vs the original's interpreter run
        expectDecisionsAreTheCodes(p);
        threaded += expectSameOnEveryThreadCount(p, &original);  // 2, 4 and 8 threads, data where a race shows
        ++compiled;
      } catch (const UserError&) {
        ++refused;
      } catch (const std::exception& e) {  // generated code the C compiler rejects, ...
        ADD_FAILURE() << e.what() << "\n" << full;
      }
    }
  }
  std::cout << total << " random sequences: " << accepted << " steps accepted (each checked against the "
            << "untransformed program; " << replaced << " of them replace_array; " << threaded
            << " parallel ones run on 2, 4 and 8 threads), " << refused << " refused\n";
  EXPECT_GT(threaded, 0);
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);
  EXPECT_EQ(compiled, accepted);
}
