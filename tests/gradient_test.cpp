// Reverse-mode gradients (docs/autodiff.md): for programs of every front end,
// the gradient program computes what central finite differences of the
// forward program give in float64 (relative error below 1e-6), compiled on
// 1 and 4 threads; what cannot be differentiated yet is refused by name.
#include <cmath>

#include "autodiff/gradient.hpp"
#include "autoschedule/auto_schedule_program.hpp"
#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "frontend/teil/teil.hpp"
#include "ir/printer.hpp"
#include "random_gradient_programs.hpp"
#include "random_steps.hpp"
#include "random_teil_programs.hpp"
#include "runtime/npy.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

ir::Program asWritten(const std::string& source, std::map<std::string, int64_t> sizes = {}) {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.sizes = std::move(sizes);
  o.autoSchedule = false;
  return pipeline::compileFreeform(source, o).program;
}

// The weighted sum the gradient is of: sum over `of` of OUT * weights.
double objective(const ir::Program& forward, const runtime::BufferMap& inputs, const runtime::BufferMap& weights,
                 const std::vector<std::string>& of, const autodiff::GradientProgram& g) {
  runtime::BufferMap b;
  for (auto& t : forward.tensors) b.emplace(t.name, inputs.at(t.name));
  interp::run(forward, b);
  double sum = 0;
  for (auto& o : of) {
    const runtime::Buffer& w = weights.at(g.gradientOf.at(o));
    for (int64_t k = 0; k < w.size(); ++k) sum += b.at(o).get(k) * w.get(k);
  }
  return sum;
}

// The elements finite differences check: all of a small tensor, 40 spread
// over a large one (every element is still compared across --tapes settings).
std::vector<int64_t> sampled(int64_t size) {
  std::vector<int64_t> out;
  for (int64_t k = 0; k < size; k += size <= 64 ? 1 : size / 40 + (k % 3)) out.push_back(k);
  return out;
}

const autodiff::TapeMode kTapeModes[] = {autodiff::TapeMode::All, autodiff::TapeMode::None, autodiff::TapeMode::Auto};
const char* const kTapeModeNames[] = {"--tapes all", "--tapes none", "--tapes auto"};

// The oracle of every gradient test. Random inputs (`prepare` may set
// integer ones), random weights for the results; the gradients of `wrt`
// under every --tapes setting (all, none, auto), each from the gradient
// program as derived and as the auto-scheduler schedules it (loops on
// threads: scatter-adds into gradients get the lowering stage's reduction
// strategies), on 1 and 4 threads, agree with central finite differences of
// the forward program (float64, relative error below 1e-6) and with each
// other (below 1e-9: only the order of additions may differ).
// Returns whether a scheduled gradient program runs a loop on threads.
bool expectFiniteDifferences(const ir::Program& forward, const std::vector<std::string>& wrt,
                             const std::vector<std::string>& of,
                             const std::function<void(runtime::BufferMap&)>& prepare = {}) {
  bool parallel = false;
  runtime::BufferMap forwardInputs, weights;
  std::map<std::string, std::map<int64_t, double>> numeric;  // per wrt tensor, per element sampled
  std::map<std::string, std::vector<double>> first;
  for (int m = 0; m < 3; ++m) {
    autodiff::GradientProgram g;
    try {
      g = autodiff::gradient(forward, {wrt, of, kTapeModes[m]});
    } catch (const UserError& e) {
      ADD_FAILURE() << kTapeModeNames[m] << " refuses what another setting differentiates: " << e.what();
      continue;
    }
    EXPECT_EQ(ir::verify(g.program), "");
    runtime::BufferMap inputs = randomInputs(g.program, 11);
    for (auto& o : of) inputs.at(g.gradientOf.at(o)).fillRandom(97);
    if (prepare) prepare(inputs);
    if (m == 0) {
      weights = inputs;
      for (auto& t : forward.tensors) forwardInputs.emplace(t.name, inputs.at(t.name));
      for (auto& x : wrt)
        for (int64_t k : sampled(inputs.at(x).size())) {
          runtime::BufferMap up = forwardInputs, down = forwardInputs;
          double v = inputs.at(x).get(k), h = 1e-5 * std::max(1.0, std::abs(v));
          up.at(x).set(k, v + h);
          down.at(x).set(k, v - h);
          numeric[x][k] = (objective(forward, up, weights, of, g) - objective(forward, down, weights, of, g)) / (2 * h);
        }
    }
    for (auto& [name, b] : forwardInputs) inputs.at(name) = b;  // the same inputs under every setting
    for (auto& o : of) inputs.at(g.gradientOf.at(o)) = weights.at(g.gradientOf.at(o));
    ir::Program scheduled = autoschedule::autoScheduleProgram(g.program, driver::machineTarget(), nullptr, "").program;
    parallel |= hasParallelLoop(scheduled);
    for (auto [program, threads] : {std::pair{&g.program, 1}, {&g.program, 4}, {&scheduled, 1}, {&scheduled, 4}}) {
      runtime::BufferMap got = runJit(*program, inputs, threads);
      for (auto& x : wrt) {
        const runtime::Buffer& grad = got.at(g.gradientOf.at(x));
        double scale = std::max(grad.maxAbs(), 1e-3);
        if (first[x].empty())
          for (int64_t k = 0; k < grad.size(); ++k) first[x].push_back(grad.get(k));
        for (int64_t k = 0; k < grad.size(); ++k) {
          std::string where = x + ".grad[" + std::to_string(k) + "] = " + std::to_string(grad.get(k)) + " under " +
                              kTapeModeNames[m] + ", " + std::to_string(threads) + " threads" +
                              (program == &scheduled ? ", auto-scheduled" : "");
          auto fd = numeric[x].find(k);
          if (fd != numeric[x].end())
            EXPECT_LE(std::abs(grad.get(k) - fd->second) / scale, 1e-6) << where << "; finite differences " << fd->second;
          EXPECT_LE(std::abs(grad.get(k) - first[x][k]) / scale, 1e-9) << where << "; under --tapes all " << first[x][k];
        }
      }
    }
  }
  return parallel;
}

