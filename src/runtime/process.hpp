// Running a program without a shell (the C compiler, nvcc) and reading
// what it wrote: shared by the CPU's JIT and the CUDA compiler driver.
#pragma once
#include <string>
#include <vector>

namespace teml::runtime {

std::string readFile(const std::string& path);
// Runs argv (argv[0] looked up on PATH) with its output in `logPath`;
// its exit status, 128 for a signal, -1 when it cannot be started.
int runCompiler(const std::vector<std::string>& argv, const std::string& logPath);

}  // namespace teml::runtime
