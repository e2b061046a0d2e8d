// The schedule stage of a free-form program: the user's steps (read by the
// front end from its @teml.schedule functions) replayed through
// schedule::Schedule, each refusal an error at its call; an entry with no
// schedule scheduled automatically when asked.
#pragma once
#include <string>

#include "frontend/freeform/freeform.hpp"

namespace teml::pipeline {

// `written` as the front end gave it, scheduled: its nest replaced, the
// analysis time and what the automatic schedule chose recorded.
freeform::FreeformProgram scheduleFreeform(freeform::FreeformProgram written, const freeform::FreeformOptions& options);

// The front end, then the schedule stage.
freeform::FreeformProgram compileFreeform(const std::string& source, const freeform::FreeformOptions& options);

}  // namespace teml::pipeline
