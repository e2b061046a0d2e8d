// Helpers shared by the tests: compile TeML text, run it with the reference
// interpreter and with JIT-compiled C on the same random inputs, compare.
#pragma once
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "backend/backend.hpp"
#include "lowering/checks_by_range.hpp"
#include "lowering/decisions.hpp"
#include "lowering/lower.hpp"
#include "driver/driver.hpp"
#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "pipeline/teml_schedule.hpp"
#include "interp/interpreter.hpp"
#include "ir/csr_rows.hpp"
#include "runtime/buffer.hpp"
#include "runtime/jit.hpp"
#include "ir/mutator.hpp"
#include "ir/verify.hpp"

namespace teml::testing {

// The C a scheduled program becomes on this machine (lowered, then printed).
inline std::string cSource(const ir::Program& p) { return backend::emitFor(p, driver::machineTarget()); }

inline std::string cacheDir() {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/teml-test-cache-" + std::to_string(getuid());
}

struct CommandResult {
  int status;
  std::string out;  // stdout and stderr together
};

// Runs the teml command with `args`, the kernel cache in `cache`.
inline CommandResult runTeml(const std::string& args, const std::string& stdinText = "",
                             const std::string& cache = cacheDir()) {
  std::string cmd = std::string(TEML_BINARY) + " " + args + " --cache-dir " + cache + " 2>&1";
  // A file of its own per call: ctest runs tests of one binary as parallel processes.
  std::string input = cache + "-stdin-XXXXXX";
  if (!stdinText.empty()) {
    int fd = mkstemp(input.data());
    if (fd < 0) return {128, "cannot create a file for stdin next to " + cache};
    close(fd);
    std::ofstream(input) << stdinText;
    cmd += " < " + input;
  }
  CommandResult r{0, ""};
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  if (!stdinText.empty()) std::remove(input.c_str());
  return r;
}

// How many random sequences a random test runs: TEML_RANDOM_SEQUENCES, else `fallback`.
inline int randomSequenceCount(int fallback) {
  const char* env = std::getenv("TEML_RANDOM_SEQUENCES");
  return env && std::atoi(env) > 0 ? std::atoi(env) : fallback;
}

inline ir::Program compile(const std::string& source, std::map<std::string, int64_t> sizes = {}) {
  pipeline::TemlOptions o;
  o.sizes = driver::withTargetSizes(std::move(sizes), driver::machineTarget());
  return pipeline::compileTeml(source, o);
}

// A free-form entry's options, automatic schedules for this machine.
inline freeform::FreeformOptions hostFreeformOptions() {
  freeform::FreeformOptions o;
  o.target = driver::machineTarget();
  return o;
}

// A free-form program (with its schedules) for this machine, its sizes set.
inline freeform::FreeformProgram compileForHost(const std::string& source, std::map<std::string, int64_t> sizes) {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.sizes = std::move(sizes);
  return pipeline::compileFreeform(source, o);
}

// Random values for every tensor no nest writes; zeros (or init values)
// elsewhere. A row array of CSR loops (ir/csr_rows) gets its random values
// in order, as the program checks.
inline runtime::BufferMap randomInputs(const ir::Program& p, uint64_t seed = 7) {
  runtime::BufferMap b = runtime::allocateBuffers(p);
  auto written = driver::writtenTensors(p);
  uint64_t salt = 0;
  for (auto& t : p.tensors) {
    ++salt;
    if (p.initialValues.count(t.name)) continue;
    if (std::find(written.begin(), written.end(), t.name) != written.end()) continue;
    b.at(t.name).fillRandom(seed * 31 + salt);
  }
  std::set<std::string> rowArrays;
  for (auto& nest : p.nests)
    for (auto& [id, row] : ir::checkedRowLoops(nest)) rowArrays.insert(row.second.rows);
  for (auto& r : rowArrays) {
    runtime::Buffer& rows = b.at(r);
    std::vector<int64_t> v;
    for (int64_t k = 0; k < rows.size(); ++k) v.push_back(rows.getInt(k));
    std::sort(v.begin(), v.end());
    for (int64_t k = 0; k < rows.size(); ++k) rows.setInt(k, v[k]);
  }
  return b;
}

inline runtime::BufferMap runInterpreter(const ir::Program& p, runtime::BufferMap b) {
  interp::run(p, b);
  return b;
}

inline runtime::BufferMap runJit(const ir::Program& p, runtime::BufferMap b, int threads = 2) {
  runtime::JitOptions o;
  o.cacheDir = cacheDir();
  auto k = backend::buildFor(p, driver::machineTarget(), o);
  std::vector<void*> ptrs;
  for (auto& t : p.tensors) ptrs.push_back(b.at(t.name).data());
  k->run(ptrs, threads);
  return b;
}

inline double tolerance(const ir::Program& p) {
  for (auto& t : p.tensors)
    if (t.dtype == ir::DType::F32) return 1e-4;
  return 1e-10;
}

inline bool hasParallelLoop(const ir::Program& p) {
  bool parallel = false;
  for (auto& n : p.nests)
    ir::forEachStmt(n, [&](const ir::StmtP& s) {
      parallel |= s->kind == ir::StmtKind::For && s->as<ir::For>().loopKind.threads();
    });
  return parallel;
}

// randomInputs with every float input a whole number from 1 to 4: sums and
// products of such values are exact in any order, and a lost or doubled
// update of an element changes a result by at least 1.
inline runtime::BufferMap integerInputs(const ir::Program& p, uint64_t seed = 7) {
  runtime::BufferMap b = randomInputs(p, seed);
  auto written = driver::writtenTensors(p);
  for (auto& t : p.tensors) {
    if (ir::isIntegral(t.dtype) || std::find(written.begin(), written.end(), t.name) != written.end()) continue;
    runtime::Buffer& buf = b.at(t.name);
    for (int64_t i = 0; i < buf.size(); ++i) buf.set(i, std::floor((buf.get(i) + 1) * 2) + 1);
  }
  return b;
}

// Where p runs loops in threads: compiled once and run with 2, 4 and 8
// threads on integer-valued inputs, p computes what the interpreter computes
// for `reference` (p itself when it is null). Races show here: with whole
// numbers, results of the tests' sizes (below 10^4) agree to 1e-9 (float64)
// or 1e-5 (float32, where functions like exp round differently in another
// order) unless an update was lost or doubled.
// Returns whether p has such a loop.
inline bool expectSameOnEveryThreadCount(const ir::Program& p, const ir::Program* reference = nullptr,
                                         uint64_t seed = 7) {
  if (!hasParallelLoop(p)) return false;
  const ir::Program& ref = reference ? *reference : p;
  auto inputs = integerInputs(ref, seed);
  auto want = runInterpreter(ref, inputs);
  runtime::JitOptions o;
  o.cacheDir = cacheDir();
  auto kernel = backend::buildFor(p, driver::machineTarget(), o);
  for (int threads : {2, 4, 8}) {
    runtime::BufferMap got = inputs;
    std::vector<void*> ptrs;
    for (auto& t : p.tensors) ptrs.push_back(got.at(t.name).data());
    kernel->run(ptrs, threads);
    for (auto& t : p.tensors) {
      if (!want.count(t.name)) continue;
      EXPECT_LE(runtime::maxRelativeDifference(got.at(t.name), want.at(t.name)), t.dtype == ir::DType::F32 ? 1e-5 : 1e-9)
          << "tensor " << t.name << " on " << threads << " threads";
    }
  }
  return true;
}

// The accumulators that `reduction(OP:NAME)` clauses of generated C name, each
// once however many loops carry it (partial sums: the blocks' loop, the last
// iterations', the sum of the parts), less a check loop's own or of failures.
inline std::set<std::string> reductionClauseNames(const std::string& c) {
  std::set<std::string> names;
  for (size_t at = c.find(" reduction("); at != std::string::npos; at = c.find(" reduction(", at + 1)) {
    size_t colon = c.find(':', at), close = c.find(')', at);
    std::string name = c.substr(colon + 1, close - colon - 1);
    if (name.rfind("teml_some_failed", 0) != 0) names.insert(name);
  }
  return names;
}

inline int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// What -v prints of the lowering stage's decisions for p is what the C it
// becomes does: as many atomic updates and reduction clauses, each clause
// on an accumulator that -v names; as many accumulators copied per thread
// (each merged in a critical section); a prefetching loop for each loop
// whose code prefetches, and as many prefetches as its loops list.
inline void expectDecisionsAreTheCodes(const ir::Program& p) {
  // -v names the decisions of the copy without the checks the index ranges
  // prove (lowering/checks_by_range); the checked copy repeats them.
  struct FastCopy : ir::Mutator {
    ir::StmtP mutateIf(const ir::StmtP& s) override {
      if (s->id == lowering::kChecksByRangeId) return mutate(s->as<ir::If>().then);
      return ir::Mutator::mutateIf(s);
    }
  };
  ir::Program lowered = lowering::lower(p, driver::machineTarget());
  for (auto& n : lowered.nests) n = FastCopy().mutate(n);
  std::string c = backend::backendFor(driver::machineTarget())->emit(lowered);
  int atomics = 0, copies = 0, prefetchingLoops = 0;
  std::set<std::string> accumulators;
  for (auto& line : lowering::decisions(lowered)) {
    if (line.find(") by atomic updates") != std::string::npos) {
      ++atomics;
    } else if (line.find(": prefetches ") != std::string::npos) {
      ++prefetchingLoops;
    } else if (line.find("in a copy per thread") != std::string::npos || line.find(", heap)") != std::string::npos) {
      ++copies;
    } else {
      size_t at = line.find("accumulator '") + 13;
      std::string name = line.substr(at, line.find('\'', at) - at);
      EXPECT_NE(c.find(":" + name + ")"), std::string::npos) << line << "\n" << c;
      accumulators.insert(name);
    }
  }
  EXPECT_EQ(atomics + copies, occurrences(c, "#pragma omp atomic") + occurrences(c, "#pragma omp critical")) << c;
  EXPECT_EQ(copies, occurrences(c, "teml_thread() == 0 ?")) << c;
  EXPECT_EQ(accumulators, reductionClauseNames(c)) << c;
  int loops = 0, prefetches = 0;
  for (auto& n : lowered.nests)
    ir::forEachStmt(n, [&](const ir::StmtP& s) {
      if (s->kind != ir::StmtKind::For) return;
      size_t k = s->as<ir::For>().loopKind.cpu.prefetches.size();
      loops += k > 0;
      prefetches += static_cast<int>(k);
    });
  EXPECT_EQ(prefetchingLoops, loops);
  EXPECT_EQ(prefetches, occurrences(c, "__builtin_prefetch(")) << c;
}

// The program's results from compiled code equal the interpreter's.
inline void expectJitMatchesInterpreter(const ir::Program& p, uint64_t seed = 7) {
  ASSERT_EQ(ir::verify(p), "");
  auto inputs = randomInputs(p, seed);
  auto want = runInterpreter(p, inputs);
  auto got = runJit(p, inputs);
  for (auto& t : p.tensors)
    EXPECT_LE(runtime::maxRelativeDifference(got.at(t.name), want.at(t.name)), tolerance(p)) << "tensor " << t.name;
}

// Both programs compute the same values for every tensor they share.
inline void expectSameResults(const ir::Program& a, const ir::Program& b, uint64_t seed = 7) {
  auto ra = runJit(a, randomInputs(a, seed));
  auto rb = runInterpreter(b, randomInputs(b, seed));
  for (auto& t : a.tensors) {
    if (!rb.count(t.name)) continue;
    EXPECT_LE(runtime::maxRelativeDifference(ra.at(t.name), rb.at(t.name)), tolerance(a)) << "tensor " << t.name;
  }
}

// The UserError message and position of compiling `source`.
struct Failure {
  bool failed = false;
  SourceLoc loc;
  std::string message;
  std::vector<DiagnosticNote> notes;
};

inline Failure failureOf(const std::function<void()>& compileIt) {
  Failure f;
  try {
    compileIt();
  } catch (const UserError& e) {
    f.failed = true;
    f.loc = e.loc();
    f.message = e.what();
    f.notes = e.notes();
  }
  return f;
}

inline Failure compileError(const std::string& source, std::map<std::string, int64_t> sizes = {}) {
  return failureOf([&] { compile(source, sizes); });
}

// The TeML program is refused at `line` with a message containing `fragment`.
inline void expectRefusedAt(const std::string& source, const std::map<std::string, int64_t>& sizes, int line,
                            const std::string& fragment) {
  auto f = compileError(source, sizes);
  ASSERT_TRUE(f.failed) << source;
  EXPECT_EQ(f.loc.line, line) << f.message;
  EXPECT_NE(f.message.find(fragment), std::string::npos) << f.message;
}

// Both TeML programs compile; the first's JIT code matches the interpreter
// and gives the second's results.
inline void expectKeepsResultsOf(const std::string& source, const std::string& baseline,
                                 const std::map<std::string, int64_t>& sizes) {
  auto p = compile(source, sizes);
  auto base = compile(baseline, sizes);
  expectJitMatchesInterpreter(p);
  expectSameResults(p, base);
}

}  // namespace teml::testing
