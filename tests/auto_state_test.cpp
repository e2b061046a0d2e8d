// The automatic schedule's state is a value: fork() gives an independent
// copy to try a candidate on, queries find loops by predicate, and a refused
// step leaves the state as it was and says why, typed.
#include "autoschedule/auto_state.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const char* kMatrixProduct = "A = tensor([N, N])\nB = tensor([N, N])\nC = contract(A, B, [2, 1])\nl = build(C)\ncodegen(l)\n";
// a = a * b + 1 over i, j: every iteration depends on the one before.
const char* kRecurrence =
    "a = scalar()\nb = tensor([N, N])\none = scalar()\ninit(one, 1)\nt = vmul(a, b, [, [i, j]])\n"
    "u = vadd(t, one, [, ])\na = eq(u, -> [])\nl = build(a)\ncodegen(l)\n";

struct Fixture {
  explicit Fixture(const char* source) : program(compile(source, {{"N", 16}})), schedule(program, {}) {}
  ir::Program program;
  schedule::Schedule schedule;
  target::Target target = driver::machineTarget();
};

}  // namespace

TEST(AutoState, AForkTakesStepsWithoutChangingTheOriginal) {
  Fixture f(kMatrixProduct);
  autoschedule::AutoState state(f.schedule, f.program.nests[0], f.target);
  autoschedule::AutoState fork = state.fork();
  ASSERT_TRUE(fork.tryStep({"split", {"L1.2"}, {4}}));
  EXPECT_EQ(fork.steps.size(), 1u);
  EXPECT_EQ(fork.made(), std::vector<std::string>{"L1.2.o"});
  EXPECT_TRUE(state.steps.empty());
  EXPECT_EQ(state.body, f.program.nests[0]);
  EXPECT_EQ(state.loops([](const ir::For& l) { return l.var == "i2_o"; }).size(), 0u);
  EXPECT_EQ(fork.loops([](const ir::For& l) { return l.var == "i2_o"; }), std::vector<std::string>{"L1.2.o"});
}

TEST(AutoState, QueriesFindLoopsAndStatementsByPredicate) {
  Fixture f(kMatrixProduct);
  autoschedule::AutoState state(f.schedule, f.program.nests[0], f.target);
  EXPECT_EQ(state.loops([](const ir::For&) { return true; }), (std::vector<std::string>{"L1.1", "L1.2", "L1.3"}));
  auto sums = state.statements([](const ir::Stmt& s) { return s.kind == ir::StmtKind::Reduce; });
  ASSERT_EQ(sums.size(), 1u);
  EXPECT_EQ(sums[0]->as<ir::Reduce>().tensor, "C");
}

TEST(AutoState, RefusalsAreTypedAndChangeNothing) {
  Fixture f(kRecurrence);
  autoschedule::AutoState state(f.schedule, f.program.nests[0], f.target);
  EXPECT_FALSE(state.tryStep({"parallelize", {"L1.1"}}));
  ASSERT_TRUE(state.lastRefusal().has_value());
  EXPECT_EQ(state.lastRefusal()->kind, schedule::Refusal::Illegal);
  EXPECT_FALSE(state.tryStep({"unroll_and_jam", {"L1.2"}, {2}}));  // nothing inside j to jam into
  EXPECT_EQ(state.lastRefusal()->kind, schedule::Refusal::NotApplicable);
  EXPECT_FALSE(state.tryStep({"vectorize", {"no such loop"}}));
  EXPECT_EQ(state.lastRefusal()->kind, schedule::Refusal::NotApplicable);
  EXPECT_TRUE(state.steps.empty());
  EXPECT_EQ(state.body, f.program.nests[0]);
}

TEST(AutoState, ACheckedForkRefusesWhatAnUncheckedScheduleWouldTake) {
  // a[i + 3][j + 1] = a[i + 1][j + 2] + B[i][j]: the dependence (2, -1)
  // forbids running j outside i.
  ir::Program program = compile(
      "a = tensor([N + 3, N + 2])\nB = tensor([N, N])\nt = vadd(a, B, [[i + 1, j + 2], [i, j]])\n"
      "a = eq(t, -> [i + 3, j + 1])\nl = build(a)\ncodegen(l)\n",
      {{"N", 8}});
  schedule::Schedule unchecked(program, schedule::ScheduleOptions{false, ""});
  autoschedule::AutoState state(unchecked, program.nests[0], driver::machineTarget());
  EXPECT_FALSE(state.checks());
  autoschedule::AutoState checked = state.fork(true);
  EXPECT_TRUE(checked.checks());
  EXPECT_FALSE(checked.tryStep({"reorder", {"L1.2", "L1.1"}}));
  EXPECT_EQ(checked.lastRefusal()->kind, schedule::Refusal::Illegal);
  EXPECT_TRUE(state.tryStep({"reorder", {"L1.2", "L1.1"}}));  // --no-check takes it: the auto-scheduler must not
}