std::string refusal(const ir::Program& p, const std::vector<std::string>& wrt, const std::vector<std::string>& of) {
  try {
    autodiff::gradient(p, {wrt, of});
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

const char* kMixed = R"(import teml
@teml.transform
def f(x: teml.Var[(6, 3), "float64"], w: teml.Var[(3,), "float64"], idx: teml.Var[(6,), "int32"],
      y: teml.Var[(6,), "float64", "output"], z: teml.Var[(6,), "float64", "output"]):
    for i in range(6):
        t = teml.zeros((3,), "float64")
        for j in range(3):
            t[j] = teml.tanh(x[idx[i], j] * w[j]) + teml.sin(w[j]) * x[i, j]
        s = teml.zeros((), "float64")
        for j in range(3):
            if t[j] > 0:
                s[()] += t[j] * teml.sqrt(t[j] + 1)
            else:
                s[()] += teml.exp(t[j]) - max(t[j], w[j] * 0.5)
        y[i] = s / (1 + w[0] * w[0])
    z[0] = y[0]
    for i in range(1, 6):
        z[i] = z[i - 1] * teml.sigmoid(w[1]) + teml.log(1 + y[i] * y[i])
)";

}  // namespace

TEST(Gradient, TemlContractionMatchesFiniteDifferences) {
  auto p = compile("A = tensor([N, K])\nB = tensor([K, M])\nC = contract(A, B, [2, 1])\nl = build(C)\ncodegen(l)\n",
                   {{"N", 5}, {"K", 4}, {"M", 3}});
  EXPECT_TRUE(expectFiniteDifferences(p, {"A", "B"}, {"C"}));
}

TEST(Gradient, AnIntermediateOfTwoNestsCarriesTheGradientThrough) {
  auto p = compile("A = tensor([N, N])\nu = tensor([N, N])\nt = contract(A, u, [2, 1])\nv = entrywise_mul(t, u)\n"
                   "l = build(t)\nm = build(v)\ncodegen(l, m)\n",
                   {{"N", 4}});
  expectFiniteDifferences(p, {"A", "u"}, {"v"});
}

TEST(Gradient, AScheduledTemlProgramRunsItsStridedLoopsBackwards) {
  auto p = compile("A = tensor([N, K])\nB = tensor([K, M])\nC = contract(A, B, [2, 1])\nl = build(C)\n"
                   "l1 = parallelize(l, 1)\nl2 = unroll_and_jam(l1, 2, 2)\ncodegen(l2)\n",
                   {{"N", 5}, {"K", 7}, {"M", 3}});
  bool strided = false;
  ir::forEachStmt(p.nests[0], [&](const ir::StmtP& s) {
    strided = strided || (s->kind == ir::StmtKind::For && s->as<ir::For>().step == 2);
  });
  ASSERT_TRUE(strided) << "the schedule should leave a loop stepping by 2";
  expectFiniteDifferences(p, {"A", "B"}, {"C"});
}

// Random schedules of TeML programs (tests/random_steps.hpp: interchange,
// split, tile, unroll-and-jam, skew, merge, fission, parallelize,
// vectorize, ...; sizes no factor divides), differentiated with the
// transformations applied: the gradients agree with finite differences
// under every --tapes setting.
TEST(Gradient, RandomlyScheduledTemlProgramsAgreeWithFiniteDifferences) {
  std::mt19937 rng(2032);
  const char* sources[] = {"A = tensor([N, K])\nB = tensor([K, M])\nC = contract(A, B, [2, 1])\nl = build(C)\ncodegen(l)\n",
                           "A = tensor([N, K])\nB = tensor([N, K])\nC = entrywise_mul(A, B)\nl = build(C)\ncodegen(l)\n"};
  const int total = randomSequenceCount(6);
  int scheduled = 0;
  for (int n = 0; n < total; ++n) {
    ir::Program original = compile(sources[n % 2], {{"N", 5}, {"K", 7}, {"M", 3}});
    schedule::Schedule sch(original, schedule::ScheduleOptions{});
    ir::StmtP nest = original.nests[0];
    for (int k = 0, steps = 1 + static_cast<int>(rng() % 3); k < steps; ++k) try {
        nest = randomStepById(rng, sch, nest);
        ++scheduled;
      } catch (const schedule::ScheduleError&) {
      }
    ir::Program p = original;
    p.nests = {nest};
    SCOPED_TRACE(ir::toString(p, true));
    expectFiniteDifferences(p, {"A", "B"}, {"C"});
  }
  std::cout << total << " randomly scheduled TeML programs, " << scheduled << " steps applied\n";
}

TEST(Gradient, TeilContractionMatchesFiniteDifferences) {
  auto parsed = teil::parseTeil("alloc A : [l, m]\nalloc B : [m, n]\nalloc C : [l, n]\nC = red+ 2 (diag 2 3 (prod A B))\n",
                                {{"l", 3}, {"m", 4}, {"n", 2}});
  auto p = teil::buildTeil(teil::liftContractions(teil::rewriteTeil(parsed)));
  expectFiniteDifferences(p, {"A", "B"}, {"C"});
}

