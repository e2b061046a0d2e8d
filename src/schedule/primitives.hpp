// The schedule primitives, one table: each primitive's name, its spelling in
// the free-form language (and Python, which writes free-form schedules) and
// in TeML (and the iterator language), its arguments, and the
// schedule::Schedule call that checks and applies it. Every front end's
// steps and the automatic schedule's run through `applyStep`; `-v` prints
// steps with `freeformText` and `temlText`. A new primitive is one entry.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"
#include "target/target.hpp"

namespace teml::schedule {

// One step as data: which primitive, on which loops, with which numbers.
struct Step {
  std::string primitive = {};           // a Primitive's name
  std::vector<std::string> loops = {};  // ids of the loops it names (Loop, Loops)
  std::vector<int64_t> numbers = {};    // Integer, Level, Depth, Dimension(s), in order
  std::string word = {};                // Tensor, Copy, ThreadSchedule ("", "static", "dynamic", "guided")
  std::string mem = {};                 // MemType ("gpu/shared", ...; "": none given)
  std::vector<ir::StmtP> nests = {};    // Nest: the other nests it combines
  int line = 0;                         // the step's line (names the copies cache and local make)
  // The iterator of each loop in `loops` when the step was taken (TeML
  // names loops by iterator), and the loops it made.
  std::vector<std::string> iterators = {};
  std::vector<std::string> created = {};
};

// What an argument after TeML's nest (or any free-form argument) is.
enum class Param {
  Loop,            // a loop: free-form, a label or handle; TeML, a level or an iterator -> loops
  Loops,           // a list of loops, outermost first -> loops
  Level,           // TeML: a level of the perfect nest, by number or iterator -> numbers
  Depth,           // TeML: a level by number, 0 included -> numbers
  Integer,         // -> numbers
  Dimension,       // a tensor's dimension, from 1 -> numbers
  Dimensions,      // a list of them -> numbers
  Tensor,          // a declared tensor -> word
  Copy,            // a tensor, or a copy cache made (t_cache) -> word
  ThreadSchedule,  // static, dynamic or guided -> word
  MemType,         // a memory type, "gpu/shared" ... -> mem
  Nest,            // TeML: another loop nest value -> nests
};

// What a free-form step returns (handles a schedule can name later).
enum class Returns {
  Created,        // the loops it made
  LoopAndInner,   // split: the outer loop it made, then the loop itself (now the inner one)
  FirstLoop,      // merge, fuse: the loop that stayed
};

struct Primitive {
  std::string name;
  std::string freeform;  // s.NAME(...); "" where free-form programs do not have it
  std::string teml;      // NAME(l, ...); "" where TeML does not have it
  std::vector<Param> params;
  size_t optional = 0;  // how many of the last params may be left out
  std::string freeformUsage, temlUsage;
  Returns returns = Returns::Created;
  // Checks and applies the step to `top` (the free-form body, the TeML nest).
  std::function<Schedule::Applied(Schedule&, const ir::StmtP& top, const Step&)> apply;
  size_t handles = 0;  // the loops a free-form step returns that Python's teml.Schedule hands back
  std::string keyword = {};  // split(L, nparts=n): the keyword argument that picks this row over the spelling's first
};

const std::vector<Primitive>& primitives();
// The primitive called `name`, spelled `spelling` in each language; null where none is.
const Primitive* primitiveNamed(const std::string& name);
const Primitive* freeformPrimitive(const std::string& spelling);
// The row a keyword argument picks (split(L, nparts=n)); null where none does.
const Primitive* freeformPrimitive(const std::string& spelling, const std::string& keyword);
const Primitive* temlPrimitive(const std::string& spelling);

// Runs `step` on `top` through `schedule` (checked like any step); throws
// ScheduleError when refused.
Schedule::Applied applyStep(Schedule& schedule, const ir::StmtP& top, const Step& step);

// The step in a free-form schedule: s.split("L1", 4).
std::string freeformText(const Step& step);
// What is wrong with `word` as parallelize's scope or thread schedule on a
// target of `kind` ("" when nothing; `word` "" when the argument is left
// out): the CPU takes static, dynamic, guided or openmp, CUDA a GPU scope.
std::string parallelScopeProblem(const std::string& word, target::Kind kind);
// The step in TeML: `out = stripmine(in, i2, 128)`.
std::string temlText(const Step& step, const std::string& in, const std::string& out);

}  // namespace teml::schedule
