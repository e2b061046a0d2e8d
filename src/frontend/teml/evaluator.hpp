// Evaluation of TeML meta-programs (the paper's valuation functions): the
// state maps identifiers to tensors, tensor expressions, assignments and loop
// nests; `codegen` statements collect the nests of the resulting program.
#pragma once
#include <map>
#include <set>
#include <string>

#include <vector>

#include "autoschedule/tuner.hpp"
#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::teml_lang {

struct TemlOptions {
  std::map<std::string, int64_t> sizes;  // size parameters bound with --set
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
  double autoSeconds = 0;             // time spent choosing automatic schedules
  std::vector<std::string> autoSteps;  // the automatic schedules, in TeML, one line each
  int autoNests = 0;                   // nests scheduled automatically
};

struct Script;

// Throws UserError (with the statement's position) for malformed programs.
ir::Program compileTeml(const std::string& source, const TemlOptions& options);
// The same in two steps, so that callers can time parsing and evaluation.
Script parseTeml(const std::string& source);
ir::Program evaluateTeml(const Script& script, const TemlOptions& options, TemlStats* stats = nullptr);

}  // namespace teml::teml_lang