// Random well-typed TeIL programs (contractions, products, sums, diagonals
// and transpositions of random shapes, statements that may overwrite what
// an earlier one read): the gradients of every tensor's starting values,
// of the sum of every tensor a statement writes, agree with finite
// differences under every --tapes setting.
TEST(Gradient, RandomTeilProgramsAgreeWithFiniteDifferences) {
  Generator gen(2031);
  int accepted = 0;
  const int total = randomSequenceCount(8);
  for (int n = 0; n < total; ++n) {
    std::string text = gen.program();
    SCOPED_TRACE(text);
    auto p = teil::buildTeil(teil::liftContractions(teil::rewriteTeil(teil::parseTeil(text, {}))));
    std::vector<std::string> wrt, of;
    for (auto& t : p.tensors)
      if (!p.isTemporary(t.name) && ir::isFloat(t.dtype)) wrt.push_back(t.name);
    for (auto& nest : p.nests)
      for (auto& t : ir::tensorsWritten(nest))
        if (std::find(of.begin(), of.end(), t) == of.end() && !p.isTemporary(t)) of.push_back(t);
    if (wrt.empty() || of.empty()) continue;
    std::string why = refusal(p, wrt, of);
    if (!why.empty()) {
      EXPECT_EQ(why.rfind("gradient: ", 0), 0u) << why;
      continue;
    }
    ++accepted;
    expectFiniteDifferences(p, wrt, of);
  }
  std::cout << total << " random TeIL programs: " << accepted << " differentiated\n";
  EXPECT_GT(accepted, total / 2);
}

TEST(Gradient, FreeformBranchesIndirectIndicesLocalsAndRecurrences) {
  auto p = asWritten(kMixed);
  EXPECT_TRUE(expectFiniteDifferences(p, {"x", "w"}, {"y", "z"}, [](runtime::BufferMap& b) {
    for (int i = 0; i < 6; ++i) b.at("idx").setInt(i, (2 * i) % 5);  // repeated rows: their gradients add up
  }));
}

TEST(Gradient, OnlyTheRequestedResultsCount) {
  auto p = asWritten(kMixed);
  expectFiniteDifferences(p, {"w"}, {"y"}, [](runtime::BufferMap& b) {
    for (int i = 0; i < 6; ++i) b.at("idx").setInt(i, i % 3);
  });
}

TEST(Gradient, RunningMaximaAndSoftmaxTakeTheGradientWhereTheMaximumCameFrom) {
  auto p = asWritten(R"(import teml
from teml import libop
@teml.transform
def f(x: teml.Var[(3, 5), "float64"], y: teml.Var[(3, 5), "float64", "output"],
      z: teml.Var[(3, 5), "float64", "output"], s: teml.Var[(3,), "float64", "output"]):
    for i in range(3):
        y[i] = libop.softmax(x[i] * 3)
        top = teml.full((), -float("inf"), "float64")
        low = teml.full((), 0.5, "float64")
        for j in range(5):
            top[()] = max(top, x[i, j] * 2)
            low[()] = min(x[i, j], low)
            s[i] = s[i] + x[i, j] * x[i, j]
        for j in range(5):
            z[i, j] = teml.exp(x[i, j] - top) * low
)");
  expectFiniteDifferences(p, {"x"}, {"y", "z", "s"});
}

// Values overwritten after the backward pass's statements read them are
// kept in versions (autodiff/versions): each overwriting instance saves the
// element into a tape indexed by its loops' iterators, and the backward
// pass puts it back before the adjoint. A product recurrence (`y = y * x`,
// a `*=`), a program tensor rewritten while a loop reads it, a local
// overwritten inside its scope, and a tensor the next nest overwrites.
TEST(Gradient, OverwrittenValuesAreKeptInVersions) {
  const char* programs[] = {R"(import teml
@teml.transform
def f(x: teml.Var[(5,), "float64"], y: teml.Var[(), "float64", "output"]):
    y[()] = 1.0
    for i in range(5):
        y[()] = y * x[i]
)",
                            R"(import teml
@teml.transform
def f(x: teml.Var[(5,), "float64"], y: teml.Var[(2,), "float64", "output"], z: teml.Var[(5,), "float64", "output"]):
    y[0] = x[0]
    for i in range(5):
        z[i] = teml.sin(y[0]) * x[i]
        y[0] = y[0] * 0.5 + x[i] * x[i]
        y[1] *= x[i] + 1
)",
                            R"(import teml
@teml.transform
def f(a: teml.Var[(4, 3), "float64"], y: teml.Var[(4,), "float64", "output"], z: teml.Var[(4,), "float64", "output"]):
    for i in range(4):
        t = a[i, 0]
        y[i] = t * t
        for j in range(3):
            t = teml.exp(t * a[i, j])
        z[i] = t
)",
                            R"(import teml
@teml.transform
def f(a: teml.Var[(6,), "float64"], h: teml.Var[(6,), "float64", "output"], y: teml.Var[(6,), "float64", "output"]):
    for i in range(6):
        h[i] = teml.tanh(a[i])
    for i in range(6):
        y[i] = h[i] * h[(i + 1) % 6]
    for i in range(6):
        h[i] = h[i] * a[i]
)"};
  for (const char* source : programs) {
    auto p = asWritten(source);
    std::vector<std::string> wrt = {p.tensors[0].name};
    std::vector<std::string> of;
    for (size_t k = 1; k < p.tensors.size(); ++k) of.push_back(p.tensors[k].name);
    for (auto mode : kTapeModes) {
      auto g = autodiff::gradient(p, {wrt, of, mode});
      EXPECT_NE(ir::toString(g.program, false).find(".old1"), std::string::npos) << source;
    }
    expectFiniteDifferences(p, wrt, of);
  }
}

