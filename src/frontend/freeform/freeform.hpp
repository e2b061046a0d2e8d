// FreeTensor's free-form language (INTERFACES.md, "Free-form programs";
// docs/freeform.md): a Python subset with loops, branches and indirect
// indexing, built as the loop IR; its in-file schedule read as data, which
// the schedule stage replays (pipeline/freeform_schedule.hpp).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "ir/user_schedule.hpp"
#include "target/target.hpp"

namespace teml::freeform {

enum class Access { Input, Output, InOut };

struct FreeformOptions {
  std::string entry;                                          // "": the file's only @teml.transform
  std::map<std::string, int64_t> sizes;                       // --set
  std::map<std::string, std::vector<int64_t>> inputShapes;    // shapes of the --input files
  bool checkIndices = true;                                   // false: --unchecked-indices
  bool commandLine = true;                                    // false: called from Python (messages in its words)
  bool applySchedules = true;                                 // false: --no-schedule (the file's schedules ignored)
  // Read by the schedule stage (pipeline/freeform_schedule.hpp), not the front end:
  bool autoSchedule = true;                                   // an entry with no schedule is scheduled automatically (--no-auto)
  target::Target target;                                      // what the automatic schedule is for
  bool checkLegality = true;
  std::string analysisCacheDir;
};

struct FreeformProgram {
  ir::Program program;                   // the entry's parameters are its tensors, one nest
  std::map<std::string, Access> access;  // of each parameter
  std::string entry;                     // the entry function's name
  std::map<std::string, int64_t> inputSizes;  // the sizes read from the inputs' shapes (not --set, not the module's)
  // What the entry returns (`return y`, `return y, z`, `return {"y": y}`):
  // "one", "tuple", "dict" or "" (nothing), and the output parameters it
  // returns, in order (the variables' names, or the dict's keys).
  std::string returnForm;
  std::vector<std::string> returned;
  ir::UserSchedule schedule;             // the entry's @teml.schedule functions for every target, as data
  std::vector<ir::UserSchedule> targetSchedules;  // those for one target (@teml.schedule(f, target="cuda"))
  // Filled by the schedule stage:
  double analysisSeconds = 0;
  bool autoScheduled = false;            // the automatic schedule ran (it may have taken no step)
  double autoSeconds = 0;                // the time it took (part of the front end's)
  std::vector<std::string> autoSteps;    // the automatic schedule's steps (free-form schedule calls)
  std::string scheduleNote;              // why the file's schedule was not applied to this target (-v)
};

// The program as written and its schedule as data. Throws UserError (file
// positions), UsageError (inconsistent input shapes).
FreeformProgram parseFreeform(const std::string& source, const FreeformOptions& options);

}  // namespace teml::freeform
