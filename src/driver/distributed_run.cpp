// `teml run` and `teml bench` under mpirun for a program lowered for several
// ranks (docs/distributed.md): each rank keeps the part of each tensor the
// plan gives it (Program::distribution), reads that part of its inputs with
// MPI-IO, runs the kernel (which exchanges what the ranks share), and writes
// the elements it holds of each output into one .npy file; -v gathers each
// rank's lines at rank 0.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <sys/resource.h>

#include "backend/backend.hpp"
#include "diag/diagnostics.hpp"
#include "driver/run_parts.hpp"
#include "interp/interpreter.hpp"
#include "ir/mutator.hpp"
#include "lowering/distributed/traffic.hpp"
#include "runtime/mpi.hpp"
#include "runtime/npy.hpp"

namespace teml::driver {

namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int64_t linear(const std::vector<int64_t>& shape, const std::vector<int64_t>& index) {
  int64_t at = 0;
  for (size_t d = 0; d < shape.size(); ++d) at = at * shape[d] + index[d];
  return at;
}

bool emptyBox(const ir::BoxTransfer& b) {
  for (size_t d = 0; d < b.lo.size(); ++d)
    if (b.hi[d] <= b.lo[d]) return true;
  return false;
}

// The box as runs of consecutive elements {first, count}: a run per row of
// the dimensions the box does not cover whole.
std::vector<std::pair<int64_t, int64_t>> runsOf(const std::vector<int64_t>& shape, const ir::BoxTransfer& b) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  if (emptyBox(b)) return runs;
  size_t dims = shape.size();
  if (dims == 0) return {{0, 1}};
  size_t split = dims - 1;  // dimensions from split on are one run per index of those before
  while (split > 0 && b.lo[split] == 0 && b.hi[split] == shape[split]) --split;
  int64_t inner = 1;
  for (size_t d = split + 1; d < dims; ++d) inner *= shape[d];
  int64_t run = (b.hi[split] - b.lo[split]) * inner;
  std::vector<int64_t> index(b.lo);
  for (;;) {
    runs.push_back({linear(shape, index), run});
    int d = static_cast<int>(split) - 1;
    while (d >= 0 && ++index[d] == b.hi[d]) {
      index[d] = b.lo[d];
      --d;
    }
    if (d < 0) return runs;
  }
}

// The elements of `runs` (ascending, disjoint) not in any of `taken`, as runs.
std::vector<std::pair<int64_t, int64_t>> withoutRuns(const std::vector<std::pair<int64_t, int64_t>>& runs,
                                                     std::vector<std::pair<int64_t, int64_t>> taken) {
  std::sort(taken.begin(), taken.end());
  std::vector<std::pair<int64_t, int64_t>> out;
  size_t k = 0;
  for (auto [first, count] : runs) {
    int64_t at = first, end = first + count;
    while (k < taken.size() && taken[k].first + taken[k].second <= at) ++k;
    for (size_t j = k; j < taken.size() && taken[j].first < end && at < end; ++j) {
      if (taken[j].first > at) out.push_back({at, taken[j].first - at});
      at = std::max(at, taken[j].first + taken[j].second);
    }
    if (at < end) out.push_back({at, end - at});
  }
  return out;
}

// This rank's part of each program tensor: its kept box's elements from the
// first to the last in row-major order.
struct Part {
  int64_t first = 0, count = 0;
  runtime::Buffer buffer{ir::DType::F64, {1}};
};

Part partOf(const ir::TensorDecl& t, const ir::BoxTransfer& kept) {
  Part p;
  if (!emptyBox(kept)) {
    std::vector<int64_t> last(kept.hi);
    for (auto& x : last) --x;
    p.first = linear(t.shape, kept.lo);
    p.count = linear(t.shape, last) - p.first + 1;
    // The part starts a few elements early where that puts the whole
    // tensor's origin on a 64-byte boundary, as one process's buffers are:
    // the kernel's vector loads then meet the same alignment in every rank
    // (a rank whose part started one float64 past a line ran the 1-D heat
    // equation's steps about a third slower, and the others waited for it).
    int64_t perLine = std::max<int64_t>(1, 64 / static_cast<int64_t>(ir::bytes(t.dtype)));
    int64_t early = p.first % perLine;
    p.first -= early;
    p.count += early;
  }
  p.buffer = runtime::Buffer(t.dtype, {std::max<int64_t>(1, p.count)});
  return p;
}

