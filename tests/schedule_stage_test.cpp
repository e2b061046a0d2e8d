// The pipeline's first two stages: a front end hands over the program as
// written and the user's schedule as data (ir::UserSchedule); the schedule
// stage (src/pipeline) replays the steps through the one table of
// primitives (schedule/primitives.hpp). Front ends include nothing of the
// schedule or the automatic schedule.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/freeform/freeform.hpp"
#include "frontend/teml/ast.hpp"
#include "frontend/teml/evaluator.hpp"
#include "ir/printer.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "pipeline/teml_schedule.hpp"
#include "schedule/primitives.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const char* kRowSums = R"(import teml
@teml.transform
def f(x: teml.Var[(10, 8), "float64"], y: teml.Var[(10,), "float64", "output"]):
    #! label: Lr
    for i in range(10):
        for j in range(8):
            y[i] += x[i, j]

@teml.schedule(f)
def s(s):
    outer, inner = s.split("Lr", 4)
    s.parallelize(outer, "dynamic")
)";

bool touched(const ir::StmtP& nest) {
  bool made = false;
  ir::forEachStmt(nest, [&](const ir::StmtP& s) { made = made || !s->made.primitive.empty(); });
  return made;
}

}  // namespace

TEST(ScheduleStage, TheFreeformFrontEndGivesTheProgramAsWrittenAndItsScheduleAsSteps) {
  freeform::FreeformProgram written = freeform::parseFreeform(kRowSums, hostFreeformOptions());
  ASSERT_EQ(written.program.nests.size(), 1u);
  EXPECT_FALSE(touched(written.program.nests[0])) << ir::toString(written.program);
  ASSERT_TRUE(written.schedule.given);
  ASSERT_EQ(written.schedule.steps.size(), 2u);
  const ir::UserStep& split = written.schedule.steps[0];
  EXPECT_EQ(split.primitive, "split");
  EXPECT_EQ(split.results, (std::vector<std::string>{"outer", "inner"}));
  ASSERT_EQ(split.args.size(), 2u);
  EXPECT_EQ(split.args[0].kind, ir::StepArg::Kind::Text);
  EXPECT_EQ(split.args[1].number, 4);
  const ir::UserStep& parallel = written.schedule.steps[1];
  EXPECT_EQ(parallel.args[0].kind, ir::StepArg::Kind::Name);  // a handle the split returned
  EXPECT_EQ(parallel.args[0].text, "outer");

  // The schedule stage replays them: the loop split, its outer half on threads.
  freeform::FreeformProgram scheduled = pipeline::scheduleFreeform(written, hostFreeformOptions());
  bool outerOnThreads = false;
  ir::forEachStmt(scheduled.program.nests.at(0), [&](const ir::StmtP& s) {
    if (s->kind == ir::StmtKind::For && s->id == "Lr.o")
      outerOnThreads = s->as<ir::For>().loopKind.threads() &&
                       s->as<ir::For>().loopKind.schedule == ir::ThreadSchedule::Dynamic;
  });
  EXPECT_TRUE(outerOnThreads) << ir::toString(scheduled.program);
  expectJitMatchesInterpreter(scheduled.program);
}

TEST(ScheduleStage, TheTemlFrontEndRecordsBuildsTransformationsAndCodegenAsSteps) {
  std::string source = R"(A = tensor([N, N])
B = tensor([N, N])
C = contract(A, B, [2, 1])
l = build(C)
s = stripmine(l, i1, 4)
codegen(s)
)";
  teml_lang::TemlProgram written = teml_lang::evaluateTeml(teml_lang::parseTeml(source), {{{"N", 10}}});
  EXPECT_TRUE(written.program.nests.empty());
  std::vector<std::string> primitives;
  for (auto& step : written.schedule.steps) primitives.push_back(step.primitive);
  EXPECT_EQ(primitives, (std::vector<std::string>{"build", "stripmine", "codegen"}));
  EXPECT_TRUE(written.schedule.steps[0].nest);                                  // the nest as written
  EXPECT_EQ(written.schedule.steps[1].args[1].kind, ir::StepArg::Kind::Name);   // the iterator i1, by name
  EXPECT_EQ(written.schedule.steps[1].args[2].number, 4);

  pipeline::TemlOptions o;
  o.target = driver::machineTarget();
  ir::Program p = pipeline::scheduleTeml(written, o);
  ASSERT_EQ(p.nests.size(), 1u);
  EXPECT_TRUE(touched(p.nests[0]));
  expectJitMatchesInterpreter(p);
}

TEST(ScheduleStage, AStepTheScheduleRefusesIsAnErrorAtItsCall) {
  std::string source = std::string(kRowSums) + "    s.vectorize(\"Lnone\")\n";
  Failure f = failureOf([&] { pipeline::compileFreeform(source, hostFreeformOptions()); });
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 13);
  EXPECT_NE(f.message.find("Lnone"), std::string::npos) << f.message;
}

TEST(ScheduleStage, EveryPrimitiveIsSpelledInALanguageAndTakesItsArgumentsFromTheTable) {
  std::set<std::string> names;
  for (auto& p : schedule::primitives()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_FALSE(p.freeform.empty() && p.teml.empty()) << p.name;
    EXPECT_LE(p.optional, p.params.size()) << p.name;
    if (!p.freeform.empty()) EXPECT_EQ(p.freeformUsage.rfind(p.freeform + "(", 0), 0u) << p.freeformUsage;
    if (!p.teml.empty()) EXPECT_EQ(p.temlUsage.rfind(p.teml + "(", 0), 0u) << p.temlUsage;
    EXPECT_TRUE(p.apply) << p.name;
  }
  // Each spelling names one primitive per language.
  for (auto& p : schedule::primitives()) {
    if (!p.freeform.empty()) EXPECT_EQ(schedule::freeformPrimitive(p.freeform, p.keyword)->name, p.name);
    if (!p.teml.empty()) EXPECT_EQ(schedule::temlPrimitive(p.teml)->name, p.name);
  }
}

TEST(ScheduleStage, NoFrontEndIncludesTheScheduleOrTheAutomaticSchedule) {
  namespace fs = std::filesystem;
  int files = 0;
  for (auto& e : fs::recursive_directory_iterator(fs::path(TEML_SOURCE_DIR) / "src" / "frontend")) {
    if (!e.is_regular_file()) continue;
    ++files;
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line)) {
      EXPECT_EQ(line.find("#include \"schedule/"), std::string::npos) << e.path() << ": " << line;
      EXPECT_EQ(line.find("#include \"autoschedule/"), std::string::npos) << e.path() << ": " << line;
    }
  }
  EXPECT_GT(files, 20);
}
