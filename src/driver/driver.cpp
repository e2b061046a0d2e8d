#include "driver/driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

#include "autodiff/gradient.hpp"
#include "analysis/flops.hpp"
#include "cache/directory.hpp"
#include "backend/backend.hpp"
#include "autoschedule/auto_distribute.hpp"
#include "autoschedule/auto_schedule_program.hpp"
#include "autoschedule/step.hpp"
#include "diag/diagnostics.hpp"
#include "diag/timing.hpp"
#include "driver/gradient_pipeline.hpp"
#include "driver/measured_tuner.hpp"
#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "frontend/teil/teil.hpp"
#include "frontend/til/til.hpp"
#include "frontend/teml/ast.hpp"
#include "frontend/teml/evaluator.hpp"
#include "pipeline/teml_schedule.hpp"
#include "interp/gpu_emulator.hpp"
#include "runtime/cuda_driver.hpp"
#include "backend/reference_kernels.hpp"
#include "interp/interpreter.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "ir/verify.hpp"
#include "lowering/decisions.hpp"
#include "lowering/distributed/traffic.hpp"
#include "lowering/lower.hpp"
#include "lowering/pass_log.hpp"
#include "runtime/npy.hpp"
#include "driver/run_parts.hpp"
#include "runtime/mpi.hpp"
#include "schedule/transforms.hpp"

namespace teml::driver {

std::string extensionOf(const std::string& path) {
  if (path == "-") return ".teml";
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot);
}

std::string readSource(const std::string& path) {
  std::stringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot read the program");
  ss << in.rdbuf();
  return ss.str();
}

std::vector<void*> pointers(const ir::Program& p, runtime::BufferMap& buffers) {
  std::vector<void*> out;
  for (auto& t : p.tensors) out.push_back(buffers.at(t.name).data());
  return out;
}

std::vector<std::string> writtenTensors(const ir::Program& program) {
  std::vector<std::string> out;
  std::set<std::string> written;
  for (auto& nest : program.nests)
    for (auto& t : ir::tensorsWritten(nest)) written.insert(t);
  // In the program's order; local tensors are not the program's: they have no values after it.
  for (auto& t : program.tensors)
    if (written.count(t.name)) out.push_back(t.name);
  return out;
}

target::Target machineTarget(int threads) { return target::hostCpu(threads); }

target::Target targetFor(const Options& o) {
  if (o.target == target::Kind::Cuda) {
    target::Target t = target::cudaTarget(o.arch);
    if (o.arch.empty()) {  // the device's own limits where there is one
      try {
        t.gpu = runtime::CudaDriver::get().limits();
      } catch (const UnavailableError&) {
      }
    }
    t.threads = threadCount(o);  // of the emulator and the CPU's reference runs
    return t;
  }
  target::Target t = machineTarget(threadCount(o));
  t.ranks = std::max(1, o.ranks);
  if (o.rankGridRows > 0 && o.rankGridRows * o.rankGridCols != t.ranks)
    throw UserError(SourceLoc{}, "--ranks-grid " + std::to_string(o.rankGridRows) + "x" + std::to_string(o.rankGridCols) +
                                     " is not " + std::to_string(t.ranks) + " ranks");
  t.rankGridRows = o.rankGridRows;
  return t;
}

std::string analysisCacheDirectory(const std::string& kernelCacheDir) { return cache::analysisDirectory(kernelCacheDir); }

std::map<std::string, int64_t> withTargetSizes(std::map<std::string, int64_t> sizes, const target::Target& target) {
  sizes.emplace("VLEN", target.lanes(ir::DType::F64));
  return sizes;
}