class RankRun {
 public:
  RankRun(Compiled& c, const Options& o) : c_(c), o_(o), rank_(runtime::mpi::rank()) {
    if (runtime::mpi::size() != c.lowered.distribution.ranks)
      throw InternalError("lowered for " + std::to_string(c.lowered.distribution.ranks) + " ranks, run on " +
                          std::to_string(runtime::mpi::size()));
  }

  // Rank 0 compiles into the kernel cache first; the others load it.
  void build() {
    auto t = Clock::now();
    auto backend = backend::backendFor(c_.target);
    if (rank_ == 0) kernel_ = backend->build(c_.lowered, o_.jit);
    runtime::mpi::barrier();
    if (rank_ != 0) kernel_ = backend->build(c_.lowered, o_.jit);
    c_.stages.push_back({kernel_->compiledNow() ? "compile" : "load", secondsSince(t)});
  }

  // `again`: keep the first values too, so that each run of a bench starts from them.
  void prepare(bool again) {
    auto t = Clock::now();
    const ir::Program& p = c_.lowered;
    runtime::BufferMap whole;
    if (o_.randomSeed >= 0) whole = prepareBuffers(c_.program, o_);  // the same values as one process
    // Tensors whose rows a CSR loop names after those whose values name them.
    std::vector<const ir::TensorDecl*> order;
    for (auto& t : p.tensors)
      if (!p.distribution.rowsByIndex.count(t.name)) order.push_back(&t);
    for (auto& t : p.tensors)
      if (p.distribution.rowsByIndex.count(t.name)) order.push_back(&t);
    for (const ir::TensorDecl* decl : order) {
      const ir::TensorDecl& t = *decl;
      Part part = partOf(t, keptBox(t));
      size_t elem = ir::bytes(t.dtype);
      if (auto v = p.initialValues.find(t.name); v != p.initialValues.end()) part.buffer.fill(v->second);
      if (whole.count(t.name)) {
        std::memcpy(part.buffer.data(), static_cast<const char*>(whole.at(t.name).data()) + part.first * elem,
                    part.count * elem);
      } else {
        for (auto& [name, file] : o_.inputs) {
          if (name != t.name) continue;
          runtime::NpyHeader h = runtime::npyHeaderFor(file, name, t.dtype, t.shape);
          runtime::mpi::readAt(file, h.dataOffset + part.first * elem, part.buffer.data(), part.count * elem);
        }
      }
      parts_.emplace(t.name, std::move(part));
    }
    for (auto& [name, file] : o_.inputs)
      if (!parts_.count(name)) throw UsageError("--input: the program declares no tensor '" + name + "'");
    for (auto& [name, file] : o_.outputs)
      if (!parts_.count(name)) throw UsageError("--output: the program declares no tensor '" + name + "'");
    if (again) initial_ = parts_;
    c_.stages.push_back({"buffers", secondsSince(t)});
  }

  // The box of `t` this rank keeps: the plan's, or for a tensor read
  // through CSR loops (ir::RowsByIndex) the rows between the least and the
  // greatest row pointer of this rank's block, clamped to the tensor (a
  // pointer outside it fails the kernel's checks before any row is read).
  // Where the pointers are not all in this rank's part, the plan's.
  ir::BoxTransfer keptBox(const ir::TensorDecl& t) const {
    const ir::Program& p = c_.lowered;
    ir::BoxTransfer box = p.distribution.kept.at(t.name)[rank_];
    auto by = p.distribution.rowsByIndex.find(t.name);
    if (by == p.distribution.rowsByIndex.end()) return box;
    const ir::DistributedLoop& l = p.distribution.loops.at(by->second.loop);
    int64_t first = l.first(rank_), last = l.last(rank_);
    auto pointers = parts_.find(by->second.index);
    if (pointers == parts_.end()) return box;
    const Part& index = pointers->second;
    if (first < index.first || last >= index.first + index.count) return box;
    int64_t lo = 0, hi = 0;
    for (int64_t i = first; i <= last; ++i) {
      int64_t v = index.buffer.dtype() == ir::DType::I32 ? static_cast<const int32_t*>(index.buffer.data())[i - index.first]
                                                          : static_cast<const int64_t*>(index.buffer.data())[i - index.first];
      v = std::clamp<int64_t>(v, 0, t.shape[0]);
      lo = i == first ? v : std::min(lo, v);
      hi = i == first ? v : std::max(hi, v);
    }
    box.lo.assign(t.shape.size(), 0);
    box.hi = t.shape;
    box.lo[0] = lo;
    box.hi[0] = hi;
    return box;
  }

