// Evaluation of TeML meta-programs (the paper's valuation functions): the
// state maps identifiers to tensors, tensor expressions, assignments and loop
// nests. Loop expressions (build and the transformations) and `codegen`
// statements are kept as the user's schedule, which the schedule stage
// replays (pipeline/teml_schedule.hpp).
#pragma once
#include <map>
#include <string>

#include "ir/program.hpp"
#include "ir/user_schedule.hpp"

namespace teml::teml_lang {

struct TemlOptions {
  std::map<std::string, int64_t> sizes;  // size parameters bound with --set
};

// The program as written: its tensors and their initial values (no nests: the
// schedule's build steps hold them), and the steps.
struct TemlProgram {
  ir::Program program;
  ir::UserSchedule schedule;
};

struct Script;

// Both throw UserError (with the statement's position) for malformed programs.
Script parseTeml(const std::string& source);
TemlProgram evaluateTeml(const Script& script, const TemlOptions& options);

}  // namespace teml::teml_lang