namespace {

std::unique_ptr<lowering::PassLog> passLogFor(const Options& o) {
  return o.dumpPasses.empty() ? nullptr : std::make_unique<lowering::PassLog>(o.dumpPasses);
}

std::string analysisCacheFor(const Options& o) { return analysisCacheDirectory(o.jit.cacheDir); }

// The measured search --auto uses, with its choices in the kernel cache
// (null: --tune-budget 0, heuristics alone).
std::unique_ptr<MeasuredTuner> tunerFor(const Options& o, const target::Target& target) {
  if (o.tuneBudget <= 0 || target.kind != target::Kind::Cpu) return nullptr;  // no measuring on a GPU yet
  std::string cache = o.jit.cacheDir.empty() ? cache::defaultDirectory() : o.jit.cacheDir;
  return std::make_unique<MeasuredTuner>(target, o.jit, cache::prepareDirectory(cache).empty() ? cache : "",
                                         TuningOptions{o.tuneBudget, !o.json}, std::cerr);
}

Compiled buildFreeform(const Options& o, const target::Target& target, const std::string& source, Compiled& c) {
  auto t = Clock::now();
  freeform::FreeformOptions f;
  f.entry = o.entry;
  f.sizes = o.sizes;
  for (auto& [tensor, file] : o.inputs) f.inputShapes[tensor] = runtime::readNpy(file).shape;
  f.checkIndices = !o.uncheckedIndices;
  f.applySchedules = !o.noSchedule;
  f.autoSchedule = o.autoSchedule;
  f.target = target;
  f.checkLegality = !o.noCheck;
  f.analysisCacheDir = analysisCacheFor(o);
  freeform::FreeformProgram written = freeform::parseFreeform(source, f);
  c.stages.push_back({"parse", secondsSince(t)});
  t = Clock::now();
  freeform::FreeformProgram p = pipeline::scheduleFreeform(std::move(written), f);
  c.stages.push_back({"transform", secondsSince(t)});
  c.stages.push_back({"(analysis)", p.analysisSeconds});
  if (p.autoScheduled) c.stages.push_back({"(auto-schedule)", p.autoSeconds});
  c.program = p.program;
  c.entry = p.entry;
  c.autoSteps = p.autoSteps;
  c.autoScheduled = p.autoScheduled;
  c.scheduleNote = p.scheduleNote;
  return c;
}

// The program through its front end and the schedule stage, as the loop IR.
Compiled frontEndAndSchedule(const Options& o, const target::Target& target) {
  Compiled c;
  c.displayName = o.programPath == "-" ? "<stdin>" : o.programPath;
  std::string ext = extensionOf(o.programPath);
  if (ext != ".teml" && ext != ".teil" && ext != ".til" && ext != ".py")
    throw UsageError(c.displayName + ": unknown program type '" + ext + "' (expected .teml, .teil, .til or .py)");
  std::string source = readSource(o.programPath);
  if (ext == ".py") return buildFreeform(o, target, source, c);
  if (ext == ".til") source = til::tilToTeml(source);  // TeML, line for line
  if (ext == ".teil") {
    auto t = Clock::now();
    teil::TeilProgram p = teil::parseTeil(source, o.sizes);
    c.stages.push_back({"parse", secondsSince(t)});
    t = Clock::now();
    teil::checkTeil(p);
    c.stages.push_back({"check", secondsSince(t)});
    t = Clock::now();
    p = teil::rewriteTeil(p);
    if (!o.noLift) p = teil::liftContractions(p);
    try {
      teil::checkTeil(p);
    } catch (const UserError& e) {
      throw InternalError(std::string("rewriting produced an ill-typed program: ") + e.what());
    }
    c.stages.push_back({"rewrite", secondsSince(t)});
    c.teil = teil::toString(p);
    t = Clock::now();
    c.program = teil::buildTeil(p);
    c.stages.push_back({"build", secondsSince(t)});
    if (o.autoRequested) {  // TeIL has no schedule of its own: every nest is scheduled
      t = Clock::now();
      auto tuner = tunerFor(o, target);
      auto chosen = autoschedule::autoScheduleProgram(c.program, target, tuner.get(), analysisCacheFor(o));
      c.program = chosen.program;
      c.stages.push_back({"(auto-schedule)", secondsSince(t)});
      for (size_t k = 0; k < chosen.steps.size(); ++k)
        for (auto& line : autoschedule::temlLines(chosen.steps[k], "nest" + std::to_string(k + 1)))
          c.autoSteps.push_back(line);
      c.autoScheduled = true;
    }
    return c;
  }
  auto t = Clock::now();
  teml_lang::Script script = teml_lang::parseTeml(source);
  c.stages.push_back({"parse", secondsSince(t)});
  t = Clock::now();
  teml_lang::TemlProgram written = teml_lang::evaluateTeml(script, {withTargetSizes(o.sizes, target)});
  c.stages.push_back({"check", secondsSince(t)});
  t = Clock::now();
  pipeline::TemlStats stats;
  pipeline::TemlOptions options;
  options.checkLegality = !o.noCheck;
  options.analysisCacheDir = analysisCacheFor(o);
  options.autoSchedule = o.autoRequested;
  options.target = target;
  auto tuner = tunerFor(o, options.target);
  options.tuner = tuner.get();
  for (auto& [tensor, file] : o.inputs) options.inputs.insert(tensor);
  for (auto& [tensor, file] : o.outputs) options.outputs.insert(tensor);
  c.program = pipeline::scheduleTeml(std::move(written), options, &stats);
  c.stages.push_back({"transform", secondsSince(t)});
  c.stages.push_back({"(analysis)", stats.analysisSeconds});
  if (stats.autoNests > 0) {
    c.stages.push_back({"(auto-schedule)", stats.autoSeconds});
    c.autoSteps = stats.autoSteps;
    c.autoScheduled = true;
  }
  if (o.noCheck)
    std::cerr << "teml: warning: --no-check: transformations are applied without dependence checks; "
                 "they may change the program's results\n";
  return c;
}

}  // namespace

