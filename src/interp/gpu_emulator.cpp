#include "interp/gpu_emulator.hpp"

#include <algorithm>
#include <random>
#include <unordered_map>

#include "interp/machine.hpp"
#include "ir/mutator.hpp"

namespace teml::interp {

using detail::Interpreter;
using namespace ir;

namespace {

SourceLoc locOf(const Stmt* s) {
  if (!s) return {};
  if (s->kind == StmtKind::Store) return s->as<Store>().loc;
  if (s->kind == StmtKind::Reduce) return s->as<Reduce>().loc;
  if (s->kind == StmtKind::Assert) return s->as<Assert>().loc;
  return s->made.loc;
}

std::string triple(const int64_t v[3]) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
}

// One access to an element: by which thread (linear id), from which statement.
struct Touch {
  int64_t thread = -1;
  const Stmt* stmt = nullptr;
  bool atomic = false;
};

struct ElementLog {
  Touch writer, reader, otherReader;
};

struct ElementKey {
  const runtime::Buffer* buffer;
  int64_t offset;
  bool operator==(const ElementKey&) const = default;
};
struct ElementHash {
  size_t operator()(const ElementKey& k) const {
    return std::hash<const void*>()(k.buffer) * 31 + std::hash<int64_t>()(k.offset);
  }
};

class KernelRun {
 public:
  KernelRun(Interpreter& host, const For& root, const Program& program, runtime::BufferMap& buffers)
      : host_(host), root_(root), program_(program), buffers_(buffers) {
    const For* f = &root;
    while (true) {  // the grid: the trip counts of the loops bound to blockIdx
      int64_t b = host.value(f->begin), e = host.value(f->end);
      int64_t span = f->step > 0 ? e - b : b - e, step = std::abs(f->step);
      grid_[gpuDimension(f->loopKind.scope)] = span <= 0 ? 0 : (span + step - 1) / step;
      const StmtP& body = loopBody(*f);
      if (body->kind != StmtKind::For || !body->as<For>().loopKind.gpuBlocks()) break;
      f = &body->as<For>();
    }
    for (int d = 0; d < 3; ++d) block_[d] = root.loopKind.kernel.blockDim[d];
  }

  void run(int orders) {
    std::vector<std::string> written;
    for (auto& t : tensorsWritten(root_.self()))
      if (host_.inScope(t)) written.push_back(t);  // not a kernel's own tensor
    std::vector<runtime::Buffer> before, first;
    if (orders > 1)
      for (auto& t : written) before.push_back(host_.bufferNamed(t));
    for (int order = 0; order < orders; ++order) {
      if (order > 0)
        for (size_t k = 0; k < written.size(); ++k) host_.bufferNamed(written[k]) = before[k];
      runOnce(order);
      if (orders == 1) return;
      if (order == 0) {
        for (auto& t : written) first.push_back(host_.bufferNamed(t));
        continue;
      }
      for (size_t k = 0; k < written.size(); ++k) {
        const runtime::Buffer& now = host_.bufferNamed(written[k]);
        double tolerance = isIntegral(now.dtype()) ? 0 : now.dtype() == DType::F32 ? 1e-4 : 1e-9;
        if (runtime::maxRelativeDifference(now, first[k]) > tolerance)
          throw UserError(root_.made.loc, "kernel '" + root_.id + "' gives different values of '" + written[k] +
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
    for (int64_t b : blocks)
      for (int64_t t : threads) {
        Interpreter::GpuThread place;
        unflatten(b, grid_, place.block);
        unflatten(t, block_, place.thread);
        int64_t id = b * static_cast<int64_t>(threads.size()) + t;
        place.access = [&, id](const runtime::Buffer& buf, int64_t off, const std::string& tensor, bool write,
                               bool atomic, const Stmt* stmt) { record(buf, off, tensor, write, atomic, stmt, id); };
        Interpreter thread(program_, buffers_);
        thread.inheritScope(host_);
        thread.gpuThread = &place;
        thread.exec(root_.self());
      }
  }

  static void unflatten(int64_t k, const int64_t dims[3], int64_t out[3]) {
    out[0] = k % dims[0];
    out[1] = k / dims[0] % dims[1];
    out[2] = k / (dims[0] * dims[1]);
  }

  void record(const runtime::Buffer& buf, int64_t off, const std::string& tensor, bool write, bool atomic,
              const Stmt* stmt, int64_t id) {
    ElementLog& e = log_[ElementKey{&buf, off}];
    Touch now{id, stmt, atomic};
    if (write) {
      if (e.writer.thread >= 0 && e.writer.thread != id && !(atomic && e.writer.atomic))
        race(buf, off, tensor, e.writer, "writes", now, "writes");
      for (const Touch* r : {&e.reader, &e.otherReader})
        if (r->thread >= 0 && r->thread != id) race(buf, off, tensor, *r, "reads", now, "writes");
      if (e.writer.thread < 0 || !atomic) e.writer = now;
      return;
    }
    if (e.writer.thread >= 0 && e.writer.thread != id) race(buf, off, tensor, e.writer, "writes", now, "reads");
    if (e.reader.thread < 0) e.reader = now;
    else if (e.reader.thread != id && e.otherReader.thread < 0) e.otherReader = now;
  }

  [[noreturn]] void race(const runtime::Buffer& buf, int64_t off, const std::string& tensor, const Touch& before,
                         const char* did, const Touch& now, const char* does) {
    std::string element = tensor + "[";
    std::vector<int64_t> index(buf.shape().size());
    int64_t rest = off;
    for (size_t d = index.size(); d-- > 0;) {
      index[d] = rest % buf.shape()[d];
      rest /= buf.shape()[d];
    }
    for (size_t d = 0; d < index.size(); ++d) element += (d ? ", " : "") + std::to_string(index[d]);
    element += "]";
    throw UserError(locOf(now.stmt), "data race on " + element + " in kernel '" + root_.id + "': the statement at line " +
                                         std::to_string(locOf(before.stmt).line) + " " + did + " it in " +
                                         placeText(before.thread) + ", and this statement " + does + " it in " +
                                         placeText(now.thread) + ", with no barrier between them" +
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
  int64_t grid_[3] = {1, 1, 1}, block_[3] = {1, 1, 1};
  std::unordered_map<ElementKey, ElementLog, ElementHash> log_;
};

}  // namespace

void emulate(const Program& lowered, runtime::BufferMap& buffers, const EmulatorOptions& options) {
  for (auto& nest : lowered.nests) {
    Interpreter host(lowered, buffers);
    host.onKernel = [&](Interpreter& in, const For& root) {
      if (root.loopKind.kernel.name.empty())
        throw InternalError("emulator: loop '" + root.var + "' is bound to a GPU outside every kernel");
      KernelRun(in, root, lowered, buffers).run(options.orders);
    };
    host.exec(nest);
  }
}

}  // namespace teml::interp
