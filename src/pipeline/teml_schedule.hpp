// The schedule stage of a TeML program (and of the iterator language, which
// is TeML line for line): the user's steps, recorded by the front end,
// replayed through schedule::Schedule, each refusal an error at its call;
// with --auto, the nests no step touched scheduled automatically.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autoschedule/tuner.hpp"
#include "frontend/teml/evaluator.hpp"
#include "target/target.hpp"

namespace teml::pipeline {

struct TemlOptions {
  std::map<std::string, int64_t> sizes;  // size parameters bound with --set (the front end's)
  bool checkLegality = true;             // false: --no-check, the paper's unchecked transformations
  std::string analysisCacheDir;          // where dependence-analysis answers are kept ("" : nowhere)
  // --auto: each codegen'd nest that no transformation touched is scheduled
  // automatically for `target`, measuring candidates with `tuner` (may be null).
  bool autoSchedule = false;
  target::Target target;
  autoschedule::Tuner* tuner = nullptr;
  // Tensors given contents (--input) and read after the run (--output):
  // --auto keeps both in memory (never local to a fused loop); the others
  // start as zeros unless the program initializes them.
  std::set<std::string> inputs, outputs;
};

struct TemlStats {
  double analysisSeconds = 0;  // time spent in dependence analysis
  int checks = 0;
  double autoSeconds = 0;              // time spent choosing automatic schedules
  std::vector<std::string> autoSteps;  // the automatic schedules, in TeML, one line each
  int autoNests = 0;                   // nests scheduled automatically
};

// The program `written` describes, its nests those its codegen statements name.
ir::Program scheduleTeml(teml_lang::TemlProgram written, const TemlOptions& options, TemlStats* stats = nullptr);

// The front end, then the schedule stage.
ir::Program compileTeml(const std::string& source, const TemlOptions& options);

}  // namespace teml::pipeline