// A local whose recomputation runs again a statement that reads a value
// overwritten afterwards (here t = h[i] + 1, inside y's scope, before
// h[i] += 2) cannot be recomputed: y is stored like t, under every --tapes
// setting (recomputing y read the new h: w.grad[0] was 6.556, not 3.071).
TEST(Gradient, ALocalWhoseRecomputationReadsOverwrittenValuesIsStored) {
  auto p = asWritten(R"(import teml
@teml.transform
def smooth(w: teml.Var[(n,), "float64"], z: teml.Var[(n,), "float64", "output"]):
    h = teml.empty((n,), "float64")
    for i in range(n):
        h[i] = teml.exp(w[i])
    y = teml.empty((n,), "float64")
    for i in range(n):
        t = h[i] + 1.0
        y[i] = t * t
        h[i] += 2.0
    for i in range(n):
        z[i] = y[i] * h[i]
)", {{"n", 8}});
  for (auto mode : kTapeModes) {
    auto g = autodiff::gradient(p, {{"w"}, {"z"}, mode});
    EXPECT_TRUE(g.tapes.at("y").stored) << g.tapes.at("y").why;
    EXPECT_NE(g.tapes.at("y").why.find("recomputing would read values overwritten afterwards"), std::string::npos);
    ASSERT_EQ(g.versions.size(), 1u);
    EXPECT_NE(g.versions[0].find("undone in place (h[i_2] - 2.0"), std::string::npos) << g.versions[0];
    // linspace(-1, 1, 8), weights of ones: dz/dw = (2 (h + 1) (h + 2) + (h + 1)^2) h with h = exp(w).
    runtime::BufferMap inputs = randomInputs(g.program, 1);
    for (int k = 0; k < 8; ++k) inputs.at("w").set(k, -1 + 2.0 * k / 7);
    inputs.at(g.gradientOf.at("z")).fill(1);
    runtime::BufferMap got = runJit(g.program, inputs, 2);
    double h = std::exp(-1.0);
    EXPECT_NEAR(got.at(g.gradientOf.at("w")).get(0), (2 * (h + 1) * (h + 2) + (h + 1) * (h + 1)) * h, 1e-12);
  }
  expectFiniteDifferences(p, {"w"}, {"z"});
}

// An update that can be inverted (`+=` a value the backward pass computes
// again, `*=` a nonzero constant) is undone in place where the backward
// pass meets the element as the update left it (FreeTensor's
// invert_stmts): a recurrence costs no tape. -v says which.
TEST(Gradient, InvertibleUpdatesAreUndoneInPlaceWithoutATape) {
  const char* programs[] = {R"(import teml
@teml.transform
def f(x: teml.Var[(6,), "float64"], y: teml.Var[(6,), "float64", "output"]):
    s = teml.zeros((), "float64")
    for i in range(6):
        s[()] += x[i]
        y[i] = teml.sin(s) * s
)",
                            R"(import teml
@teml.transform
def f(x: teml.Var[(6,), "float64"], w: teml.Var[(), "float64", "output"], y: teml.Var[(6,), "float64", "output"]):
    w[()] = x[0]
    for i in range(6):
        y[i] = w * x[i]
        w[()] *= 0.5
)"};
  for (const char* source : programs) {
    auto p = asWritten(source);
    for (auto mode : kTapeModes) {
      auto g = autodiff::gradient(p, {{"x"}, {"y"}, mode});
      std::string printed = ir::toString(g.program, false);
      EXPECT_EQ(printed.find(".old"), std::string::npos) << printed;
      ASSERT_EQ(g.versions.size(), 1u);
      EXPECT_NE(g.versions[0].find("undone in place"), std::string::npos) << g.versions[0];
    }
    expectFiniteDifferences(p, {"x"}, {"y"});
  }
  // Not by a factor that may be zero: kept in a tape.
  auto product = asWritten(R"(import teml
@teml.transform
def f(x: teml.Var[(6,), "float64"], w: teml.Var[(), "float64", "output"], y: teml.Var[(6,), "float64", "output"]):
    w[()] = 1.0
    for i in range(6):
        y[i] = w * x[i]
        w[()] *= x[i]
)");
  auto g = autodiff::gradient(product, {{"x"}, {"y"}});
  ASSERT_EQ(g.versions.size(), 1u);
  EXPECT_NE(g.versions[0].find("kept in w.old1"), std::string::npos) << g.versions[0];
  expectFiniteDifferences(product, {"x"}, {"y"});
}

// The backward pass rewinds its own copy of a program tensor: the forward
// pass's results are what the program alone computes.
TEST(Gradient, RewindingLeavesTheForwardResults) {
  auto p = asWritten(R"(import teml
@teml.transform
def f(x: teml.Var[(5,), "float64"], y: teml.Var[(), "float64", "output"]):
    y[()] = 1.0
    for i in range(5):
        y[()] = y * x[i]
)");
  auto g = autodiff::gradient(p, {{"x"}, {"y"}});
  runtime::BufferMap inputs = randomInputs(g.program, 3);
  inputs.at("y").fill(0);
  runtime::BufferMap alone = inputs;
  interp::run(p, alone);
  runtime::BufferMap both = runJit(g.program, inputs, 2);
  EXPECT_EQ(both.at("y").get(0), alone.at("y").get(0));
}

