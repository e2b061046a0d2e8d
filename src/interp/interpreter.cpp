#include "interp/interpreter.hpp"

#include "interp/machine.hpp"

namespace teml::interp {

using detail::Interpreter;
using namespace ir;

void runNest(const StmtP& nest, const Program& program, runtime::BufferMap& buffers) {
  Interpreter in(program, buffers);
  in.exec(nest);
}

void run(const Program& program, runtime::BufferMap& buffers) {
  for (auto& n : program.nests) runNest(n, program, buffers);
}

}  // namespace teml::interp