Compiled compile(const Options& o) {
  const target::Target target = targetFor(o);
  Compiled c = frontEndAndSchedule(o, target);
  if (std::string broken = ir::verify(c.program); !broken.empty())
    throw InternalError("the front end produced ill-formed IR: " + broken);
  if (c.autoScheduled && target.ranks > 1) {
    autoschedule::AutoDistribution d = autoschedule::autoDistribute(c.program, target, analysisCacheFor(o));
    c.program = d.program;
    c.distributeNote = d.why;
    if (!c.entry.empty())  // free-form: steps of the schedule
      for (auto& step : d.steps) c.autoSteps.push_back(schedule::freeformText(step));
    else
      c.autoSteps = autoschedule::withDistributeLines(c.autoSteps, d);
  }
  auto t = Clock::now();
  c.target = target;
  std::unique_ptr<lowering::PassLog> log = passLogFor(o);
  c.lowered = lowering::lower(c.program, c.target, analysisCacheFor(o), log.get());
  c.stages.push_back({"lowering", secondsSince(t)});
  return c;
}

namespace {

bool isGradientName(const std::string& tensor) {
  return tensor.size() > 5 && tensor.compare(tensor.size() - 5, 5, ".grad") == 0;
}

// The program and its backward program as one program, scheduled and
// lowered (what `grad` runs and `bench --wrt` times).
Compiled compileGradient(const Options& o, autodiff::GradientProgram& g) {
  if (o.wrt.empty()) throw UsageError("grad needs --wrt X[,Y...]: the tensors to differentiate with respect to");
  if (o.of.empty()) throw UsageError("grad needs --of OUT[,...]: the results to differentiate");
  // The forward program sees only its own tensors.
  Options forward = o;
  std::erase_if(forward.inputs, [](auto& in) { return isGradientName(in.first); });
  std::erase_if(forward.outputs, [](auto& out) { return isGradientName(out.first); });
  // A free-form entry is differentiated as written (its schedules describe
  // the forward program's loops, not the backward's).
  forward.noSchedule = true;
  forward.autoSchedule = false;
  forward.autoRequested = false;
  const target::Target target = targetFor(o);
  Compiled c = frontEndAndSchedule(forward, target);
  // Scheduled automatically: a free-form entry by default, others with --auto.
  bool freeform = extensionOf(o.programPath) == ".py";
  bool automatic = freeform ? o.autoSchedule : o.autoRequested;
  std::unique_ptr<lowering::PassLog> log = passLogFor(o);
  ScheduledGradient d = differentiate(c.program, {o.wrt, o.of, autodiff::tapeModeNamed(o.tapes)}, target, automatic,
                                      analysisCacheFor(o), log.get());
  g = d.gradient;
  c.program = g.program;
  c.stages.push_back({"gradient", d.gradientSeconds});
  c.target = target;
  if (d.autoScheduled) {
    c.autoScheduled = true;
    for (size_t k = 0; k < d.steps.size(); ++k) {
      if (freeform)
        for (auto& step : d.steps[k]) c.autoSteps.push_back(autoschedule::freeformText(step));
      else
        for (auto& line : autoschedule::temlLines(d.steps[k], "nest" + std::to_string(k + 1)))
          c.autoSteps.push_back(line);
    }
    c.stages.push_back({"(auto-schedule)", d.scheduleSeconds});
    if (target.ranks > 1) {  // forward and backward nests split over the ranks alike
      autoschedule::AutoDistribution split = autoschedule::autoDistribute(c.program, target, analysisCacheFor(o));
      c.program = split.program;
      c.distributeNote = split.why;
      for (auto& step : split.steps) c.autoSteps.push_back(schedule::freeformText(step));
    }
  }
  auto t = Clock::now();
  c.lowered = lowering::lower(c.program, c.target, analysisCacheFor(o), log.get());
  c.stages.push_back({"lowering", secondsSince(t)});
  return c;
}

}  // namespace

