// The `teml` command: argument parsing, then the driver. Exit status: 0 ok,
// 1 wrong program, 2 wrong command line or file, 3 internal error, 4 this
// machine cannot run it (no CUDA driver, device or compiler).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <new>
#include <string>

#include "diag/diagnostics.hpp"
#include "driver/driver.hpp"
#include "driver/mpi_ranks.hpp"
#include "runtime/mpi.hpp"

namespace {

const char* kUsage =
    "usage: teml COMMAND PROGRAM [options]\n"
    "commands:\n"
    "  run    parse, check, transform, generate code, compile, execute\n"
    "  emit   print the generated code (--emit c|ir|lowered|loops|teil, -o FILE)\n"
    "  check  parse, type-check and legality-check only\n"
    "  bench  run repeatedly and report min/median time and GFLOP/s\n"
    "  grad   run the program and its gradient (--wrt X[,Y..] --of OUT[,..] [--tapes auto|all|none])\n"
    "options:\n"
    "  --set NAME=INT          bind a size parameter (repeatable)\n"
    "  --input TENSOR=FILE     load a tensor from .npy (repeatable)\n"
    "  --output TENSOR=FILE    write a tensor to .npy (repeatable)\n"
    "  --threads N             threads for parallel loops\n"
    "  --ranks N               emit, check: lower for N MPI ranks (run, bench: mpirun's count)\n"
    "  --ranks-grid RxC        two distributed loops of a nest split over R x C ranks (default: most even)\n"
    "  --target cpu|cuda       where the program runs (default cpu)\n"
    "  --arch sm_NN            cuda: the GPU architecture (default: the device's, else sm_90)\n"
    "  --emulate               cuda: run in teml's GPU emulator on the CPU (checks races and barriers)\n"
    "  --cc PATH, --cflags S   C compiler and flags for JIT compilation\n"
    "  --cache-dir DIR         where compiled kernels are kept\n"
    "  --dump-passes DIR       write the IR after each stage and lowering pass that changed it\n"
    "  --random SEED           fill float tensors the program only reads with random values\n"
    "  --verify                also run the reference interpreter and compare (run)\n"
    "  --interp                execute with the reference interpreter (run, bench)\n"
    "  --no-check              apply reordering steps without dependence checks (the paper's behaviour;\n"
    "                          races are still checked)\n"
    "  --no-lift               TeIL: evaluate nested contractions as written (no contraction lifting)\n"
    "  --entry NAME            .py: the @teml.transform function to compile\n"
    "  --unchecked-indices     .py: no run-time checks of indices that data decide\n"
    "  --no-schedule           .py: ignore the file's @teml.schedule functions (with --no-auto: the program as written)\n"
    "  --auto, --no-auto       schedule untouched nests automatically (.py: the default for an entry with no\n"
    "                          schedule; .teml, .til, .teil: with --auto), or run them as written\n"
    "  --tune-budget S         --auto: seconds of tuning (making, compiling, measuring candidates) per nest (default 3; 0: none)\n"
    "  --runs N, --json        bench: number of runs, JSON output\n"
    "  -v                      print each stage with its time\n";

[[noreturn]] void usage(const std::string& msg) { throw teml::UsageError(msg + "\n" + kUsage); }

long parseInt(const std::string& text, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE) usage(what + ": '" + text + "' is not an integer");
  return v;
}