// A running maximum whose values in between other statements read stays a
// store (not a max= reduction, whose adjoint compares against the final
// value): its overwritten values are kept in versions like any store's.
TEST(Gradient, ARunningMaximumReadBeforeItChangesKeepsItsVersions) {
  auto p = asWritten(R"(import teml
@teml.transform
def f(x: teml.Var[(4,), "float64"], y: teml.Var[(4,), "float64", "output"], m: teml.Var[(), "float64", "output"]):
    for i in range(4):
        y[i] = m * x[i]
        m[()] = max(m, x[i])
)");
  auto g = autodiff::gradient(p, {{"x"}, {"y"}});
  EXPECT_NE(ir::toString(g.program, false).find("m.old1"), std::string::npos) << ir::toString(g.program, false);
  expectFiniteDifferences(p, {"x"}, {"y"}, [](runtime::BufferMap& b) { b.at("m").set(0, 0.1); });
}

TEST(Gradient, VersionsThatCannotBeIndexedAreRefused) {
  auto dataBounds = asWritten(R"(import teml
@teml.transform
def f(ptr: teml.Var[(3,), "int32"], x: teml.Var[(8,), "float64"], y: teml.Var[(2,), "float64", "output"]):
    for i in range(2):
        y[i] = 1.0
        for p in range(ptr[i], ptr[i + 1]):
            y[i] = y[i] * x[p]
)");
  EXPECT_NE(refusal(dataBounds, {"x"}, {"y"}).find("the iterations of the loop 'p' write the same elements"), std::string::npos)
      << refusal(dataBounds, {"x"}, {"y"});
}

// Inside a loop whose trip count data decide (a CSR row), an overwritten
// value's versions are kept by the element written (FreeTensor's GAT: the
// softmax over a node's edges overwrites edge[k] in place), and a run-time
// check stops the run where two instances write one element.
const char* kInPlaceCsrSoftmax = R"(import teml
@teml.transform
def f(ptr: teml.Var[(5,), "int32"], idx: teml.Var[(10,), "int32"], a: teml.Var[(4,), "float64"],
      y: teml.Var[(4,), "float64", "output"]):
    edge = teml.empty((10,), "float64")
    for i in range(4):
        top = teml.empty((), "float64")
        top[()] = -float("inf")
        for k in range(ptr[i], ptr[i + 1]):
            e = a[idx[k]] * a[i]
            edge[k] = e if e >= 0 else 0.1 * e
            top[()] = max(top[()], edge[k])
        total = teml.empty((), "float64")
        total[()] = 0
        for k in range(ptr[i], ptr[i + 1]):
            edge[k] = teml.exp(edge[k] - top[()])
            total[()] += edge[k]
        y[i] = 0
        for k in range(ptr[i], ptr[i + 1]):
            y[i] += a[idx[k]] * edge[k]
        if ptr[i] < ptr[i + 1]:
            y[i] /= total[()]
)";

void csrRows(runtime::BufferMap& b) {
  const int ptr[] = {0, 3, 3, 7, 10}, idx[] = {1, 2, 3, 0, 0, 2, 3, 1, 1, 0};  // an empty row, repeated neighbours
  for (int k = 0; k < 5; ++k) b.at("ptr").setInt(k, ptr[k]);
  for (int k = 0; k < 10; ++k) b.at("idx").setInt(k, idx[k]);
}

TEST(Gradient, VersionsInsideDataBoundedLoopsAreKeptByElement) {
  auto p = asWritten(kInPlaceCsrSoftmax);
  auto g = autodiff::gradient(p, {{"a"}, {"y"}});
  std::string printed = ir::toString(g.program, false);
  EXPECT_NE(printed.find("edge.old1[k"), std::string::npos) << printed;
  EXPECT_NE(printed.find("edge.once1"), std::string::npos) << printed;
  expectFiniteDifferences(p, {"a"}, {"y"}, csrRows);
}

TEST(Gradient, TwoWritesOfOneElementVersionedByElementStopTheRun) {
  std::string source = kInPlaceCsrSoftmax;
  source.replace(source.find("edge[k] = teml.exp"), 7, "edge[idx[k]]");  // rows share elements now
  source.replace(source.find("teml.exp(edge[k]"), 16, "teml.exp(edge[idx[k]]");
  auto p = asWritten(source);
  auto g = autodiff::gradient(p, {{"a"}, {"y"}});
  runtime::BufferMap inputs = randomInputs(g.program, 3);
  csrRows(inputs);
  try {
    runJit(g.program, inputs, 1);
    ADD_FAILURE() << "the run should stop";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("of 'edge' is written twice by this statement inside the loop"), std::string::npos) << e.what();
  }
}

TEST(Gradient, NamesThatAreNotFloatTensorsOfTheProgramAreRefused) {
  auto p = asWritten(kMixed);
  EXPECT_NE(refusal(p, {"idx"}, {"y"}).find("'idx' holds int32 values, which have no gradient"), std::string::npos);
  EXPECT_NE(refusal(p, {"q"}, {"y"}).find("--wrt: the program has no tensor 'q'"), std::string::npos);
  EXPECT_NE(refusal(p, {"x"}, {"nope"}).find("--of: the program has no tensor 'nope'"), std::string::npos);
}

