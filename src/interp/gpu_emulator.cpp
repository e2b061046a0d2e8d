#include "interp/gpu_emulator.hpp"

#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <unordered_map>

#include "interp/machine.hpp"
#include "ir/mutator.hpp"

namespace teml::interp {

using detail::Interpreter;
using namespace ir;

namespace {

SourceLoc locOf(const Stmt* s) { return s ? sourceLocOf(s->self()) : SourceLoc{}; }

std::string triple(const int64_t v[3]) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
}

// A warp: 32 threads of consecutive linear ids in a block (every NVIDIA GPU's).
constexpr int64_t kWarpSize = 32;
// The warp of a kept touch that stands for touches of several warps not
// ordered among themselves: only a block barrier orders what follows.
constexpr int64_t kSeveralWarps = -2;

// One access to an element: by which thread (linear id) of which block and
// warp, between which two barriers of its block (epoch) and of its warp
// (warpEpoch: any barrier the warp passed), from which statement.
struct Touch {
  int64_t thread = -1, block = -1, epoch = 0, warp = -1, warpEpoch = 0;
  const Stmt* stmt = nullptr;
  bool atomic = false;
};

// An element's latest plain write, latest atomic updates (they commute
// with one another, not with a read or a plain write), and reads.
struct ElementLog {
  Touch writer, atomicWriter, reader, otherReader;
};

// A thread of a block with barriers: its interpreter runs on a stack of its
// own (ucontext), handing control back to the block at each barrier.
struct Coroutine {
  static constexpr size_t kStackBytes = 1 << 20;  // mapped lazily: untouched pages cost nothing
  ucontext_t context{};
  void* stack = nullptr;
  Interpreter* interpreter = nullptr;
  Interpreter::GpuThread place;
  const For* root = nullptr;
  ucontext_t* scheduler = nullptr;
  const Barrier* waiting = nullptr;  // the barrier it waits at
  bool done = false;
  std::exception_ptr failure;

  Coroutine() {
    stack = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (stack == MAP_FAILED) throw InternalError("emulator: no memory for a thread's stack");
  }
  ~Coroutine() { munmap(stack, kStackBytes); }
  Coroutine(const Coroutine&) = delete;
  Coroutine& operator=(const Coroutine&) = delete;

  void start(ucontext_t* back) {
    scheduler = back;
    done = false;
    waiting = nullptr;
    failure = nullptr;
    getcontext(&context);
    context.uc_stack.ss_sp = stack;
    context.uc_stack.ss_size = kStackBytes;
    context.uc_link = back;
    auto self = reinterpret_cast<uintptr_t>(this);
    makecontext(&context, reinterpret_cast<void (*)()>(&Coroutine::entry), 2, static_cast<unsigned>(self >> 32),
                static_cast<unsigned>(self & 0xffffffffu));
  }
  static void entry(unsigned high, unsigned low) {
    auto* c = reinterpret_cast<Coroutine*>((static_cast<uintptr_t>(high) << 32) | low);
    try {
      c->interpreter->exec(c->root->self());
    } catch (...) {
      c->failure = std::current_exception();  // exceptions do not cross contexts: rethrown by the block
    }
    c->done = true;
  }
  void resume() { swapcontext(scheduler, &context); }
  void wait(const Barrier& b) {
    waiting = &b;
    swapcontext(&context, scheduler);
    waiting = nullptr;
  }
};

class KernelRun : public Interpreter::GpuHooks {
 public:
  KernelRun(Interpreter& host, const For& root, const Program& program, runtime::BufferMap& buffers,
            std::set<std::string>& names, const int64_t grid[3])
      : host_(host), root_(root), program_(program), buffers_(buffers), names_(names) {
    for (int d = 0; d < 3; ++d) {
      grid_[d] = std::max<int64_t>(0, grid[d]);
      block_[d] = root.loopKind.kernel.blockDim[d];
    }
    forEachStmt(root.self(), [&](const StmtP& s) { barriers_ |= s->kind == StmtKind::Barrier; });
  }

