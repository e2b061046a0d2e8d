// The paper's kernels at the issue's sizes: for each, the naive sequential
// nest, teml's Table-2 (Pluto-equivalent) schedule and teml's best schedule,
// all compiled with the same flags and timed in one run. Writes a Markdown
// table and a JSON file.
//   teml_bench [--threads N] [--only KERNEL] [--out DIR] [--quick]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "analysis/flops.hpp"
#include "cache/directory.hpp"
#include "backend/cpu/c_emitter.hpp"
#include "backend/backend.hpp"
#include "diag/diagnostics.hpp"
#include "driver/driver.hpp"
#include "runtime/buffer.hpp"
#include "runtime/jit.hpp"

using namespace teml;

namespace {

struct Kernel {
  std::string name;
  std::string sizeText;
  std::map<std::string, int64_t> sizes;
  std::map<std::string, int64_t> quickSizes;
  double floor;       // required speed-up of the best schedule over naive
  double handWritten;  // what hand-written C reaches on this kind of machine
};

const std::vector<Kernel> kKernels = {
    {"mm", "n=1024", {{"N", 1024}}, {{"N", 256}}, 20, 117},
    {"sddmm", "4096x4096, K=256", {{"N", 4096}, {"K", 256}}, {{"N", 512}, {"K", 64}}, 15, 63},
    {"mttkrp", "I=J=K=L=250", {{"I", 250}, {"J", 250}, {"K", 250}, {"L", 250}}, {{"I", 60}, {"J", 60}, {"K", 60}, {"L", 60}}, 5, 29},
    {"gconv", "batch 128, 32->32 ch in 4 groups, 32x32, 7x7",
     {{"NB", 128}, {"G", 4}, {"C", 8}, {"H", 32}, {"R", 7}}, {{"NB", 8}, {"G", 4}, {"C", 8}, {"H", 32}, {"R", 7}}, 5, 36},
    {"bmm", "32768 x (72x26)(26x72)", {{"NB", 32768}, {"M", 72}, {"K", 26}}, {{"NB", 1024}, {"M", 72}, {"K", 26}}, 2, 3.3},
    {"interp", "E=350000, N=7", {{"E", 350000}, {"N", 7}}, {{"E", 10000}, {"N", 7}}, 2.5, 3.1},
    {"helm", "E=25000, N=13", {{"E", 25000}, {"N", 13}}, {{"E", 1000}, {"N", 13}}, 2.5, 3.0},
    {"blur", "4096x4096", {{"N", 4096}}, {{"N", 1024}}, 2, 2.7},
    {"coars", "4096x4096", {{"N", 4096}}, {{"N", 1024}}, 1.6, 2.3},
};

using Clock = std::chrono::steady_clock;

struct Timing {
  double median = 0, min = 0, gflops = 0;
  int runs = 0;
};

// A compiled variant with its buffers, ready to be timed.
struct Variant {
  driver::Compiled compiled;
  std::unique_ptr<backend::Kernel> kernel;
  runtime::BufferMap buffers;
  std::vector<std::string> written;
  std::vector<void*> ptrs;
  std::vector<double> times;
};

driver::Options optionsFor(const std::string& path, const std::map<std::string, int64_t>& sizes, bool noLift,
                           const std::string& autoCache) {
  driver::Options o;
  o.programPath = path;
  o.sizes = sizes;
  o.noLift = noLift;
  if (!autoCache.empty()) {  // --auto, its choices kept in (and taken from) autoCache
    o.autoRequested = true;
    o.jit.cacheDir = autoCache;
  }
  return o;
}

std::unique_ptr<Variant> prepare(const std::string& path, const std::map<std::string, int64_t>& sizes,
                                 bool noLift = false, const std::string& autoCache = "") {
  auto v = std::make_unique<Variant>();
  driver::Options o = optionsFor(path, sizes, noLift, autoCache);
  v->compiled = driver::compile(o);
  const ir::Program& p = v->compiled.program;
  v->kernel = backend::buildFor(p, driver::machineTarget(), o.jit);
  v->buffers = runtime::allocateBuffers(p);
  v->written = driver::writtenTensors(p);
  uint64_t salt = 0;
  for (auto& t : p.tensors) {
    ++salt;
    if (std::find(v->written.begin(), v->written.end(), t.name) == v->written.end() && !p.initialValues.count(t.name))
      v->buffers.at(t.name).fillRandom(salt);
  }
  for (auto& t : p.tensors) v->ptrs.push_back(v->buffers.at(t.name).data());
  return v;
}

double timeOnce(Variant& v, int threads) {
  // Results accumulate into outputs; zero them so every run does the same work.
  for (auto& name : v.written) std::memset(v.buffers.at(name).data(), 0, v.buffers.at(name).bytes());
  auto t = Clock::now();
  v.kernel->run(v.ptrs, threads);
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Times the variants in turns (v[0], v[1], ..., v[0], ...) after one warm-up
// each, so that a slow phase of this shared machine hits them alike.
void runInTurns(std::vector<std::unique_ptr<Variant>>& v, const std::vector<int>& threads, int minRuns) {
  double warm = 0;
  for (size_t i = 0; i < v.size(); ++i) warm = std::max(warm, timeOnce(*v[i], threads[i]));
  int runs = std::clamp(static_cast<int>(std::ceil(4.0 / std::max(warm, 1e-6))), minRuns, 21);
  for (int r = 0; r < runs; ++r)
    for (size_t i = 0; i < v.size(); ++i) v[i]->times.push_back(timeOnce(*v[i], threads[i]));
}

double stageSeconds(const driver::Compiled& c, const std::string& stage) {
  for (auto& [name, secs] : c.stages)
    if (name == stage) return secs;
  return 0;
}

Timing summarize(std::vector<double> times, double flops) {
  std::sort(times.begin(), times.end());
  Timing r;
  r.runs = static_cast<int>(times.size());
  r.min = times.front();
  r.median = times[times.size() / 2];
  r.gflops = flops / r.median / 1e9;
  return r;
}

std::string machine() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  std::time_t now = std::time(nullptr);
  char date[16];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads, " +
         std::to_string(driver::machineTarget().vectorBytes) + "-byte vector registers, " + date;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  std::string only, outDir = std::string(TEML_SOURCE_DIR) + "/bench";
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--out" && i + 1 < argc) outDir = argv[++i];
    else if (a == "--quick") quick = true;
    else {
      std::cerr << "usage: teml_bench [--threads N] [--only KERNEL] [--out DIR] [--quick]\n";
      return 2;
    }
  }
  std::ostringstream md, json;
  md << "# teml benchmark\n\nMachine: " << machine() << ". Double precision; naive = the sequential loop nest "
     << "(1 thread); Table 2 and best on " << threads << " threads; all compiled with `cc -O3 -march=native -fopenmp -fno-trapping-math -fno-math-errno`, "
     << "timed in one run, in turns (median of 5-21 runs each after a warm-up). GFLOP/s count the naive "
     << "program's operations for all three.\n\n"
     << "| kernel | size | naive s | naive GFLOP/s | Table 2 s | Table 2 GFLOP/s | Table 2 speed-up | best s | "
        "best GFLOP/s | best speed-up | floor | hand-written C | best / hand-written | auto s | auto / best | "
        "auto / hand-written | choose cold s | choose again s |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  json << "[\n";
  bool first = true;
  for (auto& k : kKernels) {
    if (!only.empty() && k.name != only) continue;
    auto sizes = quick ? k.quickSizes : k.sizes;
    std::string sizeText = k.sizeText;
    if (quick) {  // the sizes actually run
      sizeText.clear();
      for (auto& [name, value] : sizes) sizeText += (sizeText.empty() ? "" : " ") + name + "=" + std::to_string(value);
    }
    std::string dir = std::string(TEML_SOURCE_DIR) + "/examples/" + k.name + "/";
    try {
      std::cerr << k.name << "..." << std::flush;
      std::vector<std::unique_ptr<Variant>> v;
      for (const char* name : {"naive", "pluto", "best"}) v.push_back(prepare(dir + name + ".teml", sizes));
      runInTurns(v, {1, threads, threads}, 5);
      // GFLOP/s of every variant count the naive program's operations: the work of the kernel.
      double flops = analysis::countFlops(v[0]->compiled.program);
      Timing naive = summarize(v[0]->times, flops), pluto = summarize(v[1]->times, flops),
             best = summarize(v[2]->times, flops);
      double sp = naive.median / pluto.median, sb = naive.median / best.median;
      std::cerr << " naive " << naive.median << " s, Table 2 " << sp << "x, best " << sb << "x" << std::flush;
      // The naive program with --auto against the hand schedule, in turns of
      // their own (the naive and Table-2 buffers freed first: interp's take
      // gigabytes). The first compilation chooses with an empty tuning
      // cache (cold), the second takes the stored choice.
      v[0].reset();
      v[1].reset();
      std::string tuning = "/tmp/teml-bench-tuning-" + k.name;
      std::filesystem::remove_all(tuning);
      auto autoVariant = prepare(dir + "naive.teml", sizes, false, tuning);
      double chooseCold = stageSeconds(autoVariant->compiled, "(auto-schedule)");
      double chooseAgain =
          stageSeconds(driver::compile(optionsFor(dir + "naive.teml", sizes, false, tuning)), "(auto-schedule)");
      std::filesystem::remove_all(tuning);
      v[2]->times.clear();
      std::vector<std::unique_ptr<Variant>> pair;
      pair.push_back(std::move(v[2]));
      pair.push_back(std::move(autoVariant));
      runInTurns(pair, {threads, threads}, 5);
      Timing bestAgain = summarize(pair[0]->times, flops), automatic = summarize(pair[1]->times, flops);
      double ab = bestAgain.median / automatic.median, sa = sb * ab;
      std::cerr << ", auto " << ab << "x the hand schedule (choice " << chooseCold << " s, again " << chooseAgain
                << " s)\n";
      md << std::fixed << "| " << k.name << " | " << sizeText << " | " << std::setprecision(4) << naive.median
         << " | " << std::setprecision(2) << naive.gflops << " | " << std::setprecision(4) << pluto.median << " | "
         << std::setprecision(2) << pluto.gflops << " | " << sp << "x | " << std::setprecision(4) << best.median
         << " | " << std::setprecision(2) << best.gflops << " | **" << sb << "x**" << (sb >= k.floor ? "" : " (below)")
         << " | " << std::setprecision(1) << k.floor << "x | " << k.handWritten << "x | " << std::setprecision(2)
         << sb / k.handWritten << " | " << std::setprecision(4) << automatic.median << " | **" << std::setprecision(2)
         << ab << "x** | " << sa / k.handWritten << " | " << std::setprecision(1) << chooseCold << " | "
         << std::setprecision(3) << chooseAgain << " |\n";
      json << (first ? "" : ",\n") << "  {\"kernel\": \"" << k.name << "\", \"threads\": " << threads
           << ", \"naive_s\": " << naive.median << ", \"table2_s\": " << pluto.median << ", \"best_s\": " << best.median
           << ", \"naive_gflops\": " << naive.gflops << ", \"table2_gflops\": " << pluto.gflops
           << ", \"best_gflops\": " << best.gflops << ", \"table2_speedup\": " << sp << ", \"best_speedup\": " << sb
           << ", \"floor\": " << k.floor << ", \"hand_written\": " << k.handWritten
           << ", \"auto_s\": " << automatic.median << ", \"best_again_s\": " << bestAgain.median
           << ", \"auto_over_best\": " << ab << ", \"auto_speedup\": " << sa << ", \"choose_cold_s\": " << chooseCold
           << ", \"choose_again_s\": " << chooseAgain << "}";
      first = false;
    } catch (const std::exception& e) {
      std::cerr << " failed: " << e.what() << "\n";
      md << "| " << k.name << " | " << sizeText << " | failed: " << e.what() << " |\n";
    }
  }
  // TeIL's contraction lifting: (A x B x C)(u) over many elements, as
  // written (one sum over the outer product) and lifted (single contractions).
  if (only.empty() || only == "lifting") {
    md << "\n## Contraction lifting (TeIL)\n\n`examples/teil/operator.teil`: v[e] = (A x B x C)(u[e]) for "
       << (quick ? 10 : 1000) << " elements, on " << threads
       << " threads; as written = the nested sums evaluated as the paper's Figure 6 reads them (`--no-lift`).\n\n"
       << "| n | as written s | lifted s | speed-up |\n|---|---|---|---|\n";
    std::vector<int64_t> ns = quick ? std::vector<int64_t>{4, 6} : std::vector<int64_t>{8, 12, 16};
    for (int64_t n : ns) {
      std::map<std::string, int64_t> sizes = {{"n", n}, {"E", quick ? 10 : 1000}};
      std::string path = std::string(TEML_SOURCE_DIR) + "/examples/teil/operator.teil";
      std::cerr << "lifting n=" << n << "..." << std::flush;
      std::vector<std::unique_ptr<Variant>> v;
      v.push_back(prepare(path, sizes, true));
      v.push_back(prepare(path, sizes, false));
      runInTurns(v, {threads, threads}, 3);
      Timing a = summarize(v[0]->times, 0), b = summarize(v[1]->times, 0);
      std::cerr << " " << a.median / b.median << "x\n";
      md << std::fixed << "| " << n << " | " << std::setprecision(4) << a.median << " | " << b.median << " | **"
         << std::setprecision(1) << a.median / b.median << "x** |\n";
      json << (first ? "" : ",\n") << "  {\"kernel\": \"teil_operator\", \"n\": " << n
           << ", \"elements\": " << sizes["E"] << ", \"threads\": " << threads << ", \"as_written_s\": " << a.median
           << ", \"lifted_s\": " << b.median << ", \"speedup\": " << a.median / b.median << "}";
      first = false;
    }
  }
  // The 2017 paper's variants (examples/til/mesh/), with the element loop on
  // threads: interpolation E1-E3 against the naive O(N^6) evaluation on the
  // same threads (Figure 6a's baseline), inverse Helmholtz L1-L3 against its
  // sequential evaluation (Figure 6b's).
  if (only.empty() || only == "til") {
    struct Group {
      std::string title, baseline;
      int baselineThreads;
      std::vector<std::string> variants;
      std::vector<std::map<std::string, int64_t>> sizes, quickSizes;
    };
    const std::vector<Group> groups = {
        {"interpolation", "interp_naive", threads, {"E1", "E2", "E3"},
         {{{"E", 20000}, {"N", 7}}, {{"E", 2000}, {"N", 13}}}, {{{"E", 200}, {"N", 7}}}},
        {"inverse Helmholtz", "helm_naive", 1, {"L1", "L2", "L3"},
         {{{"E", 10000}, {"N", 7}}, {{"E", 10000}, {"N", 13}}}, {{{"E", 100}, {"N", 13}}}},
    };
    md << "\n## The 2017 iterator language: E1-E3 and L1-L3 with the element loop\n\n"
       << "`examples/til/mesh/`: every variant's element loops on " << threads << " threads. Interpolation's "
       << "baseline is the naive O(N^6) evaluation on the same threads, inverse Helmholtz's the sequential "
       << "evaluation of Equation (5) (the paper's Figure 6 baselines). Speed-ups over the baseline of the same run.\n\n"
       << "| kernel | E | N | baseline s | variant | s | speed-up |\n|---|---|---|---|---|---|---|\n";
    for (auto& g : groups)
      for (auto& sizes : quick ? g.quickSizes : g.sizes) {
        std::string dir = std::string(TEML_SOURCE_DIR) + "/examples/til/mesh/";
        std::cerr << g.title << " E=" << sizes.at("E") << " N=" << sizes.at("N") << "..." << std::flush;
        std::vector<std::unique_ptr<Variant>> v;
        std::vector<int> runThreads = {g.baselineThreads};
        v.push_back(prepare(dir + g.baseline + ".til", sizes));
        for (auto& name : g.variants) {
          v.push_back(prepare(dir + name + ".til", sizes));
          runThreads.push_back(threads);
        }
        runInTurns(v, runThreads, 3);
        Timing base = summarize(v[0]->times, 0);
        for (size_t i = 1; i < v.size(); ++i) {
          Timing t = summarize(v[i]->times, 0);
          const std::string& name = g.variants[i - 1];
          std::cerr << " " << name << " " << base.median / t.median << "x";
          md << std::fixed << "| " << g.title << " | " << sizes.at("E") << " | " << sizes.at("N") << " | "
             << std::setprecision(4) << base.median << " | " << name << " | " << t.median << " | **"
             << std::setprecision(2) << base.median / t.median << "x** |\n";
          json << (first ? "" : ",\n") << "  {\"kernel\": \"til_" << name << "\", \"E\": " << sizes.at("E")
               << ", \"N\": " << sizes.at("N") << ", \"threads\": " << threads << ", \"baseline\": \"" << g.baseline
               << "\", \"baseline_s\": " << base.median << ", \"variant_s\": " << t.median
               << ", \"speedup\": " << base.median / t.median << "}";
          first = false;
        }
        std::cerr << "\n";
      }
  }
  json << "\n]\n";
  md << "\n## Free-form workloads\n\nThe four FreeTensor workloads against PyTorch are in bench/freetensor.md\n"
        "(bench/freetensor/run.py).\n";
  std::string suffix = quick ? "-quick" : "";
  cache::makeDirectories(outDir);
  std::ofstream(outDir + "/results" + suffix + ".md") << md.str();
  std::ofstream(outDir + "/results" + suffix + ".json") << json.str();
  std::cout << md.str();
  return 0;
}