TEST(Gradient, TheGradCommandWritesEachRequestedGradient) {
  const std::string mm = "A = tensor([N, K])\nB = tensor([K, M])\nC = contract(A, B, [2, 1])\nl = build(C)\ncodegen(l)\n";
  std::string a = cacheDir() + "-grad-A.npy", bgrad = cacheDir() + "-grad-B.npy";
  auto r = runTeml("grad - --set N=3 --set K=4 --set M=2 --wrt A,B --of C --random 1 --verify --output A=" + a +
                       " --output B.grad=" + bgrad,
                   mm);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("(ok)"), std::string::npos) << r.out;
  // With weights of ones, B.grad[k][j] is the sum of A's column k.
  runtime::Buffer A(ir::DType::F64, {3, 4}), B(ir::DType::F64, {4, 2});
  runtime::loadNpyInto(a, "A", A);
  runtime::loadNpyInto(bgrad, "B.grad", B);
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 2; ++j)
      EXPECT_NEAR(B.get(k * 2 + j), A.get(k) + A.get(4 + k) + A.get(8 + k), 1e-12);
  auto shown = runTeml("grad - --set N=3 --set K=4 --set M=2 --wrt A --of C --random 1", mm);
  EXPECT_NE(shown.out.find("A.grad: double[3, 4]"), std::string::npos) << shown.out;
  EXPECT_EQ(runTeml("grad - --set N=3 --set K=4 --set M=2 --wrt Q --of C", mm).status, 1);
  EXPECT_EQ(runTeml("grad - --set N=3 --set K=4 --set M=2 --wrt A", mm).status, 2);
  // emit with --wrt prints the program grad runs.
  auto emitted = runTeml("emit - --set N=3 --set K=4 --set M=2 --wrt A --of C --emit ir", mm);
  EXPECT_EQ(emitted.status, 0) << emitted.out;
  EXPECT_NE(emitted.out.find("A.grad"), std::string::npos) << emitted.out;
}

// FreeTensor's Figure 15: t is cheap to compute again (one multiplication),
// so `auto` recomputes it in the backward pass; `all` stores its n versions.
const char* kFigure15 = R"(import teml
@teml.transform
def f(a: teml.Var[(8,), "float64"], b: teml.Var[(8,), "float64"], c: teml.Var[(8,), "float64"],
      d: teml.Var[(8,), "float64"], y: teml.Var[(8,), "float64", "output"], z: teml.Var[(8,), "float64", "output"]):
    for i in range(8):
        t = a[i] * b[i]
        y[i] = t * c[i]
        z[i] = t * d[i]
)";

TEST(Gradient, Figure15RecomputesTUnderAutoAndStoresItUnderAll) {
  auto p = asWritten(kFigure15);
  auto choiceOf = [&](autodiff::TapeMode mode) {
    auto g = autodiff::gradient(p, {{"a", "b", "c", "d"}, {"y", "z"}, mode});
    EXPECT_EQ(g.tapes.size(), 1u);
    return g.tapes.begin()->second;
  };
  EXPECT_FALSE(choiceOf(autodiff::TapeMode::Auto).stored);
  EXPECT_FALSE(choiceOf(autodiff::TapeMode::None).stored);
  auto all = choiceOf(autodiff::TapeMode::All);
  EXPECT_TRUE(all.stored);
  EXPECT_NE(all.why.find("8 versions"), std::string::npos) << all.why;
  expectFiniteDifferences(p, {"a", "b", "c", "d"}, {"y", "z"});
  std::string file = cacheDir() + "-figure15.py";
  std::ofstream(file) << kFigure15;
  auto shown = runTeml("grad " + file + " --wrt a,b --of y,z --random 1 --tapes all --verify -v");
  EXPECT_EQ(shown.status, 0) << shown.out;
  EXPECT_NE(shown.out.find(": stored in "), std::string::npos) << shown.out;
  auto recomputed = runTeml("grad " + file + " --wrt a,b --of y,z --random 1 -v");
  EXPECT_NE(recomputed.out.find("t: recomputed (2 operations for 1 element; a tape of 8 versions"), std::string::npos) << recomputed.out;
}

TEST(Gradient, AutoStoresALocalThatIsCostlyToRecompute) {
  auto p = asWritten(R"(import teml
@teml.transform
def f(a: teml.Var[(4, 16), "float64"], y: teml.Var[(4,), "float64", "output"]):
    for i in range(4):
        t = teml.zeros((), "float64")
        for k in range(16):
            t[()] += teml.exp(a[i, k]) * a[i, k]
        y[i] = t * t
)");
  auto g = autodiff::gradient(p, {{"a"}, {"y"}, autodiff::TapeMode::Auto});
  ASSERT_EQ(g.tapes.size(), 1u);
  EXPECT_TRUE(g.tapes.begin()->second.stored) << g.tapes.begin()->second.why;
  expectFiniteDifferences(p, {"a"}, {"y"});
}

// Free-form locals nest: each local's scope holds the next local's. Each
// scope of the backward pass recomputes its own local and nothing else, so
// a chain of n locals is recomputed in n statements, not n(n+1)/2.
TEST(Gradient, EachLocalOfAChainIsRecomputedOnce) {
  std::string body;
  for (int k = 0; k < 10; ++k)
    body += "        t" + std::to_string(k) + " = " + (k ? "t" + std::to_string(k - 1) : std::string("a[i]")) + " * a[i] + 1\n";
  auto p = asWritten("import teml\n@teml.transform\n"
                     "def f(a: teml.Var[(5,), \"float64\"], y: teml.Var[(5,), \"float64\", \"output\"]):\n"
                     "    for i in range(5):\n" + body + "        y[i] = t9 * t9\n");
  auto g = autodiff::gradient(p, {{"a"}, {"y"}, autodiff::TapeMode::None});
  int writes = 0;
  for (auto& nest : g.program.nests)
    ir::forEachStmt(nest, [&](const ir::StmtP& s) {
      if (s->kind != ir::StmtKind::Store) return;
      const std::string& t = s->as<ir::Store>().tensor;
      writes += t[0] == 't' && t.find('.') == std::string::npos;  // not t0.grad
    });
  EXPECT_EQ(writes, 20) << "each local written once forward, once recomputed";
  expectFiniteDifferences(p, {"a"}, {"y"});
}