  void run(int orders) {
    // The host interpreter finds a program tensor's buffer by the address
    // of the name string it is given (the IR's strings live as long as it
    // does): a name is passed as the copy in names_, which lives as long
    // as the host interpreter, so another string later allocated at the
    // same address (the next kernel's list of names) cannot find this
    // tensor's buffer. A temporary here made a kernel after another one
    // restore and compare the earlier kernel's tensor instead of its own:
    // its atomic updates ran once per order, unrestored.
    std::vector<const std::string*> written;
    for (auto& t : tensorsWritten(root_.self()))
      if (host_.inScope(t)) written.push_back(&*names_.insert(t).first);  // not a kernel's own tensor
    std::vector<runtime::Buffer> before, first;
    if (orders > 1)
      for (const std::string* t : written) before.push_back(host_.bufferNamed(*t));
    for (int order = 0; order < orders; ++order) {
      if (order > 0)
        for (size_t k = 0; k < written.size(); ++k) host_.bufferNamed(*written[k]) = before[k];
      runOnce(order);
      if (orders == 1) return;
      if (order == 0) {
        for (const std::string* t : written) first.push_back(host_.bufferNamed(*t));
        continue;
      }
      for (size_t k = 0; k < written.size(); ++k) {
        const runtime::Buffer& now = host_.bufferNamed(*written[k]);
        double tolerance = isIntegral(now.dtype()) ? 0 : now.dtype() == DType::F32 ? 1e-4 : 1e-9;
        if (runtime::maxRelativeDifference(now, first[k]) > tolerance)
          throw UserError(root_.made.loc, "kernel '" + root_.id + "' gives different values of '" + *written[k] +
                                              "' when its blocks and threads run in another order");
      }
    }
  }

 private:
  void runOnce(int order) {
    log_.clear();
    std::vector<int64_t> blocks(grid_[0] * grid_[1] * grid_[2]), threads(block_[0] * block_[1] * block_[2]);
    for (size_t k = 0; k < blocks.size(); ++k) blocks[k] = static_cast<int64_t>(k);
    for (size_t k = 0; k < threads.size(); ++k) threads[k] = static_cast<int64_t>(k);
    if (order == 1) {
      std::reverse(blocks.begin(), blocks.end());
      std::reverse(threads.begin(), threads.end());
    } else if (order >= 2) {
      std::mt19937 random(12345 + order);
      std::shuffle(blocks.begin(), blocks.end(), random);
      std::shuffle(threads.begin(), threads.end(), random);
    }
    shared_.clear();  // kept for the whole run: the race log names buffers by address
    for (int64_t b : blocks) {
      block_id_ = b;
      epoch_ = 0;
      warpEpoch_.assign(static_cast<size_t>((threads.size() + kWarpSize - 1) / kWarpSize), 0);
      if (barriers_) runBlockWithBarriers(b, threads);
      else
        for (int64_t t : threads) {  // one after another: one interpreter for all
          Interpreter& thread = interpreter(0);
          Interpreter::GpuThread place = placeOf(b, t, static_cast<int64_t>(threads.size()));
          thread.gpuThread = &place;
          thread.exec(root_.self());
        }
    }
  }

  // The k-th interpreter of the kernel's threads, with the host's iterators
  // and tensors in scope. Threads reuse them (a VarDef puts back what a run
  // wrote), so a thread costs no allocation.
  Interpreter& interpreter(size_t k) {
    while (pool_.size() <= k) {
      pool_.push_back(std::make_unique<Interpreter>(program_, buffers_));
      pool_.back()->inheritScope(host_);
    }
    return *pool_[k];
  }

  Interpreter::GpuThread placeOf(int64_t b, int64_t t, int64_t perBlock) {
    Interpreter::GpuThread place;
    unflatten(b, grid_, place.block);
    unflatten(t, block_, place.thread);
    place.id = b * perBlock + t;
    place.blockId = b;
    place.hooks = this;
    return place;
  }

