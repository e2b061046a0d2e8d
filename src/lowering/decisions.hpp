// The lowering stage's decisions in words, read from a lowered program (the
// lines `teml -v` prints): how each parallel or vector loop keeps its
// reductions correct. Read from the IR the emitter prints, so -v says what
// the generated code does.
#pragma once
#include <string>
#include <vector>

#include "ir/program.hpp"

namespace teml::lowering {

// "parallel loop 'Lk': reduction into 'y' (line 9) by atomic updates",
// "vector loop 'Li': reduction into 's' (line 4) in a private accumulator 's_acc' (f64, register)"
std::vector<std::string> decisions(const ir::Program& lowered);

}  // namespace teml::lowering
