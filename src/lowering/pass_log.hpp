// The IR after each pass that changed it, with the time the pass took, as
// files of a directory (`teml ... --dump-passes DIR`), so that a wrong or
// slow compilation can be followed pass by pass (Halide's
// HL_DEBUG_CODEGEN, FreeTensor's per-pass logs): NN-nestK-PASS.ir, NN in
// the order the passes ran. A pass that left its input as it was writes
// nothing; `index.txt` lists every pass with its time and whether it
// changed the IR.
#pragma once
#include <fstream>
#include <functional>
#include <string>

#include "ir/program.hpp"

namespace teml::lowering {

class PassLog {
 public:
  // Throws UsageError when the directory cannot be made.
  explicit PassLog(const std::string& directory);

  // `pass` applied to `in` (nest `nest` of the program; -1: the whole
  // program), logged.
  ir::StmtP run(const std::string& name, int nest, const ir::StmtP& in,
                const std::function<ir::StmtP(const ir::StmtP&)>& pass);
  // A stage outside lowering that made `after` (the gradient, the schedule).
  void record(const std::string& name, const ir::Program& before, const ir::Program& after, double seconds);

 private:
  void write(const std::string& name, int nest, const std::string& text, double seconds, bool changed);

  std::string directory_;
  std::ofstream index_;
  int count_ = 0;
};

}  // namespace teml::lowering
