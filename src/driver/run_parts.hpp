// Pieces of `teml run` and `teml bench` that the distributed run
// (distributed_run.cpp) shares with the one-process run (driver.cpp).
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "driver/driver.hpp"

namespace teml::driver {

int threadCount(const Options& o);
void printStages(const Compiled& c, std::ostream& err);
// Buffers with the program's initial values, then --input files, then --random values.
runtime::BufferMap prepareBuffers(const ir::Program& p, const Options& o);
std::string shapeText(const ir::TensorDecl& t);
// --verify: the largest relative difference of `compared` from the
// interpreter's results, printed; 0 within tolerance, else 3.
int compareWithInterpreter(const Compiled& c, const runtime::BufferMap& computed, const runtime::BufferMap& reference,
                           const std::vector<std::string>& compared, std::ostream& out);

// The distributed run of a program lowered for several ranks (under mpirun):
// run or bench. Returns the exit status; `runTime` the kernel's seconds.
int runDistributed(Compiled& c, const Options& o, const std::vector<std::string>& shown,
                   const std::vector<std::string>& compared, std::ostream& out, std::ostream& err, double* runTime);
int benchDistributed(Compiled& c, const Options& o, std::ostream& out, std::ostream& err);

}  // namespace teml::driver
