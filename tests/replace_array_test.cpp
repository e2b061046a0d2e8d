// replace_array(l, level, old, new): a transposition of `old` takes its place
// inside a loop. Physical copies replace reads and must be made before they
// are read; virtual transpositions move the tensor to a new layout and must
// replace every access. Each accepted case keeps the results of the program
// without it; each wrong use is refused at the right line.
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const std::map<std::string, int64_t> kSizes = {{"N", 7}};

// T = A B, C = T^T + A: T is an intermediate with a producer and a consumer.
const std::string kProducerConsumer =
    "A = tensor([N, N])\n"
    "B = tensor([N, N])\n"
    "C = tensor([N, N])\n"
    "T = contract(A, B, [[2, 1]])\n"
    "Tt = vtranspose(T, [[1, 2]])\n"
    "C = add(T, A, [[j, i], [i, j]] -> [i, j])\n"
    "m1 = build(T)\n"
    "m2 = build(C)\n";  // lines 1-8

// Ap = A^T (a physical copy), C = A^T B read through A or through the copy.
const std::string kCopy =
    "A = tensor([N, N])\n"
    "B = tensor([N, N])\n"
    "C = tensor([N, N])\n"
    "Ap = transpose(A, [[1, 2]])\n"
    "At = vtranspose(A, [[1, 2]])\n"
    "C = contract(At, B, [[2, 1]])\n"
    "mc = build(Ap)\n"
    "m = build(C)\n";  // lines 1-8

}  // namespace

TEST(ReplaceArray, VirtualTranspositionOfProducerAndConsumerKeepsResults) {
  std::string p = kProducerConsumer + "m1 = replace_array(m1, 1, T, Tt)\nm2 = replace_array(m2, 2, T, Tt)\ncodegen(m1, m2)\n";
  expectKeepsResultsOf(p, kProducerConsumer + "codegen(m1, m2)\n", kSizes);
  auto prog = compile(p, kSizes);
  EXPECT_EQ(prog.find("T"), nullptr) << "T lives on only as Tt";
  ASSERT_NE(prog.find("Tt"), nullptr);
}

TEST(ReplaceArray, VirtualTranspositionMustReplaceEveryAccess) {
  expectRefusedAt(kProducerConsumer + "m1 = replace_array(m1, 1, T, Tt)\ncodegen(m1, m2)\n", kSizes, 9,
                  "nest 2 of codegen still accesses 'T'");
}

TEST(ReplaceArray, HalfReplacedNestsCannotBeTransformed) {
  // Fusing the replaced producer with the consumer that still reads T would
  // hide the dependence between them.
  expectRefusedAt(kProducerConsumer + "m1 = replace_array(m1, 1, T, Tt)\nm = fuse_outer(m1, m2, 1)\n", kSizes, 10,
                  "accesses both 'T' and its virtual transposition 'Tt'");
}

TEST(ReplaceArray, VirtualTranspositionOfDataIsRefused) {
  std::string p = kCopy + "Bt = vtranspose(B, [[1, 2]])\nm = replace_array(m, 1, B, Bt)\ncodegen(mc, m)\n";
  expectRefusedAt(p, kSizes, 10, "no nest computes 'B'");
}

TEST(ReplaceArray, PhysicalCopyReplacesReads) {
  std::string p = kCopy + "m = replace_array(m, 1, A, Ap)\ncodegen(mc, m)\n";
  expectKeepsResultsOf(p, kCopy + "codegen(mc, m)\n", kSizes);
}

TEST(ReplaceArray, PhysicalCopyMustBeMadeBeforeItIsRead) {
  expectRefusedAt(kCopy + "m = replace_array(m, 1, A, Ap)\ncodegen(m, mc)\n", kSizes, 9,
                  "nest 1 of codegen reads the copy 'Ap' before nest 2 of codegen computes it");
}

TEST(ReplaceArray, FusingTheCopyWithItsConsumerIsDependenceChecked) {
  // C[i][j] reads Ap[k][i] for every k: row k of the copy comes from later
  // iterations of a fused outer loop.
  expectRefusedAt(kCopy + "m = replace_array(m, 1, A, Ap)\nf = fuse_outer(mc, m, 1)\n", kSizes, 10, "would reverse");
  // Replacing inside a nest that already computes the copy is refused outright.
  std::string fusedFirst = "A = tensor([N, N])\nB = tensor([N, N])\nAp = transpose(A, [[1, 2]])\n"
                           "B = entrywise_add(A, A)\nmc = build(Ap)\nm = build(B)\nf = fuse_outer(mc, m, 2)\n"
                           "f = replace_array(f, 1, A, Ap)\n";
  expectRefusedAt(fusedFirst, kSizes, 8, "this nest computes the copy 'Ap' itself");
}

TEST(ReplaceArray, PhysicalCopyCannotReplaceWrites) {
  std::string p = "A = tensor([N, N])\nB = tensor([N, N])\nAp = transpose(A, [[1, 2]])\nA = entrywise_add(B, B)\n"
                  "mc = build(Ap)\nm = build(A)\nm = replace_array(m, 1, A, Ap)\n";
  expectRefusedAt(p, kSizes, 7, "can only replace reads");
}

TEST(ReplaceArray, OnlyTranspositionsOfTheTensorReplaceIt) {
  expectRefusedAt(kCopy + "m = replace_array(m, 1, B, Ap)\n", kSizes, 9, "'Ap' is not a transposition of 'B'");
  std::string sum = kCopy + "S = ventrywise_add(A, A)\nm = replace_array(m, 1, A, S)\n";
  expectRefusedAt(sum, kSizes, 10, "'S' is not a transposition of 'A'");
  expectRefusedAt(kCopy + "m = replace_array(m, 2, C, Ap)\n", kSizes, 9, "not a transposition");
}

TEST(ReplaceArray, LoopMustAccessTheTensor) {
  std::string p = "A = tensor([N, N])\nB = tensor([N, N])\nC = tensor([N, N])\nAp = transpose(A, [[1, 2]])\n"
                  "C = entrywise_add(B, B)\nmc = build(Ap)\nm = build(C)\nm = replace_array(m, 1, A, Ap)\n";
  expectRefusedAt(p, kSizes, 8, "accesses 'A'");
}
