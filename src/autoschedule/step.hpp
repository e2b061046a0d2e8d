// One step of an automatic schedule: a schedule::Step (the primitive table
// in schedule/primitives.hpp runs it and spells it in each front end), and
// the TeML lines -v prints for a nest's steps.
#pragma once
#include <string>
#include <vector>

#include "schedule/primitives.hpp"

namespace teml::autoschedule {

using schedule::Step;
using schedule::applyStep;
using schedule::freeformText;
using schedule::temlText;

// The steps of the nest called `nest` as TeML: a header comment, then a
// line a step from `nest` on (`nest_1`, `nest_2`, ...), the last one named
// `result` when it is given, else followed by `codegen(...)` of the last.
std::vector<std::string> temlLines(const std::vector<Step>& steps, const std::string& nest,
                                   const std::string& result = "");

}  // namespace teml::autoschedule
