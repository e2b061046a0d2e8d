// FreeTensor's free-form language (INTERFACES.md, "Free-form programs";
// docs/freeform.md): a Python subset with loops, branches and indirect
// indexing, lowered to the loop IR; its in-file schedule runs through
// schedule::Schedule.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::freeform {

enum class Access { Input, Output, InOut };

struct FreeformOptions {
  std::string entry;                                          // "": the file's only @teml.transform
  std::map<std::string, int64_t> sizes;                       // --set
  std::map<std::string, std::vector<int64_t>> inputShapes;    // shapes of the --input files
  bool checkIndices = true;                                   // false: --unchecked-indices
  bool applySchedules = true;                                 // false: --no-schedule (the file's schedules ignored)
  bool autoSchedule = true;                                   // an entry with no schedule is scheduled automatically (--no-auto)
  target::Target target;                                      // what the automatic schedule is for
  bool checkLegality = true;
  std::string analysisCacheDir;
};

struct FreeformProgram {
  ir::Program program;                   // the entry's parameters are its tensors, one nest
  std::map<std::string, Access> access;  // of each parameter
  double analysisSeconds = 0;
  std::string entry;                     // the entry function's name
  bool autoScheduled = false;            // the automatic schedule ran (it may have taken no step)
  double autoSeconds = 0;                // the time it took (part of the front end's)
  std::vector<std::string> autoSteps;    // the automatic schedule's steps (free-form schedule calls)
};

// Throws UserError (file positions), UsageError (inconsistent input shapes).
FreeformProgram compileFreeform(const std::string& source, const FreeformOptions& options);

}  // namespace teml::freeform
