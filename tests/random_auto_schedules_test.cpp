// Random programs of every front end, scheduled by --auto (heuristics, the
// register-block pass included), compute what the program as written
// computes: compiled code on 1, 2 and 4 threads against the reference
// interpreter of the unscheduled program. TeML sizes are drawn so that
// blocks (2 vectors of columns, VLEN + 2 rows, 128-element tiles) rarely
// divide them. (The 2017 iterator language is TeML underneath.)
#include <random>

#include "autoschedule/auto_schedule_program.hpp"
#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "frontend/teil/teil.hpp"
#include "random_freeform_programs.hpp"
#include "random_teil_programs.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

// Each defines the nests it codegens; sizes N, M, K.
const std::vector<std::string> kPrograms = {
    // matrix product
    "A = tensor([N, K])\nB = tensor([K, M])\nC = contract(A, B, [2, 1])\nl = build(C)\ncodegen(l)\n",
    // batched product
    "A = tensor([K, N, K])\nB = tensor([K, K, M])\nC = tensor([K, N, M])\n"
    "t = vmul(A, B, [[b, i, k], [b, k, j]])\nC = add(C, t, [[b, i, j], ] -> [b, i, j])\nl = build(C)\ncodegen(l)\n",
    // three factors, two of them shared by the rows (mttkrp)
    "B = tensor([N, K, K])\nC = tensor([K, M])\nD = tensor([K, M])\nA = tensor([N, M])\n"
    "t = vcontract(B, D, [3, 1])\nu = vmul(t, C, [[i, k, j], [k, j]])\nA = add(A, u, [[i, j], ] -> [i, j])\n"
    "l = build(A)\ncodegen(l)\n",
    // sampled product: the sum times a factor of the output's element
    "S = tensor([N, M])\nA = tensor([N, K])\nB = tensor([K, M])\nt = vcontract(A, B, [2, 1])\n"
    "R = entrywise_mul(S, t)\nl = build(R)\ncodegen(l)\n",
    // a shifted window (the column operand at j + s)
    "I = tensor([N, M + K])\nW = tensor([K, K])\nO = tensor([N, M])\n"
    "t = vmul(I, W, [[i, j + s], [r, s]])\nO = add(O, t, [[i, j], ] -> [i, j])\nl = build(O)\ncodegen(l)\n",
    // producer and consumer nests
    "x = tensor([N, M + 2])\nt = tensor([N, M + 2])\nr = tensor([N, M])\nt = eq(x, [i, j] -> [i, j])\n"
    "w = vadd(t, t, [[i, j], [i, j + 2]])\nr = eq(w, -> [i, j])\nl1 = build(t)\nl2 = build(r)\ncodegen(l1, l2)\n",
    // two contractions per element e, the second reading its small matrix across the vector (interp in 2-D)
    "A = tensor([K, K])\nu = tensor([N, K, K])\nt = tensor([N, K, K])\nv = tensor([N, K, K])\n"
    "p = vmul(A, u, [[i, l], [e, l, j]])\nt = add(t, p, [[e, i, j], ] -> [e, i, j])\n"
    "q = vmul(A, t, [[j, l], [e, i, l]])\nv = add(v, q, [[e, i, j], ] -> [e, i, j])\n"
    "m1 = build(t)\nm2 = build(v)\ncodegen(m1, m2)\n",
};

// Runs `scheduled` on 1, 2 and 4 threads and compares every tensor it keeps
// in memory with the interpreter's run of `original` on the same inputs
// (intermediates that the automatic schedule made local are not results).
void expectSameOnOneTwoAndFourThreads(const ir::Program& scheduled, const ir::Program& original,
                                      const runtime::BufferMap& inputs) {
  auto want = runInterpreter(original, inputs);
  for (int threads : {1, 2, 4}) {
    auto got = runJit(scheduled, inputs, threads);
    for (auto& t : scheduled.tensors)
      EXPECT_LE(runtime::maxRelativeDifference(got.at(t.name), want.at(t.name)), 1e-9)
          << "tensor " << t.name << " on " << threads << " threads";
  }
}

}  // namespace

TEST(RandomAutoSchedules, FreeformProgramsAgreeWithTheInterpreterOnEveryThreadCount) {
  std::mt19937 rng(2029);
  for (int n = 0; n < randomSequenceCount(12); ++n) {
    std::string source = randomFreeformProgram(rng);
    SCOPED_TRACE(source);
    freeform::FreeformOptions asWritten = hostFreeformOptions();
    asWritten.autoSchedule = false;
    ir::Program original = pipeline::compileFreeform(source, asWritten).program;
    auto scheduled = pipeline::compileFreeform(source, hostFreeformOptions());
    ASSERT_TRUE(scheduled.autoScheduled);
    // Integers, so that a lost or doubled update shows (index tensors hold 0..7).
    expectSameOnOneTwoAndFourThreads(scheduled.program, original, integerInputs(original, n));
  }
}

TEST(RandomAutoSchedules, TeilProgramsAgreeWithTheInterpreterOnEveryThreadCount) {
  Generator gen(2030);
  for (int n = 0; n < randomSequenceCount(12); ++n) {
    std::string text = gen.program();
    SCOPED_TRACE(text);
    teil::TeilProgram p = teil::liftContractions(teil::rewriteTeil(teil::parseTeil(text, {})));
    ir::Program original = teil::buildTeil(p);
    ir::Program scheduled = autoschedule::autoScheduleProgram(original, driver::machineTarget(), nullptr, "").program;
    expectSameOnOneTwoAndFourThreads(scheduled, original, integerInputs(original, n));
  }
}

TEST(RandomAutoSchedules, TemlProgramsAgreeWithTheInterpreterOnEveryThreadCount) {
  std::mt19937 rng(2026);
  const int total = randomSequenceCount(24);
  int blocked = 0, fused = 0;
  for (int n = 0; n < total; ++n) {
    const std::string& source = kPrograms[n % kPrograms.size()];
    auto size = [&] { return static_cast<int64_t>(1 + rng() % 40); };
    std::map<std::string, int64_t> sizes = {{"N", size()}, {"M", size()}, {"K", 1 + size() % 9}};
    SCOPED_TRACE(source + "N=" + std::to_string(sizes["N"]) + " M=" + std::to_string(sizes["M"]) +
                 " K=" + std::to_string(sizes["K"]));
    ir::Program original = compile(source, sizes);
    pipeline::TemlOptions o;
    o.sizes = driver::withTargetSizes(sizes, driver::machineTarget());
    o.autoSchedule = true;
    o.target = driver::machineTarget();
    ir::Program scheduled = pipeline::compileTeml(source, o);
    blocked += cSource(scheduled).find("vacc") != std::string::npos;
    fused += scheduled.nests.size() < original.nests.size();
    // Results stay in memory: only tensors that a later nest reads may become local.
    for (const char* result : {"C", "A", "R", "O", "r", "v"})
      EXPECT_EQ(scheduled.find(result) != nullptr, original.find(result) != nullptr) << result;
    expectSameOnOneTwoAndFourThreads(scheduled, original, integerInputs(original, n));
  }
  EXPECT_GT(blocked, 0);  // some got register blocks
  EXPECT_GT(fused, 0);    // some nests were fused
}