std::pair<std::string, std::string> splitAssign(const std::string& text, const std::string& what) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) usage(what + " expects NAME=VALUE, got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

teml::driver::Options parseOptions(int argc, char** argv, int first) {
  teml::driver::Options o;
  bool havePath = false;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--set") {
      auto [name, v] = splitAssign(value(), "--set");
      long n = parseInt(v, "--set " + name);
      if (n < 1) usage("--set " + name + ": sizes must be positive");
      o.sizes[name] = n;
    } else if (a == "--input") {
      o.inputs.push_back(splitAssign(value(), "--input"));
    } else if (a == "--output") {
      o.outputs.push_back(splitAssign(value(), "--output"));
    } else if (a == "--ranks-grid") {
      std::string g = value();
      auto x = g.find('x');
      if (x == std::string::npos) usage("--ranks-grid takes RxC (rows x columns of ranks), not '" + g + "'");
      long rows = parseInt(g.substr(0, x), "--ranks-grid"), cols = parseInt(g.substr(x + 1), "--ranks-grid");
      if (rows < 1 || cols < 1 || rows * cols > 1 << 20) usage("--ranks-grid: rows and columns must be positive");
      o.rankGridRows = static_cast<int>(rows);
      o.rankGridCols = static_cast<int>(cols);
    } else if (a == "--ranks") {
      long n = parseInt(value(), "--ranks");
      if (n < 1 || n > 1 << 20) usage("--ranks must be between 1 and 1048576");
      o.ranks = static_cast<int>(n);
    } else if (a == "--threads") {
      long n = parseInt(value(), "--threads");
      if (n < 1 || n > 4096) usage("--threads must be between 1 and 4096");
      o.threads = static_cast<int>(n);
    } else if (a == "--target") {
      std::string name = value();
      auto kind = teml::target::kindNamed(name);
      if (!kind) usage("--target must be cpu or cuda, not '" + name + "'");
      o.target = *kind;
    } else if (a == "--arch") {
      o.arch = value();
    } else if (a == "--emulate") {
      o.emulate = true;
    } else if (a == "--cc") {
      o.jit.cc = value();
    } else if (a == "--cflags") {
      o.jit.cflags = value();
    } else if (a == "--dump-passes") {
      o.dumpPasses = value();
    } else if (a == "--cache-dir") {
      o.jit.cacheDir = value();
    } else if (a == "--emit") {
      o.emit = value();
    } else if (a == "-o") {
      o.outputFile = value();
    } else if (a == "--runs") {
      long n = parseInt(value(), "--runs");
      if (n < 1 || n > 1000000) usage("--runs must be positive");
      o.runs = static_cast<int>(n);
    } else if (a == "--random") {
      long n = parseInt(value(), "--random");
      if (n < 0) usage("--random needs a seed >= 0");
      o.randomSeed = n;
    } else if (a == "--wrt" || a == "--of") {
      std::string list = value();
      auto& names = a == "--wrt" ? o.wrt : o.of;
      for (size_t start = 0; start <= list.size();) {
        size_t comma = std::min(list.find(',', start), list.size());
        if (comma == start) usage(a + ": an empty tensor name in '" + list + "'");
        names.push_back(list.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (a == "--tapes") {
      o.tapes = value();
      if (o.tapes != "auto" && o.tapes != "all" && o.tapes != "none")
        usage("--tapes must be auto, all or none, not '" + o.tapes + "'");
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--verify") {
      o.verify = true;
    } else if (a == "--interp") {
      o.interpret = true;
    } else if (a == "--no-check") {
      o.noCheck = true;
    } else if (a == "--no-lift") {
      o.noLift = true;
    } else if (a == "--entry") {
      o.entry = value();
    } else if (a == "--unchecked-indices") {
      o.uncheckedIndices = true;
    } else if (a == "--no-schedule") {
      o.noSchedule = true;
    } else if (a == "--auto") {
      o.autoSchedule = true;
      o.autoRequested = true;
    } else if (a == "--tune-budget") {
      std::string v = value();
      char* end = nullptr;
      double seconds = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(seconds >= 0 && seconds <= 3600))
        usage("--tune-budget: expected seconds between 0 and 3600, not '" + v + "'");
      o.tuneBudget = seconds;
    } else if (a == "--no-auto") {
      o.autoSchedule = false;
    } else if (a == "-v") {
      o.verbose = true;
    } else if (a.size() > 1 && a[0] == '-') {
      usage("unknown option '" + a + "'");
    } else if (!havePath) {
      o.programPath = a;
      havePath = true;
    } else {
      usage("more than one program given ('" + o.programPath + "' and '" + a + "')");
    }
  }
  if (!havePath) usage("no program given");
  const bool cuda = o.target == teml::target::Kind::Cuda;
  if (o.emulate && !cuda) usage("--emulate runs a GPU program on the CPU: give it with --target cuda");
  if (!o.arch.empty() && !cuda) usage("--arch is a GPU architecture: give it with --target cuda");
  return o;
}

}  // namespace

// An error after the ranks started working together stops all of them.
int ended(int status) {
  if (teml::runtime::mpi::started()) teml::runtime::mpi::abortAll(status);
  return status;
}

int main(int argc, char** argv) {
  std::string display = "teml";
  try {
    if (argc < 2) usage("no command given");
    std::string cmd = argv[1];
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      std::cout << kUsage;
      return 0;
    }
    if (cmd != "run" && cmd != "emit" && cmd != "check" && cmd != "bench" && cmd != "grad")
      usage("unknown command '" + cmd + "'");
    teml::driver::Options o = parseOptions(argc, argv, 2);
    display = o.programPath == "-" ? "<stdin>" : o.programPath;
    bool runs = cmd == "run" || cmd == "bench" || cmd == "grad";
    if (runs && o.ranks > 1) usage("--ranks is for emit and check; run and bench take the ranks mpirun starts");
    std::ostream* out = &std::cout;
    std::ostream* err = &std::cerr;
    std::ostringstream quiet;
    if (runs) {
      int launched = teml::driver::launchedRanks(o, cmd);
      if (launched > 1) {
        o.ranks = launched;
      } else if (teml::runtime::mpi::launchedRanks() > 1 && teml::runtime::mpi::launchedRank() != 0) {
        // Every rank runs the whole program (grad, the interpreter, a GPU): rank 0 reports and writes.
        o.outputs.clear();
        out = err = &quiet;
      }
    }
    if (cmd == "run") return teml::driver::commandRun(o, *out, *err);
    if (cmd == "emit") return teml::driver::commandEmit(o, std::cout, std::cerr);
    if (cmd == "check") return teml::driver::commandCheck(o, std::cout, std::cerr);
    if (cmd == "grad") return teml::driver::commandGrad(o, *out, *err);
    return teml::driver::commandBench(o, *out, *err);
  } catch (const teml::UserError& e) {
    std::cerr << teml::formatDiagnostic(display, e) << "\n";
    return ended(1);
  } catch (const teml::UsageError& e) {
    std::cerr << "teml: error: " << e.what() << "\n";
    return ended(2);
  } catch (const teml::UnavailableError& e) {
    std::cerr << "teml: error: " << e.what() << "\n";
    return ended(4);
  } catch (const teml::InternalError& e) {
    std::cerr << "teml: internal error (a bug in teml): " << e.what() << "\n";
    return ended(3);
  } catch (const std::bad_alloc&) {
    std::cerr << "teml: internal error: out of memory\n";
    return ended(3);
  } catch (const std::exception& e) {
    std::cerr << "teml: internal error (a bug in teml): " << e.what() << "\n";
    return ended(3);
  }
}