  void restart() {
    for (auto& [name, part] : parts_) part.buffer = initial_.at(name).buffer;
  }

  double run() {
    std::vector<void*> pointers;
    for (auto& t : c_.lowered.tensors) {
      Part& part = parts_.at(t.name);
      pointers.push_back(static_cast<char*>(part.buffer.data()) - part.first * ir::bytes(t.dtype));
    }
    runtime::mpi::barrier();
    auto t = Clock::now();
    kernel_->run(pointers, threadCount(o_));
    return runtime::mpi::maxOver(secondsSince(t));
  }

  void writeOutputs() {
    for (auto& [name, file] : o_.outputs) {
      const ir::TensorDecl& t = *c_.lowered.find(name);
      size_t elem = ir::bytes(t.dtype);
      std::string head = runtime::npyHeader(t.dtype, t.shape);
      const Part& part = parts_.at(name);
      std::vector<runtime::mpi::Run> runs;
      for (auto& [first, count] : resultRuns(name))
        runs.push_back({static_cast<int64_t>(head.size() + first * elem),
                        static_cast<const char*>(part.buffer.data()) + (first - part.first) * elem,
                        static_cast<int64_t>(count * elem)});
      runtime::mpi::writeRuns(file, head, static_cast<int64_t>(head.size() + t.elementCount() * elem), runs);
    }
  }

  // Rank 0 gets the whole of each tensor named (the others an empty map).
  runtime::BufferMap gather(const std::vector<std::string>& names) {
    runtime::BufferMap out;
    for (auto& name : names) {
      const ir::TensorDecl& t = *c_.lowered.find(name);
      size_t elem = ir::bytes(t.dtype);
      std::vector<char> mine;
      const Part& part = parts_.at(name);
      for (auto& [first, count] : resultRuns(name)) {
        size_t at = mine.size();
        mine.resize(at + 16 + count * elem);
        std::memcpy(&mine[at], &first, 8);
        std::memcpy(&mine[at + 8], &count, 8);
        std::memcpy(&mine[at + 16], static_cast<const char*>(part.buffer.data()) + (first - part.first) * elem,
                    count * elem);
      }
      auto all = runtime::mpi::gatherAtZero(mine);
      if (rank_ != 0) continue;
      runtime::Buffer whole(t.dtype, t.shape);
      for (auto& bytes : all)
        for (size_t at = 0; at < bytes.size();) {
          int64_t first, count;
          std::memcpy(&first, &bytes[at], 8);
          std::memcpy(&count, &bytes[at + 8], 8);
          std::memcpy(static_cast<char*>(whole.data()) + first * elem, &bytes[at + 16], count * elem);
          at += 16 + count * elem;
        }
      out.emplace(name, std::move(whole));
    }
    return out;
  }

