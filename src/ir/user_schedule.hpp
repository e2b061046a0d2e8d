// The user's schedule as data: what a front end hands to the schedule stage
// beside the program as written. Each step is a call of a primitive in the
// spelling of the language it was written in, its arguments with what the
// front end alone can resolve resolved (size parameters to numbers, names of
// tensors to the tensors). The schedule stage (src/pipeline/) replays the
// steps through schedule::Schedule, which checks each one.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "diag/diagnostics.hpp"
#include "ir/stmt.hpp"

namespace teml::ir {

struct StepArg {
  enum class Kind {
    Number,  // an integer (a literal or a size expression)
    Text,    // a string literal
    Name,    // an identifier the front end does not bind (an iterator, a word such as `dynamic`, a handle)
    Nest,    // a loop nest value, by its name
    Tensor,  // a declared tensor (text: its name)
    List,    // items
    Other,   // anything else (`what` says what it is, when it is a value)
  };
  Kind kind = Kind::Other;
  int64_t number = 0;
  std::string text;      // Text: the string; Name, Nest: the identifier; Tensor: the tensor's name
  std::string written;   // the identifier as written, for any argument that is one
  std::string what;      // for a bound identifier, what it names ("a tensor", "an assignment", ...)
  std::vector<StepArg> items;
  SourceLoc loc;
};

struct UserStep {
  std::string primitive;  // as spelled in the front end's language
  std::vector<StepArg> args;
  std::vector<std::pair<std::string, StepArg>> keywords;
  std::vector<std::string> results;  // the names bound to what the step returns
  SourceLoc loc;                     // the call
  SourceLoc primitiveLoc;            // the primitive's name
  SourceLoc resultsLoc;              // the names it is assigned to
  StmtP nest;                        // TeML's build: the nest as written
};

struct UserSchedule {
  std::vector<UserStep> steps;
  bool given = false;  // the user wrote a schedule (even an empty one)
  std::string target;  // @teml.schedule(f, target="cuda"): for that target only; "": for every target
};

}  // namespace teml::ir
