// The pieces of `teml run` and `teml bench` that the one-process run
// (driver.cpp) and the distributed run (distributed_run.cpp) share.
#include "driver/run_parts.hpp"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <set>
#include <thread>

#include "diag/diagnostics.hpp"
#include "lowering/decisions.hpp"
#include "runtime/npy.hpp"
#include "schedule/transforms.hpp"

namespace teml::driver {

int threadCount(const Options& o) {
  if (o.threads > 0) return o.threads;
  if (const char* env = std::getenv("OMP_NUM_THREADS"); env && std::atoi(env) > 0) return std::atoi(env);
  unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

void printStages(const Compiled& c, std::ostream& err) {
  for (auto& [name, secs] : c.stages)
    err << "teml: " << std::left << std::setw(16) << name << std::fixed << std::setprecision(2) << secs * 1e3
        << " ms\n";
  if (!c.scheduleNote.empty()) err << "teml: schedule        " << c.scheduleNote << "\n";
  if (!c.distributeNote.empty()) err << "teml: distribute      " << c.distributeNote << "\n";
  // The automatic schedule, as a schedule the user can paste into the program.
  if (c.entry.empty() && c.autoScheduled) {
    err << "teml: auto-schedule   in TeML (each nest by the name codegen gave it; TeIL's numbered):\n";
    for (auto& line : c.autoSteps) err << line << "\n";
  } else if (!c.entry.empty() && (!c.autoSteps.empty() || c.autoScheduled)) {
    err << "teml: auto-schedule   " << c.autoSteps.size() << " steps:\n";
    std::string forTarget = c.target.kind == target::Kind::Cpu ? "" : ", target=\"" + std::string(target::kindName(c.target.kind)) + "\"";
    err << "@teml.schedule(" << c.entry << forTarget << ")\ndef schedule(s):\n";
    for (auto& step : c.autoSteps) err << "    " << step << "\n";
    if (c.autoSteps.empty()) err << "    pass\n";
  }
  // The lowering stage's decisions, as the generated code carries them out.
  for (auto& line : lowering::decisions(c.lowered)) err << "teml: " << line << "\n";
}

namespace {
// Names a tensor on the command line that the program does not keep.
[[noreturn]] void unknownTensor(const ir::Program& p, const std::string& option, const std::string& t) {
  std::set<std::string> locals;
  for (auto& n : p.nests) {
    auto l = schedule::localTensors(n);
    locals.insert(l.begin(), l.end());
  }
  if (locals.count(t))
    throw UsageError(option + ": tensor '" + t + "' is local to a loop (local(...)); it has no values outside it");
  throw UsageError(option + ": the program declares no tensor '" + t + "'");
}
}  // namespace

// Buffers with the program's initial values, then --input files, then random
// values for tensors that no nest writes.
runtime::BufferMap prepareBuffers(const ir::Program& p, const Options& o) {
  runtime::BufferMap buffers = runtime::allocateBuffers(p);
  std::set<std::string> given;
  for (auto& [t, file] : o.inputs) {
    auto it = buffers.find(t);
    if (it == buffers.end()) unknownTensor(p, "--input", t);
    runtime::loadNpyInto(file, t, it->second);
    given.insert(t);
  }
  if (o.randomSeed >= 0) {
    auto written = writtenTensors(p);
    uint64_t salt = 0;
    for (auto& t : p.tensors) {
      ++salt;
      if (given.count(t.name) || p.initialValues.count(t.name) || ir::isIntegral(t.dtype)) continue;
      if (std::find(written.begin(), written.end(), t.name) != written.end()) continue;
      buffers.at(t.name).fillRandom(static_cast<uint64_t>(o.randomSeed) * 1000003 + salt);
    }
  }
  for (auto& [t, file] : o.outputs)
    if (!buffers.count(t)) unknownTensor(p, "--output", t);
  return buffers;
}

int compareWithInterpreter(const Compiled& c, const runtime::BufferMap& computed, const runtime::BufferMap& reference,
                           const std::vector<std::string>& compared, std::ostream& out) {
  double worst = 0;
  bool single = false;
  for (auto& name : compared) {
    worst = std::max(worst, runtime::maxRelativeDifference(computed.at(name), reference.at(name)));
    single |= c.program.find(name)->dtype == ir::DType::F32;
  }
  bool ok = worst <= (single ? 1e-3 : 1e-9);
  out << "verify: largest relative difference from the reference interpreter " << std::scientific
      << std::setprecision(2) << worst << (ok ? " (ok)" : " (FAILED)") << "\n";
  return ok ? 0 : 3;
}

std::string shapeText(const ir::TensorDecl& t) {
  std::string s = std::string(ir::dtypeName(t.dtype)) + "[";
  for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(t.shape[i]);
  return s + "]";
}

}  // namespace teml::driver