int countUnary(const ir::Program& p, ir::UnaryOp op) {
  int n = 0;
  for (auto& nest : p.nests)
    ir::forEachExprIn(nest, [&](const ir::ExprP& e) {
      n += e->kind == ir::ExprKind::Unary && e->as<ir::Unary>().op == op;
    });
  return n;
}

// The adjoint of a subexpression above several elements with a gradient is
// computed once into a scalar: sigmoid's derivative, s * (1 - s), appears
// once in the backward pass, not once per operand below it.
TEST(Gradient, ASharedAdjointIsComputedOnce) {
  auto p = asWritten(R"(import teml
@teml.transform
def f(a: teml.Var[(5,), "float64"], b: teml.Var[(5,), "float64"], c: teml.Var[(5,), "float64"],
      y: teml.Var[(5,), "float64", "output"]):
    for i in range(5):
        y[i] = teml.sigmoid(a[i] * b[i] + c[i]) * 2.0
)");
  auto g = autodiff::gradient(p, {{"a", "b", "c"}, {"y"}});
  EXPECT_EQ(countUnary(g.program, ir::UnaryOp::Sigmoid), 3) << "the forward's and the two of its derivative\n"
                                                            << ir::toString(g.program, true);
  expectFiniteDifferences(p, {"a", "b", "c"}, {"y"});
}

// y[i] = exp(u) leaves exp(u) in y[i]: where the backward pass meets y[i]
// as the store left it (isl: every later write of it is put back first),
// u's partial reads y[i] instead of computing exp(u) again. Not where a
// later write that is not put back changed it.
TEST(Gradient, APartialReadsTheForwardResultWhereItIsUnchanged) {
  auto kept = asWritten(R"(import teml
@teml.transform
def f(a: teml.Var[(5,), "float64"], b: teml.Var[(5,), "float64"], y: teml.Var[(5,), "float64", "output"],
      z: teml.Var[(5,), "float64", "output"]):
    for i in range(5):
        y[i] = teml.exp(a[i] * b[i])
        z[i] = teml.sigmoid(y[i] - b[i])
        y[i] = y[i] * 0.5
)");
  auto g = autodiff::gradient(kept, {{"a", "b"}, {"y", "z"}});
  EXPECT_EQ(countUnary(g.program, ir::UnaryOp::Exp), 1) << ir::toString(g.program, true);
  EXPECT_EQ(countUnary(g.program, ir::UnaryOp::Sigmoid), 1) << ir::toString(g.program, true);
  expectFiniteDifferences(kept, {"a", "b"}, {"y", "z"});
  auto changed = asWritten(R"(import teml
@teml.transform
def f(a: teml.Var[(5,), "float64"], y: teml.Var[(5,), "float64", "output"]):
    for i in range(5):
        y[i] = teml.exp(a[i])
        y[i] = a[i] * 2.0
)");
  EXPECT_EQ(countUnary(autodiff::gradient(changed, {{"a"}, {"y"}}).program, ir::UnaryOp::Exp), 2);
  expectFiniteDifferences(changed, {"a"}, {"y"});
}

// A tensor defined outside every loop has one version: a stored one lives
// in its tape in both passes (no copies). The forward pass starts it at
// zero itself, so running the program again on the same tensors, tapes
// holding the last run's values, gives the same gradients.
TEST(Gradient, AOneVersionTapeIsTheTensorItselfAndStartsAtZeroEachRun) {
  auto p = asWritten(R"(import teml
@teml.transform
def f(a: teml.Var[(6, 4), "float64"], w: teml.Var[(4, 4), "float64"], y: teml.Var[(6,), "float64", "output"]):
    h = teml.zeros((6, 4), "float64")
    for i in range(6):
        for c in range(4):
            for k in range(4):
                h[i, c] += a[i, k] * w[k, c]
    for i in range(6):
        for c in range(4):
            y[i] += teml.exp(h[i, c]) * h[i, c]
)");
  auto g = autodiff::gradient(p, {{"a", "w"}, {"y"}, autodiff::TapeMode::All});
  ASSERT_TRUE(g.tapes.at("h").inPlace()) << g.tapes.at("h").why;
  std::string printed = ir::toString(g.program, false);
  EXPECT_EQ(printed.find("var h "), std::string::npos) << "h lives in its tape\n" << printed;
  runtime::BufferMap inputs = randomInputs(g.program, 5);
  inputs.at(g.gradientOf.at("y")).fill(1);
  auto zeroGradients = [&](runtime::BufferMap& b) {
    for (auto x : {"a", "w"}) b.at(g.gradientOf.at(x)).fill(0);
    b.at(g.gradientOf.at("y")).fill(1);
    b.at("y").fill(0);
  };
  zeroGradients(inputs);
  runtime::BufferMap first = runJit(g.program, inputs, 2);
  runtime::BufferMap again = first;
  zeroGradients(again);
  again = runJit(g.program, again, 2);
  for (auto x : {"a", "w"})
    EXPECT_EQ(runtime::maxRelativeDifference(first.at(g.gradientOf.at(x)), again.at(g.gradientOf.at(x))), 0) << x;
  expectFiniteDifferences(p, {"a", "w"}, {"y"});
}