// Under --ranks N: what the plan moves and keeps, the largest per rank and the total.
void printTraffic(const Compiled& c, std::ostream& err) {
  if (c.lowered.distribution.ranks <= 1) return;
  auto traffic = lowering::predictedTraffic(c.lowered);
  lowering::RankTraffic most, total;
  for (auto& t : traffic) {
    most.sent = std::max(most.sent, t.sent), total.sent += t.sent;
    most.received = std::max(most.received, t.received), total.received += t.received;
    most.kept = std::max(most.kept, t.kept), total.kept += t.kept;
    most.inputs = std::max(most.inputs, t.inputs), total.inputs += t.inputs;
  }
  const auto& d = c.lowered.distribution;
  if (d.onGrid()) err << "teml: grid of ranks " << d.grid.rows << "x" << d.grid.cols << " (--ranks-grid)\n";
  err << "teml: " << traffic.size() << " ranks: per rank at most " << most.sent << " B sent, " << most.received
      << " B received, " << most.kept << " B kept (" << most.inputs << " B of inputs); in all " << total.sent
      << " B sent, " << total.kept << " B kept (" << total.inputs << " B of inputs)\n";
}

int commandCheck(const Options& o, std::ostream& out, std::ostream& err) {
  Compiled c = compile(o);
  if (o.verbose) {
    printStages(c, err);
    printTraffic(c, err);
  }
  return 0;
}

int commandEmit(const Options& o, std::ostream& out, std::ostream& err) {
  autodiff::GradientProgram g;
  Compiled c = o.wrt.empty() && o.of.empty() ? compile(o) : compileGradient(o, g);
  std::string text;
  if (o.emit == "c") {
    auto t = Clock::now();
    text = backend::backendFor(c.target)->emit(c.lowered);
    c.stages.push_back({"codegen", secondsSince(t)});
  } else if (o.emit == "ir") {
    text = ir::toString(c.program, true);
  } else if (o.emit == "lowered") {
    text = ir::toString(c.lowered, true);
  } else if (o.emit == "loops") {
    text = ir::toString(c.program, false);
  } else if (o.emit == "teil") {
    if (c.teil.empty()) throw UsageError("--emit teil: the program is not a .teil program");
    text = c.teil;
  } else {
    throw UsageError("--emit must be c, ir, lowered, loops or teil, not '" + o.emit + "'");
  }
  if (o.verbose) printStages(c, err);
  if (o.outputFile.empty()) {
    out << text;
  } else {
    std::ofstream f(o.outputFile);
    f << text;
    if (!f) throw UsageError(o.outputFile + ": cannot write");
  }
  return 0;
}

