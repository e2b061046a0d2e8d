// The replay of a TeML schedule, shared by teml_schedule.cpp (values,
// codegen, the automatic schedule, the whole-program checks) and
// teml_steps.cpp (each transformation, translated to a schedule::Schedule
// primitive). Internal to the schedule stage.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "frontend/teml/replacements.hpp"
#include "pipeline/teml_schedule.hpp"
#include "schedule/primitives.hpp"
#include "schedule/schedule.hpp"

namespace teml::pipeline {

class TemlReplay {
 public:
  TemlReplay(ir::Program& program, const TemlOptions& options)
      : program_(program),
        options_(options),
        schedule_(program_, schedule::ScheduleOptions{options.checkLegality, options.analysisCacheDir, options.inputs}) {}

  void run(const std::vector<ir::UserStep>& steps);
  TemlStats stats() const;

 private:
  [[noreturn]] void fail(SourceLoc loc, const std::string& msg) { throw UserError(loc, msg); }

  // ---- teml_steps.cpp
  // A transformation through the primitive table (schedule/primitives.hpp).
  ir::StmtP transformation(const ir::UserStep& step);
  ir::StmtP transformationChecked(const ir::UserStep& step);  // ScheduleError for a refusal
  // The argument `a` for the parameter `param` of the primitive `f` on `nest`, into `step`.
  void argument(schedule::Param param, const ir::StepArg& a, const std::string& f, const ir::StmtP& nest,
                schedule::Step& step);
  ir::StmtP replaceArray(const ir::UserStep& step);
  ir::StmtP loopArg(const ir::StepArg& a, const std::string& what);
  void arity(const std::vector<ir::StepArg>& args, const std::string& f, size_t lo, size_t hi,
             const std::string& usage);
  int64_t intArg(const ir::StepArg& a, const std::string& what);
  // A loop level: a number, or the name of the iterator of a loop in the
  // perfect nest of the loop argument (which survives transformations that
  // renumber levels: the inner loop of a strip-mined pair keeps its name).
  int level(const ir::StepArg& a, const std::string& what);
  // The id of the loop at the level `a` names in `nest` (TeML names loops by level).
  std::string loopAt(const ir::StmtP& nest, const ir::StepArg& a, const std::string& what);
  // A dimension or level given by number (from 1).
  int dimension(const ir::StepArg& a, const std::string& what);
  // A declared tensor (named directly or by an assignment to it).
  std::string tensorArg(const ir::StepArg& a, const std::string& what);
  // A tensor as tensorArg, or the name of a cache's copy (t_cache), which no
  // statement defines.
  std::string localTensorArg(const ir::StepArg& a, const std::string& what);
  std::string threadSchedule(const ir::StepArg& a);  // a thread schedule or a GPU scope (parallelScopeProblem)

  // ---- teml_schedule.cpp
  void codegen(const ir::UserStep& step, bool last);
  // The automatic schedule of `nest`, its steps kept for -v as TeML, the
  // last value named `result` ("": handed to codegen; temlLines).
  ir::StmtP autoSchedule(const ir::StmtP& nest, const std::string& name, const std::string& result);
  // --auto on the program's last codegen list when no transformation touched
  // its nests: fused with local intermediates where they fuse
  // (autoschedule/auto_fuse.hpp), else each nest scheduled alone.
  std::vector<ir::StmtP> autoScheduleList(const std::vector<ir::StmtP>& nests, const std::vector<std::string>& names);
  // Between the replace_array steps that move a tensor to its virtual
  // transposition, one nest must not hold both: their accesses name the same
  // elements under two names, which the dependence analysis would not relate.
  void refuseHalfReplaced(SourceLoc loc, const std::string& what, const ir::StmtP& nest);
  // After the last step: replace_array's whole-program checks, and the
  // tensor list without what became local or was replaced.
  void finish();

  ir::Program& program_;
  const TemlOptions& options_;
  schedule::Schedule schedule_;  // every loop transformation goes through it
  TemlStats autoStats_;          // what --auto chose
  std::map<std::string, ir::StmtP> values_;  // the loop nests by name
  ir::StmtP currentNest_;
  SourceLoc callLoc_;                       // of the step being replayed                   // where levels given as iterator names are looked up
  std::vector<teml_lang::Replacement> replacements_;  // replace_array steps, checked over the whole program
};

}  // namespace teml::pipeline
