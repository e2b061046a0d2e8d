// One step of an automatic schedule, as data: which primitive, on which
// loops, with which numbers. The same table turns a step into the
// Schedule primitive it runs (so a stored choice replays) and into a line
// of each front end's schedule language (so a user can paste it).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"

namespace teml::autoschedule {

struct Step {
  // split, fission, reorder, parallelize, vectorize, unroll_and_jam, unroll, hoist_product, factor_sum,
  // separate_tail, cache, cache_zeroed, local, var_reorder, prefetch
  std::string primitive = {};
  std::vector<std::string> loops = {};  // ids of the loops it names
  // split: factor; fission: the statements kept in the first loop;
  // unroll_and_jam / unroll: factor; var_reorder: the order
  std::vector<int64_t> numbers = {};
  std::string word = {};  // parallelize: "dynamic" or ""; cache, local, var_reorder: the tensor; prefetch: the copy
  // The iterator of each loop in `loops` when the step was taken (TeML
  // names loops by iterator), and the loops it made.
  std::vector<std::string> iterators = {};
  std::vector<std::string> created = {};
};

// Runs `step` on `top` through `schedule` (checked like a user's step);
// throws schedule::ScheduleError when refused.
schedule::Schedule::Applied applyStep(schedule::Schedule& schedule, const ir::StmtP& top, const Step& step);

// The step in a free-form schedule: s.split("L1", 4).
std::string freeformText(const Step& step);
// The step in TeML: `out = stripmine(in, i2, 128)`.
std::string temlText(const Step& step, const std::string& in, const std::string& out);
// The steps of the nest called `nest` as TeML: a header comment, then a
// line a step from `nest` on (`nest_1`, `nest_2`, ...), the last one named
// `result` when it is given, else followed by `codegen(...)` of the last.
std::vector<std::string> temlLines(const std::vector<Step>& steps, const std::string& nest,
                                   const std::string& result = "");

}  // namespace teml::autoschedule