namespace {

// What runs: the compiled kernel, or the reference interpreter (--interp)
// or the GPU emulator (--emulate), through the same interface.
std::unique_ptr<backend::Kernel> prepareKernel(Compiled& c, const Options& o) {
  if (o.interpret) return backend::interpreterKernel(c.program);
  if (o.emulate) return backend::emulatorKernel(c.lowered, o.jit);
  auto t = Clock::now();
  auto backend = backend::backendFor(c.target);
  std::unique_ptr<backend::Kernel> kernel = backend->build(c.lowered, o.jit);
  c.stages.push_back({kernel->compiledNow() ? "compile" : "load", secondsSince(t)});
  for (auto& w : kernel->warnings()) std::cerr << "teml: warning: " << w << "\n";
  if (o.verbose)
    for (auto& n : kernel->notes()) std::cerr << "teml: " << n << "\n";
  return kernel;
}

void execute(const Compiled& c, const backend::Kernel& kernel, runtime::BufferMap& buffers, int threads) {
  auto ptrs = pointers(c.program, buffers);
  kernel.run(ptrs, threads);
}

// Runs the compiled program on the options' inputs and writes the --output
// files; without --output, prints each of `shown` (shape, sum, largest
// magnitude). With --verify the interpreter runs on the same inputs and
// `compared` is compared. Returns the exit status (3 on a mismatch) and the
// kernel's time.
std::pair<int, double> runAndReport(Compiled& c, const Options& o, const std::vector<std::string>& shown,
                                    const std::vector<std::string>& compared, std::ostream& out) {
  std::unique_ptr<backend::Kernel> kernel = prepareKernel(c, o);
  auto tp = Clock::now();
  runtime::BufferMap buffers = prepareBuffers(c.program, o);
  runtime::BufferMap initial = o.verify ? buffers : runtime::BufferMap{};
  c.stages.push_back({"buffers", secondsSince(tp)});
  auto t = Clock::now();
  execute(c, *kernel, buffers, threadCount(o));
  double runTime = secondsSince(t);
  c.stages.push_back({o.interpret ? "interpret" : o.emulate ? "emulate" : "run", runTime});
  for (auto& [tensor, file] : o.outputs) runtime::writeNpy(file, buffers.at(tensor));
  if (o.outputs.empty())
    for (auto& name : shown) {
      const runtime::Buffer& b = buffers.at(name);
      out << name << ": " << shapeText(*c.program.find(name)) << "  sum = " << std::setprecision(10) << b.sum()
          << "  max|x| = " << b.maxAbs() << "\n";
    }
  if (!o.verify) return {0, runTime};
  auto ti = Clock::now();
  interp::run(c.program, initial);
  c.stages.push_back({"verify", secondsSince(ti)});
  return {compareWithInterpreter(c, buffers, initial, compared, out), runTime};
}

}  // namespace

int commandRun(const Options& o, std::ostream& out, std::ostream& err) {
  auto total = Clock::now();
  Compiled c = compile(o);
  if (c.program.nests.empty()) err << "teml: warning: " << c.displayName << " has no codegen statement; nothing runs\n";
  std::vector<std::string> written = writtenTensors(c.program), shown;
  for (auto& name : written)
    if (!c.program.isTemporary(name)) shown.push_back(name);  // a front end's intermediate is not a result
  double runTime = 0;
  int status = 0;
  if (c.lowered.distribution.ranks > 1) status = runDistributed(c, o, shown, written, out, err, &runTime);
  else std::tie(status, runTime) = runAndReport(c, o, shown, written, out);
  if (o.verbose && (c.lowered.distribution.ranks <= 1 || runtime::mpi::rank() == 0)) {
    printStages(c, err);
    double outside = secondsSince(total) - runTime;
    for (auto& [name, secs] : c.stages)
      if (name == "verify") outside -= secs;
    err << "teml: outside the kernel " << std::fixed << std::setprecision(2) << outside * 1e3 << " ms\n";
  }
  return status;
}

