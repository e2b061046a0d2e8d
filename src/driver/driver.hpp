// The pipeline behind the `teml` command: load a program, build it as the
// loop IR (front end), schedule it, lower it for the target, generate code,
// compile, run, and report.
#pragma once
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "runtime/buffer.hpp"
#include "runtime/jit.hpp"
#include "target/target.hpp"

namespace teml::driver {

struct Options {
  std::string programPath;  // "-" reads standard input
  std::map<std::string, int64_t> sizes;
  std::vector<std::pair<std::string, std::string>> inputs, outputs;  // tensor, .npy file
  int threads = 0;  // 0: OMP_NUM_THREADS or all cores
  int rankGridRows = 0, rankGridCols = 0;  // --ranks-grid RxC: the grid of two distributed loops (0: chosen)
  int ranks = 1;    // MPI ranks the program is lowered for (run, bench under mpirun: theirs; emit, check: --ranks)
  target::Kind target = target::Kind::Cpu;  // --target cpu | cuda
  std::string arch;            // cuda: sm_NN ("": the device's, else sm_90)
  bool emulate = false;        // cuda: run in the GPU emulator (interp/gpu_emulator)
  runtime::JitOptions jit;
  bool verbose = false;
  std::string emit = "c";  // c | ir | lowered | loops | teil
  std::string outputFile;
  int runs = 0;  // bench: 0 chooses
  bool json = false;
  bool verify = false;  // also run the reference interpreter and compare
  bool interpret = false;  // run with the interpreter instead of compiled code
  bool noCheck = false;    // transformations are not checked against dependences
  bool noLift = false;     // TeIL: no contraction lifting
  std::string entry;       // .py: the entry function ("": the only one)
  bool uncheckedIndices = false;  // .py: no run-time index checks
  bool noSchedule = false;        // .py: without its @teml.schedule functions
  bool autoSchedule = true;       // .py: an entry with no schedule is scheduled automatically (--no-auto: not)
  bool autoRequested = false;     // --auto given: also .teml, .til and .teil nests no transformation touched
  double tuneBudget = 3;          // seconds of tuning per nest, compiling and measuring (0: heuristics alone)
  std::vector<std::string> wrt, of;  // grad: differentiate the sum of `of` (weighted) with respect to `wrt`
  std::string tapes = "auto";          // grad: auto | all | none
  std::string dumpPasses;  // a directory: the IR after each stage and lowering pass that changed it
  long randomSeed = -1;  // >= 0: fill float tensors the program only reads with random values (integers stay 0)
};

// A lowered program and what it took to get it.
struct Compiled {
  ir::Program program;  // as scheduled
  target::Target target;
  ir::Program lowered;  // lowered for `target` (lowering::lower): what runs
  std::string teil;  // a .teil program after rewriting and lifting (teml emit --emit teil)
  std::string displayName;
  std::vector<std::pair<std::string, double>> stages;  // name, seconds
  std::string entry;                    // .py: the entry function's name
  std::vector<std::string> autoSteps;   // the automatic schedule's steps, in the program's language
  bool autoScheduled = false;
  std::string scheduleNote;             // .py: why the file's schedule is not this target's
  std::string distributeNote;           // under mpirun: why the automatic distribution chose what it did
};

// Throws UserError/UsageError/InternalError.
Compiled compile(const Options& options);

// The target a compilation is for, made once and passed down to every
// stage: this machine's vector unit (target::hostCpu; the only place it is
// asked) with `threads` threads (0: OpenMP's default, the Python package's
// choice). targetFor: with --threads, else OMP_NUM_THREADS, else every core;
// with --target cuda, the GPU of --arch.
target::Target machineTarget(int threads = 0);
target::Target targetFor(const Options& options);

// `sizes` plus the target's own size parameters where the program does not
// set them: VLEN, the doubles in one vector register of the target (8 with
// AVX-512, 4 with AVX2, 2 otherwise; TEML_VECTOR_BYTES changes it), so that a
// schedule's register blocks can follow the machine (examples/mm/best.teml).
// Where dependence answers are kept beside a kernel cache ("" or a
// directory; empty when it cannot be used: nothing is kept).
std::string analysisCacheDirectory(const std::string& kernelCacheDir);
std::map<std::string, int64_t> withTargetSizes(std::map<std::string, int64_t> sizes, const target::Target& target);

int commandCheck(const Options& options, std::ostream& out, std::ostream& err);
int commandEmit(const Options& options, std::ostream& out, std::ostream& err);
int commandRun(const Options& options, std::ostream& out, std::ostream& err);
int commandBench(const Options& options, std::ostream& out, std::ostream& err);
// Runs the program and its backward program (autodiff/): the gradients of
// the sum of each `of` tensor times its weights (OUT.grad: --input, else
// ones) with respect to each `wrt` tensor (X.grad).
int commandGrad(const Options& options, std::ostream& out, std::ostream& err);

// Tensors some nest writes (stores or reductions).
std::vector<std::string> writtenTensors(const ir::Program& program);

}  // namespace teml::driver