// A window over tokens, per head: the backward pass adds into k.grad at
// tokens other iterations of the token loop also reach, but never across
// heads. The scheduled gradient runs heads on threads, with no atomic
// update and no private copy (4 heads on 2 threads would otherwise be
// passed over for the token loop).
TEST(Gradient, ScatterAddsGoOnTheLoopWhoseIterationsShareNothing) {
  auto p = asWritten(R"(import teml
@teml.transform
def f(q: teml.Var[(4, 16, 2), "float64"], k: teml.Var[(4, 16, 2), "float64"], y: teml.Var[(4, 16), "float64", "output"]):
    for h in range(4):
        for j in range(16):
            for t in range(3):
                for p in range(2):
                    y[h, j] += q[h, j, p] * k[h, (j + t * (h + 1)) % 16, p]
)");
  auto g = autodiff::gradient(p, {{"q", "k"}, {"y"}, autodiff::TapeMode::Auto});
  ir::Program scheduled = autoschedule::autoScheduleProgram(g.program, driver::machineTarget(2), nullptr, "").program;
  auto decisions = lowering::decisions(lowering::lower(scheduled, driver::machineTarget(2)));
  for (auto& d : decisions) EXPECT_EQ(d.find("reduction into 'k.grad'"), std::string::npos) << d;
  EXPECT_TRUE(expectFiniteDifferences(p, {"q", "k"}, {"y"}));
}

// Random free-form programs (tests/random_gradient_programs.hpp: branches
// on data, gathers and scatters through index tensors, CSR loops, guarded
// windows, local tensors, helper functions, dependences carried along i,
// integer results, values overwritten after they are read by =, +=, *= and
// a running max, locals written in branches inside helpers, in-place
// updates inside CSR rows, a large local): y's gradient with respect to x
// agrees with central finite differences under every --tapes setting (as
// derived and auto-scheduled, 1 and 4 threads); a program whose
// overwritten values cannot be kept is refused with a message, never
// differentiated wrongly. Sizes alternate between N = 8 and N = 70, M = 9:
// x.grad then takes 38 KiB (over the 32 KiB of a private accumulator on the
// stack), rows of 70 leave remainders for vectors of 4 and 8, and the large
// local's tape takes 1.2 MiB (over the 1 MiB where the tape cost model
// counts memory traffic instead of cache).
TEST(Gradient, RandomFreeformProgramsAgreeWithFiniteDifferences) {
  const char* seed = std::getenv("TEML_RANDOM_SEED");
  std::mt19937 rng(seed ? static_cast<unsigned>(std::atoi(seed)) : 2029u);
  const int total = randomSequenceCount(16);
  int accepted = 0, refused = 0;
  for (int k = 0; k < total; ++k) {
    const int n = k % 2 ? 70 : 8, m = k % 2 ? 9 : 5;
    auto indices = [n](runtime::BufferMap& b) {
      for (int e = 0; e < n; ++e) b.at("idx").setInt(e, (3 * e + 1) % n % (n - 2));  // repeats: gradients add up
      for (int e = 0; e <= n; ++e) b.at("ptr").setInt(e, e / 2 * 2);                  // rows of 0 or 2 entries
    };
    std::string source = randomGradientProgram(rng, n, m);
    SCOPED_TRACE(source);
    ir::Program p = asWritten(source);
    std::string why = refusal(p, {"x"}, {"y"});
    if (!why.empty()) {
      EXPECT_EQ(why.rfind("gradient: ", 0), 0u) << why;
      std::cout << "refused: " << why << "\n";
      ++refused;
      continue;
    }
    ++accepted;
    expectFiniteDifferences(p, {"x"}, {"y"}, indices);
  }
  std::cout << total << " random free-form programs: " << accepted << " differentiated, " << refused << " refused\n";
  EXPECT_GT(accepted, total / 2);
}

// The loop's values of s are overwritten (s = x[5]) before anything reads
// them, so their adjoint is zero; their partials are infinite (the values
// overflowed), and a zero adjoint's contributions are zero, not 0 * inf =
// NaN (autodiff/backward.cpp, ofNonzero; fuzz seed 10232).
TEST(Gradient, AZeroAdjointContributesNothingWhereTheForwardValuesOverflowed) {
  auto p = asWritten(R"(import teml
@teml.transform
def f(x: teml.Var[(6,), "float64"], s: teml.Var[(), "float64", "output"]):
    s[()] = 1.0
    for i in range(6):
        for k in range(60):
            s[()] = s * x[i]
    s[()] = x[5]
)");
  expectFiniteDifferences(p, {"x"}, {"s"});
  auto g = autodiff::gradient(p, {{"x"}, {"s"}});
  runtime::BufferMap inputs = randomInputs(g.program, 5);
  inputs.at("x").fill(10);  // 10^360: the loop's values overflow
  inputs.at(g.gradientOf.at("s")).fill(2);
  runtime::BufferMap got = runJit(g.program, inputs, 1);
  for (int64_t k = 0; k < 6; ++k) EXPECT_EQ(got.at(g.gradientOf.at("x")).get(k), k == 5 ? 2.0 : 0.0) << k;
}

// y reads s before the loop overwrites it: y's gradient flows through the
// values s had, and the loop's adjoints, zero, add nothing.
TEST(Gradient, AValueReadBeforeItIsOverwrittenKeepsItsGradient) {
  auto p = asWritten(R"(import teml
@teml.transform
def f(x: teml.Var[(4,), "float64"], y: teml.Var[(4,), "float64", "output"], s: teml.Var[(), "float64", "output"]):
    s[()] = x[0] + 1.0
    for i in range(4):
        y[i] = s * x[i]
    for i in range(4):
        s[()] = s * x[i] + 0.5
    s[()] = x[3]
)");
  expectFiniteDifferences(p, {"x"}, {"y", "s"});
}