  // Each rank's iterations, exchanges (bytes predicted and moved) and memory, printed by rank 0.
  void report(std::ostream& err) {
    const ir::Program& p = c_.lowered;
    std::ostringstream os;
    std::string me = "rank " + std::to_string(rank_) + ": ";  // as INTERFACES.md spells it
    const auto& grid = p.distribution.grid;
    if (p.distribution.onGrid())
      os << me << "row " << rank_ / grid.cols << ", column " << rank_ % grid.cols << " of a grid of ranks " << grid.rows
         << "x" << grid.cols << "\n";
    for (size_t k = 0; k < p.distribution.loops.size(); ++k) {
      auto& l = p.distribution.loops[k];
      os << me << "distributed loop " << k + 1 << " '" << l.var << "' iterations [" << l.first(rank_) << ", " << l.last(rank_)
         << ") of [" << l.begin << ", " << l.end << ")\n";
    }
    auto* sent = static_cast<long*>(kernel_->symbol("teml_mpi_sent"));
    auto* received = static_cast<long*>(kernel_->symbol("teml_mpi_received"));
    auto* asked = static_cast<long*>(kernel_->symbol("teml_mpi_asked"));
    auto elem = lowering::elementBytes(p);
    for (auto& [exchange, times] : lowering::exchangeRuns(p)) {
      auto& x = *exchange;
      if (ir::movesNoRows(x.kind)) continue;
      auto [out, in] = lowering::exchangeBytes(x, elem.at(x.tensor), rank_);
      // An indexed gather's bytes, and a reduction to owners', are known at run time: the plan bounds them.
      bool inspected = x.kind == ir::ExchangeKind::IndexedGather;
      bool bounded = inspected || x.kind == ir::ExchangeKind::ReductionToOwners;
      os << me << ir::exchangeKindName(x.kind) << " of '" << x.tensor << "': " << (bounded ? "at most " : "predicted ")
         << out * times << " B sent, "
         << in * times << " B received" << (times == 1 ? "" : " (" + std::to_string(times) + " times)") << "; moved "
         << (sent ? sent[x.index] : 0) << " B sent, " << (received ? received[x.index] : 0) << " B received"
         << (x.kind == ir::ExchangeKind::Gather ? " (indices from data: replicated)"
             : inspected ? " (the rows its indices name, asked for " + std::to_string(asked ? asked[x.index] : 0) +
                               (asked && asked[x.index] == 1 ? " time)" : " times)")
             : bounded ? " (the rows it changed that other ranks own, each with its number)"
                       : "")
         << "\n";
    }
    for (auto& [name, file] : o_.inputs) {
      const Part& part = parts_.at(name);
      os << me << "input '" << name << "': read " << part.count * ir::bytes(p.find(name)->dtype) << " B of " << file
         << " (0 B moved between ranks)\n";
    }
    int64_t kept = 0, whole = 0;
    for (auto& t : p.tensors) {
      kept += parts_.at(t.name).count * ir::bytes(t.dtype);
      whole += t.elementCount() * ir::bytes(t.dtype);
    }
    struct rusage use {};
    getrusage(RUSAGE_SELF, &use);
    os << me << "keeps " << kept << " B of the program's tensors (" << whole << " B whole); peak resident "
       << std::fixed << std::setprecision(1) << use.ru_maxrss / 1024.0 << " MiB";
    if (int64_t temporaries = wholeTemporaries(p))
      os << "; its temporaries take up to " << temporaries
         << " B more (allocated whole; those stored before they are read are resident only where the rank touches them)";
    os << "\n";
    std::string text = os.str();
    auto all = runtime::mpi::gatherAtZero(std::vector<char>(text.begin(), text.end()));
    for (auto& lines : all) err << std::string(lines.begin(), lines.end());
  }

  int rank() const { return rank_; }

 private:
  // The bytes of the tensors a program defines outside its loops, on the
  // heap or the stack: every rank allocates them whole (Program::temporariesWrittenFirst
  // left unfilled, so the pages it never touches stay unmapped).
  static int64_t wholeTemporaries(const ir::Program& p) {
    int64_t total = 0;
    for (auto& n : p.nests) {
      std::function<void(const ir::StmtP&)> walk = [&](const ir::StmtP& s) {
        if (s->kind == ir::StmtKind::Seq)
          for (auto& item : s->as<ir::Seq>().stmts) walk(item);
        if (s->kind != ir::StmtKind::VarDef) return;
        auto& d = s->as<ir::VarDef>();
        if (d.decl.mem == ir::MemKind::Heap || d.decl.mem == ir::MemKind::Stack)
          total += d.decl.elementCount() * ir::bytes(d.decl.dtype);
        walk(d.body);
      };
      walk(n);
    }
    return total;
  }