  void access(const Interpreter::GpuThread& place, const runtime::Buffer& buf, int64_t off, const std::string& tensor,
              bool write, bool atomic, bool unwritten, const Stmt* stmt) override {
    if (unwritten)
      throw UserError(locOf(stmt), "a read of " + elementText(buf, off, tensor) + " in shared memory, which no thread of block " +
                                       triple(place.block) + " has written (" + placeText(place.id) + " reads it)");
    record(buf, off, tensor, write, atomic, stmt, place.id, place.blockId);
  }
  void barrier(const Interpreter::GpuThread& place, const Barrier& at) override {
    if (place.context) static_cast<Coroutine*>(place.context)->wait(at);
  }
  Interpreter::Scoped* shared(const Interpreter::GpuThread&, const VarDef& v) override { return sharedBuffer(v); }

  // The threads of block b take turns between barriers: each runs until it
  // waits at a barrier or finishes. A warp whose threads wait at a warp
  // barrier (__syncwarp) passes it when all of them wait at that one; else
  // all threads of the block must wait at the same block barrier (they pass
  // it together) or all have finished.
  void runBlockWithBarriers(int64_t b, const std::vector<int64_t>& order) {
    size_t n = order.size();
    if (coroutines_.size() < n)
      for (size_t k = coroutines_.size(); k < n; ++k) coroutines_.push_back(std::make_unique<Coroutine>());
    ucontext_t scheduler;
    std::vector<Coroutine*> threads(n);
    for (size_t k = 0; k < n; ++k) {
      int64_t t = order[k];
      Coroutine& c = *coroutines_[k];
      threads[k] = &c;
      c.interpreter = &interpreter(k);
      c.place = placeOf(b, t, static_cast<int64_t>(n));
      c.place.context = &c;
      c.interpreter->gpuThread = &c.place;
      c.root = &root_;
      c.start(&scheduler);
    }
    std::vector<Coroutine*> runnable = threads;
    while (true) {
      for (Coroutine* c : runnable) {
        c->resume();
        if (c->failure) std::rethrow_exception(c->failure);
      }
      runnable = passWarpBarriers(threads);
      if (!runnable.empty()) continue;
      const Coroutine* finished = nullptr;
      const Coroutine* waiting = nullptr;
      for (Coroutine* c : threads) (c->done ? finished : waiting) = c;
      if (!waiting) return;
      for (Coroutine* c : threads) {
        if (c->done || c->waiting != waiting->waiting)
          throw UserError(locOf(waiting->waiting),
                          "a barrier that not every thread of the block reaches: " + placeText(threadId(*waiting)) +
                              " waits here, and " + placeText(threadId(*c)) +
                              (c->done ? " has finished the kernel" : " waits at the barrier at line " +
                                                                          std::to_string(locOf(c->waiting).line)));
      }
      ++epoch_;  // all passed the barrier: what they did before it happens before what follows
      (void)finished;
      runnable = threads;
    }
  }

  // The threads of the warps whose threads all wait at one warp barrier,
  // each such warp's epoch advanced; a warp barrier that some of a warp's
  // threads do not reach is an error.
  std::vector<Coroutine*> passWarpBarriers(const std::vector<Coroutine*>& threads) {
    std::map<int64_t, std::vector<Coroutine*>> warps;
    for (Coroutine* c : threads) warps[warpOf(c->place.id)].push_back(c);
    std::vector<Coroutine*> passing;
    for (auto& [warp, members] : warps) {
      const Coroutine* at = nullptr;
      for (Coroutine* c : members)
        if (c->waiting && c->waiting->scope == BarrierScope::Warp) at = c;
      if (!at) continue;
      for (Coroutine* c : members)
        if (c->done || c->waiting != at->waiting)
          throw UserError(locOf(at->waiting),
                          "a warp barrier that not every thread of the warp reaches: " + placeText(threadId(*at)) +
                              " waits here, and " + placeText(threadId(*c)) +
                              (c->done ? " has finished the kernel" : " waits at the barrier at line " +
                                                                          std::to_string(locOf(c->waiting).line)));
      warpEpoch_[static_cast<size_t>(warp)] = ++warpClock_;
      passing.insert(passing.end(), members.begin(), members.end());
    }
    return passing;
  }

