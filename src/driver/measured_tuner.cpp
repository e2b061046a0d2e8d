#include "driver/measured_tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <set>
#include <thread>

#include <unistd.h>

#include "backend/backend.hpp"
#include "diag/timing.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "cache/directory.hpp"
#include "runtime/buffer.hpp"
#include "runtime/mpi.hpp"
#include "diag/diagnostics.hpp"

namespace teml::driver {

namespace {

// One line that rewrites itself on a terminal, lines otherwise; silent for
// the first second.
class Progress {
 public:
  Progress(std::ostream& err, bool enabled) : err_(err), enabled_(enabled), start_(Clock::now()) {}
  ~Progress() {
    if (shown_ && tty_) err_ << "\n";
  }
  void show(const std::string& what) {
    double t = secondsSince(start_);
    if (!enabled_ || t < 1 || t - last_ < 1) return;
    last_ = t;
    shown_ = true;
    err_ << (tty_ ? "\r" : "") << "teml: tuning: " << what << " (" << std::fixed << std::setprecision(0) << t << " s)"
         << (tty_ ? "   " : "\n") << std::flush;
  }

 private:
  std::ostream& err_;
  bool enabled_;
  bool tty_ = isatty(2);
  bool shown_ = false;
  double last_ = 0;
  Clock::time_point start_;
};

}  // namespace

MeasuredTuner::MeasuredTuner(target::Target target, runtime::JitOptions jit, std::string cacheDir,
                             TuningOptions options, std::ostream& err)
    : target_(std::move(target)), jit_(std::move(jit)), cacheDir_(std::move(cacheDir)), options_(options), err_(err) {
  // A candidate runs whole in one process: its kernel neither splits loops
  // nor calls MPI, whatever the ranks the program is lowered for.
  target_.ranks = 1;
}

std::string MeasuredTuner::storedChoicePath(const std::string& key) const {
  if (cacheDir_.empty()) return "";
  // The same nest and candidates, on the same machine, compiled the same way.
  std::string full = key + "\nisa " + target_.isa + " " + std::to_string(target_.vectorBytes) +
                     (target_.halvesWideVectors ? " halved" : "") + " threads " +
                     std::to_string(target_.threads) + "\ncc " + jit_.cc + " " + jit_.cflags;
  return cacheDir_ + "/tuning/" + runtime::contentHash(full);
}

size_t MeasuredTuner::fastest(const ir::Program& context, const std::string& key,
                              const std::vector<ir::StmtP>& candidates, double secondsSpent) {
  const double budget = options_.budgetSeconds - secondsSpent;
  // A choice is an index into these candidates: kept for exactly these.
  std::string withCandidates = key;
  for (auto& nest : candidates) withCandidates += "\ncandidate\n" + ir::toString(nest, true);
  if (runtime::mpi::launchedRanks() <= 1 || !runtime::mpi::built()) return choose(context, withCandidates, candidates, budget);
  // Several ranks: every rank compiles the same program and asks for the same
  // choices in the same order; rank 0 chooses (measuring alone on the
  // machine: the others wait without spinning) and the others take its
  // choice, with the hash of what it chose among to check that they agree.
  runtime::mpi::start();
  struct {
    int64_t choice;
    uint64_t hash;
  } shared{0, std::hash<std::string>{}(withCandidates)};
  const uint64_t mine = shared.hash;
  if (runtime::mpi::rank() == 0) shared.choice = static_cast<int64_t>(choose(context, withCandidates, candidates, budget));
  runtime::mpi::shareFromZero(&shared, sizeof shared);
  if (shared.hash != mine || shared.choice < 0 || static_cast<size_t>(shared.choice) >= candidates.size())
    throw InternalError("rank " + std::to_string(runtime::mpi::rank()) +
                        " tuned other candidates than rank 0 (the ranks compiled different programs)");
  return static_cast<size_t>(shared.choice);
}

size_t MeasuredTuner::choose(const ir::Program& context, const std::string& withCandidates,
                             const std::vector<ir::StmtP>& candidates, double budget) {
  std::string stored = storedChoicePath(withCandidates);
  if (!stored.empty()) {
    std::ifstream in(stored);
    std::string word;
    long choice = -1;
    if (in >> word >> choice && word == "choice" && choice >= 0 && static_cast<size_t>(choice) < candidates.size())
      return static_cast<size_t>(choice);
  }
  if (budget <= 0) return 0;  // making the candidates spent it: the passes' first guess
  ++measured_;
  auto start = Clock::now();  // the budget covers compiling and running
  Progress progress(err_, options_.progress);
  // Programs of the candidate alone, over the tensors it uses.
  std::set<std::string> used;
  for (auto& nest : candidates)
    for (auto& t : ir::tensorsAccessed(nest)) used.insert(t);
  ir::Program base = context;
  std::erase_if(base.tensors, [&](const ir::TensorDecl& t) { return !used.count(t.name); });
  std::vector<ir::Program> programs;
  for (auto& nest : candidates) {
    ir::Program p = base;
    p.nests = {nest};
    programs.push_back(std::move(p));
  }
  // Compiled in parallel, as many at a time as the machine has cores, in the
  // order the passes proposed them (their first guess first), while the
  // budget allows another round as long as the longest so far; a candidate
  // that does not compile, or that the budget leaves out, is not chosen.
  std::vector<std::unique_ptr<backend::Kernel>> kernels(candidates.size());
  size_t workers = std::max(1u, std::thread::hardware_concurrency());
  double longestRound = 0;
  for (size_t first = 0; first < candidates.size(); first += workers) {
    if (first > 0 && secondsSince(start) + longestRound > budget) break;
    auto roundStart = Clock::now();
    std::vector<std::future<std::unique_ptr<backend::Kernel>>> jobs;
    for (size_t k = first; k < std::min(candidates.size(), first + workers); ++k)
      jobs.push_back(std::async(std::launch::async, [&, k] { return backend::buildFor(programs[k], target_, jit_); }));
    for (size_t k = 0; k < jobs.size(); ++k) {
      try {
        kernels[first + k] = jobs[k].get();
      } catch (const std::exception&) {
      }
    }
    longestRound = std::max(longestRound, secondsSince(roundStart));
    progress.show(std::to_string(std::min(candidates.size(), first + workers)) + "/" +
                  std::to_string(candidates.size()) + " candidates compiled");
  }
  // Buffers are kept from nest to nest: fresh memory is slow to touch the
  // first time (gigabytes for interp's and helm's intermediates). Filling
  // them is not counted against the budget (seconds for bmm's 2.3 GB):
  // it does not depend on how many candidates are measured.
  auto filling = Clock::now();
  std::vector<void*> pointers;
  for (auto& t : base.tensors) {
    auto it = buffers_.find(t.name);
    if (it == buffers_.end() || it->second.dtype() != t.dtype || it->second.shape() != t.shape) {
      runtime::Buffer b(t.dtype, t.shape);
      auto init = base.initialValues.find(t.name);
      if (init != base.initialValues.end()) b.fill(init->second);
      else if (!ir::isIntegral(t.dtype)) b.fillRandom(buffers_.size() + 1);
      it = buffers_.insert_or_assign(t.name, std::move(b)).first;
    }
    pointers.push_back(it->second.data());
  }

  // In turns (A B C A B C ...), one warm-up each, the best time of each
  // kept: at least one timed turn, at most five, while the budget lasts
  // (another turn only when one as long as the last still fits). The
  // warm-up stops taking candidates (after the first two) when a timed
  // turn of those it took would not fit any more: a run of bmm's takes a
  // tenth of a second.
  budget += secondsSince(filling);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> best(candidates.size(), inf);
  double lastTurn = 0;
  for (int turn = 0; turn < 2 || (turn < 6 && secondsSince(start) + lastTurn < budget); ++turn) {
    auto turnStart = Clock::now();
    int warmed = 0;
    for (size_t k = 0; k < candidates.size(); ++k) {
      if (!kernels[k]) continue;
      if (turn == 0 && warmed >= 2 && secondsSince(start) + secondsSince(turnStart) > budget) {
        kernels[k].reset();  // left out: the budget is spent
        continue;
      }
      ++warmed;
      auto t = Clock::now();
      try {
        kernels[k]->run(pointers, target_.threads);
      } catch (const std::exception&) {
        kernels[k].reset();
        best[k] = inf;
        continue;
      }
      if (turn > 0) best[k] = std::min(best[k], secondsSince(t));
    }
    lastTurn = secondsSince(turnStart);
    progress.show(std::to_string(candidates.size()) + " candidates, run " + std::to_string(turn + 1));
  }
  size_t choice = static_cast<size_t>(std::min_element(best.begin(), best.end()) - best.begin());
  if (!stored.empty() && best[choice] < inf) {
    try {
      cache::makeDirectories(cacheDir_ + "/tuning");
      std::string temporary = stored + ".tmp" + std::to_string(getpid());
      {
        std::ofstream out(temporary);
        out << "choice " << choice << "\n";
        for (size_t k = 0; k < best.size(); ++k) out << "# candidate " << k << ": " << best[k] << " s\n";
      }
      if (std::rename(temporary.c_str(), stored.c_str()) != 0) std::remove(temporary.c_str());
    } catch (const std::exception&) {
    }
  }
  return choice;
}

}  // namespace teml::driver