  std::vector<std::pair<int64_t, int64_t>> resultRuns(const std::string& name) {
    const ir::TensorDecl& t = *c_.lowered.find(name);
    std::vector<std::pair<int64_t, int64_t>> runs;
    auto results = c_.lowered.distribution.results.find(name);
    if (results == c_.lowered.distribution.results.end()) {
      // Not written: the values it starts with. Every element is in some
      // rank's kept box (the planner gives rank 0 the ones no rank touches),
      // but rank 0 need not keep them all: each rank writes the elements of
      // its box that no rank before it keeps.
      auto& kept = c_.lowered.distribution.kept.at(name);
      std::vector<std::pair<int64_t, int64_t>> before;
      for (int r = 0; r < rank_; ++r)
        for (auto& run : runsOf(t.shape, kept[r])) before.push_back(run);
      return withoutRuns(runsOf(t.shape, kept[rank_]), std::move(before));
    }
    for (auto& b : results->second[rank_])
      for (auto& r : runsOf(t.shape, b)) runs.push_back(r);
    return runs;
  }

  Compiled& c_;
  const Options& o_;
  int rank_;
  std::unique_ptr<backend::Kernel> kernel_;
  std::map<std::string, Part> parts_, initial_;
};

}  // namespace

int runDistributed(Compiled& c, const Options& o, const std::vector<std::string>& shown,
                   const std::vector<std::string>& compared, std::ostream& out, std::ostream& err, double* runTime) {
  runtime::mpi::start();
  RankRun r(c, o);
  r.build();
  r.prepare(false);
  *runTime = r.run();
  c.stages.push_back({"run", *runTime});
  r.writeOutputs();
  std::vector<std::string> gathered;
  if (o.outputs.empty() || o.verify) gathered = o.verify ? compared : shown;
  runtime::BufferMap whole = r.gather(gathered);
  if (o.verbose) r.report(err);
  if (r.rank() != 0) return 0;
  if (o.outputs.empty())
    for (auto& name : shown) {
      const runtime::Buffer& b = whole.at(name);
      out << name << ": " << shapeText(*c.program.find(name)) << "  sum = " << std::setprecision(10) << b.sum()
          << "  max|x| = " << b.maxAbs() << "\n";
    }
  if (!o.verify) return 0;
  runtime::BufferMap initial = prepareBuffers(c.program, o);
  interp::run(c.program, initial);
  return compareWithInterpreter(c, whole, initial, compared, out);
}

int benchDistributed(Compiled& c, const Options& o, std::ostream& out, std::ostream& err) {
  runtime::mpi::start();
  RankRun r(c, o);
  r.build();
  r.prepare(true);
  double warm = r.run();
  int runs = o.runs;
  if (runs <= 0) runs = std::max(3, static_cast<int>(std::min(1000.0, 1.0 / std::max(warm, 1e-6))));
  runs = static_cast<int>(runtime::mpi::maxOver(runs));  // every rank the same count
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    r.restart();
    times.push_back(r.run());
  }
  std::sort(times.begin(), times.end());
  double median = times.size() % 2 ? times[times.size() / 2]
                                   : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
  if (o.verbose) r.report(err);
  if (r.rank() != 0) return 0;
  int ranks = c.lowered.distribution.ranks, threads = threadCount(o);
  if (o.json) {
    out << "{\"program\": \"" << c.displayName << "\", \"ranks\": " << ranks << ", \"threads\": " << threads
        << ", \"runs\": " << runs << ", \"min_s\": " << std::scientific << std::setprecision(6) << times.front()
        << ", \"median_s\": " << median << "}\n";
  } else {
    out << c.displayName << ": " << runs << " runs on " << ranks << " ranks of " << threads << " thread"
        << (threads == 1 ? "" : "s") << ", min " << std::fixed << std::setprecision(6) << times.front()
        << " s, median " << median << " s\n";
  }
  if (o.verbose) printStages(c, err);
  return 0;
}

}  // namespace teml::driver