  int64_t warpOf(int64_t id) const { return id % (block_[0] * block_[1] * block_[2]) / kWarpSize; }

  int64_t threadId(const Coroutine& c) const {
    int64_t perBlock = block_[0] * block_[1] * block_[2];
    auto flat = [](const int64_t v[3], const int64_t dims[3]) { return v[0] + dims[0] * (v[1] + dims[1] * v[2]); };
    return flat(c.place.block, grid_) * perBlock + flat(c.place.thread, block_);
  }

  // A block's gpu/shared tensor: one buffer for its threads, filled with
  // poison (NaN; the largest integer), every element unwritten.
  Interpreter::Scoped* sharedBuffer(const VarDef& v) {
    auto it = shared_.find({&v, block_id_});
    if (it != shared_.end()) return it->second.get();
    auto s = std::make_unique<Interpreter::Scoped>(Interpreter::Scoped{runtime::Buffer(v.decl.dtype, v.decl.shape), {}, false, {}});
    if (isIntegral(v.decl.dtype)) {
      for (int64_t k = 0; k < s->buffer.size(); ++k) s->buffer.setInt(k, std::numeric_limits<int32_t>::max());
    } else {
      s->buffer.fill(std::numeric_limits<double>::quiet_NaN());
    }
    s->defined.assign(static_cast<size_t>(std::max<int64_t>(1, s->buffer.size())), 0);
    return shared_.emplace(std::make_pair(&v, block_id_), std::move(s)).first->second.get();
  }

  static void unflatten(int64_t k, const int64_t dims[3], int64_t out[3]) {
    out[0] = k % dims[0];
    out[1] = k / dims[0] % dims[1];
    out[2] = k / (dims[0] * dims[1]);
  }

  // An earlier touch happens before a later one: a barrier of their block
  // between them, or one of their warp.
  static bool orderedBefore(const Touch& a, const Touch& b) {
    return a.block == b.block && (a.epoch < b.epoch || (a.warp == b.warp && a.warp >= 0 && a.warpEpoch < b.warpEpoch));
  }
  // Two touches of one element race: different threads, at least one
  // writing, not both atomic, and not ordered by a barrier (different
  // blocks, or the same block between the same two barriers).
  static bool unordered(const Touch& a, const Touch& b) {
    return a.thread >= 0 && (a.thread != b.thread || a.warp == kSeveralWarps) && !orderedBefore(a, b);
  }
  // Keep the latest touch of a block: an earlier one is ordered before what
  // follows. Two that are not ordered (atomic updates, reads) by threads of
  // different warps are kept as one of several warps, which only a block
  // barrier orders before what follows: a warp barrier after one of them
  // does not order the other.
  static void keep(Touch& slot, const Touch& now) {
    if (slot.thread < 0 || (slot.thread == now.thread && slot.warp != kSeveralWarps) || orderedBefore(slot, now)) {
      slot = now;
    } else if (slot.warp != now.warp) {
      slot.warp = kSeveralWarps;
    }
  }

  void record(const runtime::Buffer& buf, int64_t off, const std::string& tensor, bool write, bool atomic,
              const Stmt* stmt, int64_t id, int64_t block) {
    ElementLog& e = logOf(buf)[static_cast<size_t>(off)];
    int64_t warp = warpOf(id);
    Touch now{id, block, epoch_, warp, warpEpoch_[static_cast<size_t>(warp)], stmt, atomic};
    if (write) {
      if (unordered(e.writer, now)) race(buf, off, tensor, e.writer, "writes", now, "writes");
      if (!atomic && unordered(e.atomicWriter, now)) race(buf, off, tensor, e.atomicWriter, "writes", now, "writes");
      for (const Touch* r : {&e.reader, &e.otherReader})
        if (unordered(*r, now)) race(buf, off, tensor, *r, "reads", now, "writes");
      if (atomic) {
        keep(e.atomicWriter, now);
      } else {
        keep(e.writer, now);
        e.atomicWriter = Touch{};  // ordered before this write, or a race above
      }
      return;
    }
    if (unordered(e.writer, now)) race(buf, off, tensor, e.writer, "writes", now, "reads");
    if (unordered(e.atomicWriter, now)) race(buf, off, tensor, e.atomicWriter, "writes", now, "reads");
    if (e.reader.thread < 0 || e.reader.thread == id || orderedBefore(e.reader, now)) keep(e.reader, now);
    else if (e.reader.thread != id) keep(e.otherReader, now);
  }

