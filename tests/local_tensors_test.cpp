// Tensors local to a loop (local(l, r, t)): every iteration works on a fresh
// copy of the part it touches. Legal cases keep the results of the program
// without local(...); the others are refused with the reason.
#include "test_programs.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const std::map<std::string, int64_t> kSizes = {{"N", 9}, {"E", 5}};

// Blur's two passes fused over rows: row i of tmp is written and read in iteration i only.
const std::string kBlur = R"(inp = tensor([N, N])
tmp = tensor([N - 2, N])
out = tensor([N - 2, N - 2])
s1 = vadd(inp, inp, [[i, j], [i + 1, j]])
s2 = vadd(s1, inp, [, [i + 2, j]])
tmp = eq(s2, -> [i, j])
s3 = vadd(tmp, tmp, [[i, j], [i, j + 1]])
s4 = vadd(s3, tmp, [, [i, j + 2]])
out = eq(s4, -> [i, j])
l1 = build(tmp)
l2 = build(out)
f = fuse_outer(l1, l2, 1)
)";

// Interpolation's three contractions fused over the elements e.
const std::string kInterp = R"(A = tensor([N, N])
u = tensor([E, N, N, N])
t1 = tensor([E, N, N, N])
t2 = tensor([E, N, N, N])
v = tensor([E, N, N, N])
p1 = vmul(A, u, [[i, l], [e, l, j, k]])
t1 = add(t1, p1, [[e, i, j, k], ] -> [e, i, j, k])
p2 = vmul(A, t1, [[j, l], [e, i, l, k]])
t2 = add(t2, p2, [[e, i, j, k], ] -> [e, i, j, k])
p3 = vmul(A, t2, [[k, l], [e, i, j, l]])
v = add(v, p3, [[e, i, j, k], ] -> [e, i, j, k])
m1 = build(t1)
m2 = build(t2)
m3 = build(v)
f = fuse_outer(m1, m2, 1)
f = fuse_outer(f, m3, 1)
)";

void expectKeepsResults(const std::string& src, const std::string& baseline) {
  expectKeepsResultsOf(src, baseline, kSizes);
}

void expectRefused(const std::string& src, int line, const std::string& fragment) {
  expectRefusedAt(src, kSizes, line, fragment);
}

}  // namespace

TEST(LocalTensors, BlurRowBufferKeepsResults) {
  expectKeepsResults(kBlur + "g = local(f, 1, tmp)\ng = parallelize(g, 1)\ncodegen(g)\n", kBlur + "codegen(f)\n");
  auto p = compile(kBlur + "g = local(f, 1, tmp)\ncodegen(g)\n", kSizes);
  EXPECT_EQ(p.find("tmp"), nullptr) << "a local tensor is not one of the program's buffers";
}

TEST(LocalTensors, InterpTemporariesPerElement) {
  expectKeepsResults(kInterp + "g = local(f, 1, t1)\ng = local(g, 1, t2)\ng = parallelize(g, 1)\ncodegen(g)\n",
                     kInterp + "codegen(f)\n");
}

TEST(LocalTensors, LaterTransformationsKeepTheLocal) {
  // Strip-mining the owner keeps the tensor local to the inner loop; tiles
  // with a remainder (5 elements in blocks of 2) included.
  expectKeepsResults(kInterp + "g = local(f, 1, t1)\ng = stripmine(g, 1, 2)\ng = parallelize(g, 1)\ncodegen(g)\n",
                     kInterp + "codegen(f)\n");
  // Unrolling the owner away would leave the tensor without a loop.
  expectRefused(kBlur + "g = local(f, 1, tmp)\ng = unroll(g, 1)\n", 14, "would remove the loop that 'tmp' is local to");
}

TEST(LocalTensors, LoopsAcrossTheOwnerStayOneNest) {
  // t is local to loop i, which interchange then moves inside loop j: the
  // local belongs to i's header and the two loops still form one nest.
  const std::string fused = "x = tensor([N, N])\nt = tensor([N, N])\ny = tensor([N, N])\ntwo = scalar()\n"
                            "init(two, 2)\nt = mul(x, two, [[i, j], ] -> [i, j])\ns = vadd(t, x, [[i, j], [i, j]])\n"
                            "y = eq(s, -> [i, j])\nl1 = build(t)\nl2 = build(y)\nf = fuse_outer(l1, l2, 2)\n";
  expectKeepsResults(fused + "g = local(f, 1, t)\ng = interchange(g, 1, 2)\ncodegen(g)\n", fused + "codegen(f)\n");
}

TEST(LocalTensors, ValuesThatCrossIterationsAreRefused) {
  // u[i] reads t[i], written one iteration earlier: t cannot be per-iteration.
  const std::string src = "a = tensor([N])\nt = tensor([N + 1])\nu = tensor([N])\n"
                          "t = eq(a, [i] -> [i + 1])\nv = vadd(t, t, [[i], [i + 1]])\nu = eq(v, -> [i])\n"
                          "l1 = build(t)\nl2 = build(u)\nf = fuse_outer(l1, l2, 1)\n";
  expectRefused(src + "g = local(f, 1, t)\n", 10, "used in two different iterations of loop 'i'");
}

TEST(LocalTensors, OtherNestsCannotSeeALocal) {
  // Unfused, the second nest reads tmp after the first one's loop has ended.
  const std::string unfused = kBlur.substr(0, kBlur.find("f = fuse_outer"));
  expectRefused(unfused + "g = local(l1, 1, tmp)\ncodegen(g, l2)\n", 13, "local to a loop of another nest");
}

TEST(LocalTensors, InitialValueAndSharedParallelInnerLoop) {
  // t starts at 1 everywhere; the owner i is serial, and its inner loop j runs
  // on threads that share the row of t.
  const std::string& src = kInitialValueRow;
  expectKeepsResults(src + "g = local(f, 1, t)\ng = parallelize(g, 2)\ncodegen(g)\n", src + "codegen(f)\n");
}

TEST(LocalTensors, NotALoopLevelOrNotATensor) {
  expectRefused(kBlur + "g = local(f, 3, tmp)\n", 13, "is not reachable");
  expectRefused(kBlur + "g = local(f, 1, s3)\n", 13, "not a declared tensor");
}