int commandGrad(const Options& o, std::ostream& out, std::ostream& err) {
  autodiff::GradientProgram g;
  Compiled c = compileGradient(o, g);
  std::vector<std::string> shown = o.of;
  for (auto& x : o.wrt) shown.push_back(g.gradientOf.at(x));
  double runTime = 0;
  int status = c.lowered.distribution.ranks > 1 ? runDistributed(c, o, shown, shown, out, err, &runTime)
                                                : runAndReport(c, o, shown, shown, out).first;
  if (c.lowered.distribution.ranks > 1 && runtime::mpi::rank() != 0) return status;
  if (o.verbose) {
    err << "teml: gradient: tensors that carry a gradient:";
    for (auto& [tensor, name] : g.gradientOf) err << " " << tensor;
    err << "\n";
    for (auto& [tensor, choice] : g.tapes) err << "teml: gradient: " << tensor << ": " << choice.why << "\n";
    for (auto& line : g.versions) err << "teml: gradient: " << line << "\n";
    printStages(c, err);
  }
  return status;
}

namespace {

// Resident memory now and at its highest, in MiB: the growth while the
// kernels run is what their temporaries take.
double currentRssMb() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

double peakRssMb() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024;
}

}  // namespace

int commandBench(const Options& o, std::ostream& out, std::ostream& err) {
  autodiff::GradientProgram g;
  Compiled c = o.wrt.empty() && o.of.empty() ? compile(o) : compileGradient(o, g);
  if (c.lowered.distribution.ranks > 1) return benchDistributed(c, o, out, err);
  std::unique_ptr<backend::Kernel> kernel = prepareKernel(c, o);
  const runtime::BufferMap initial = prepareBuffers(c.program, o);
  runtime::BufferMap buffers = initial;
  int threads = threadCount(o);
  auto timeOnce = [&]() {
    for (auto& [name, b] : buffers) b = initial.at(name);  // every run sees the same inputs
    auto t = Clock::now();
    execute(c, *kernel, buffers, threads);
    return secondsSince(t);
  };
  const double rssBefore = currentRssMb();
  // A GPU times its own runs, the data left on the device (Kernel::timeRuns).
  auto ptrs = pointers(c.program, buffers);
  std::optional<std::vector<double>> onDevice;
  onDevice = kernel->timeRuns(ptrs, 1);
  double warm = onDevice ? onDevice->front() : timeOnce();
  int runs = o.runs;
  if (runs <= 0) runs = std::max(3, static_cast<int>(std::min(1000.0, 1.0 / std::max(warm, 1e-6))));
  std::vector<double> times;
  if (onDevice) times = *kernel->timeRuns(ptrs, runs);
  else
    for (int i = 0; i < runs; ++i) times.push_back(timeOnce());
  std::sort(times.begin(), times.end());
  double median = times.size() % 2 ? times[times.size() / 2]
                                   : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
  double flops = analysis::countFlops(c.program);
  std::ostringstream gf;
  if (flops > 0) gf << std::fixed << std::setprecision(3) << flops / median / 1e9;
  else gf << "null";
  if (o.json) {
    std::string name = c.displayName;
    std::string escaped;
    for (char ch : name) {
      if (ch == '"' || ch == '\\') escaped += '\\';
      escaped += ch;
    }
    out << "{\"program\": \"" << escaped << "\", \"threads\": " << threads << ", \"runs\": " << runs
        << ", \"min_s\": " << std::scientific << std::setprecision(6) << times.front()
        << ", \"median_s\": " << median << ", \"gflops\": " << gf.str() << ", \"peak_memory_mb\": " << std::fixed
        << std::setprecision(1) << std::max(0.0, peakRssMb() - rssBefore) << ", \"peak_rss_mb\": " << peakRssMb()
        << "}\n";
  } else {
    out << c.displayName << ": " << runs << " runs on " << threads << " thread" << (threads == 1 ? "" : "s")
        << ", min " << std::fixed << std::setprecision(6) << times.front() << " s, median " << median << " s";
    if (flops > 0) out << ", " << gf.str() << " GFLOP/s";
    out << "\n";
  }
  if (o.verbose) printStages(c, err);
  return 0;
}

}  // namespace teml::driver