  std::vector<ElementLog>& logOf(const runtime::Buffer& buf) {
    auto [it, added] = log_.try_emplace(&buf);
    if (added) it->second.resize(static_cast<size_t>(std::max<int64_t>(1, buf.size())));
    return it->second;
  }

  std::string elementText(const runtime::Buffer& buf, int64_t off, const std::string& tensor) const {
    std::string element = tensor + "[";
    std::vector<int64_t> index(buf.shape().size());
    int64_t rest = off;
    for (size_t d = index.size(); d-- > 0;) {
      index[d] = rest % buf.shape()[d];
      rest /= buf.shape()[d];
    }
    for (size_t d = 0; d < index.size(); ++d) element += (d ? ", " : "") + std::to_string(index[d]);
    return element + "]";
  }

  [[noreturn]] void race(const runtime::Buffer& buf, int64_t off, const std::string& tensor, const Touch& before,
                         const char* did, const Touch& now, const char* does) {
    throw UserError(locOf(now.stmt), "data race on " + elementText(buf, off, tensor) + " in kernel '" + root_.id +
                                         "': the statement at line " + std::to_string(locOf(before.stmt).line) + " " +
                                         did + " it in " + placeText(before.thread) + ", and this statement " + does +
                                         " it in " + placeText(now.thread) + ", with no barrier between them" +
                                         (before.atomic || now.atomic ? " (only one of them atomic)" : ""));
  }

  std::string placeText(int64_t id) const {
    int64_t perBlock = block_[0] * block_[1] * block_[2], b[3], t[3];
    unflatten(id / perBlock, grid_, b);
    unflatten(id % perBlock, block_, t);
    return "thread " + triple(t) + " of block " + triple(b);
  }

  Interpreter& host_;
  const For& root_;
  const Program& program_;
  runtime::BufferMap& buffers_;
  std::set<std::string>& names_;  // names given to host_, as long-lived as it
  int64_t grid_[3] = {1, 1, 1}, block_[3] = {1, 1, 1};
  bool barriers_ = false;
  int64_t epoch_ = 0;
  std::vector<int64_t> warpEpoch_;  // per warp of the running block
  int64_t warpClock_ = 0;           // warp epochs only grow
  // Per buffer (by address: the program's, and each block's shared ones) the log of each element.
  std::unordered_map<const runtime::Buffer*, std::vector<ElementLog>> log_;
  std::map<std::pair<const VarDef*, int64_t>, std::unique_ptr<Interpreter::Scoped>> shared_;  // per block
  int64_t block_id_ = 0;
  std::vector<std::unique_ptr<Coroutine>> coroutines_;
  std::vector<std::unique_ptr<Interpreter>> pool_;
};

}  // namespace

void emulateKernel(const Program& lowered, const For& kernel, runtime::BufferMap& tensors,
                   const std::map<std::string, int64_t>& iterators, const int64_t grid[3], const EmulatorOptions& options) {
  if (kernel.loopKind.kernel.name.empty())
    throw InternalError("emulator: loop '" + kernel.var + "' is not a kernel");
  std::set<std::string> names;  // outlives host: it keys its buffers by these strings' addresses
  Interpreter host(lowered, tensors);
  for (auto& [v, value] : iterators) host.bind(v, value);
  KernelRun(host, kernel, lowered, tensors, names, grid).run(options.orders);
}

}  // namespace teml::interp
