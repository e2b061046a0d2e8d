#include "cache/directory.hpp"
#include "backend/cpu/size_generic_kernels.hpp"

#include <map>
#include <mutex>
#include <set>

#include "backend/cpu/c_emitter.hpp"
#include "diag/diagnostics.hpp"
#include "lowering/lower.hpp"
#include "runtime/size_generic_source.hpp"

namespace teml::backend {

namespace {

using BindFn = void (*)(const long* ints, const double* reals);

// One compiled generic kernel. Its sizes are variables of the loaded code,
// so runs with different values take turns.
class GenericKernel {
 public:
  GenericKernel(runtime::SizeGenericSource source, std::vector<std::string> seen, const runtime::JitOptions& jit,
                const std::vector<std::string>& libraries)
      : source_(std::move(source)), seen_(std::move(seen)), kernel_(source_.text, jit, libraries) {
    bind_ = reinterpret_cast<BindFn>(kernel_.symbol("teml_bind_sizes"));
    if (!bind_) throw InternalError("a size-generic kernel has no teml_bind_sizes");
  }
  const runtime::SizeGenericSource& source() const { return source_; }
  // The sources it was generalized from (the instance it was built for and the probes).
  const std::vector<std::string>& seen() const { return seen_; }
  const runtime::Kernel& kernel() const { return kernel_; }
  void run(std::vector<void*>& buffers, int threads, const runtime::SizeValues& values) const {
    std::lock_guard<std::mutex> lock(mutex_);
    bind_(values.ints.data(), values.reals.data());
    kernel_.run(buffers, threads, [&](const std::string& m) { return runtime::expandMessage(m, values); });
  }

 private:
  runtime::SizeGenericSource source_;
  std::vector<std::string> seen_;
  runtime::Kernel kernel_;
  BindFn bind_ = nullptr;
  mutable std::mutex mutex_;
};

// A program's kernel: the generic kernel and the values that make it this program's.
class GenericInstance : public Kernel {
 public:
  GenericInstance(std::shared_ptr<const GenericKernel> generic, runtime::SizeValues values, int threads,
                  bool compiledNow)
      : generic_(std::move(generic)), values_(std::move(values)), threads_(threads), compiledNow_(compiledNow) {}
  void run(std::vector<void*>& buffers, int threads) const override {
    generic_->run(buffers, threads > 0 ? threads : threads_, values_);
  }
  bool compiledNow() const override { return compiledNow_; }
  void* symbol(const std::string& name) const override { return generic_->kernel().symbol(name); }
  const std::vector<std::string>& notes() const override { return generic_->kernel().notes(); }
  const std::vector<std::string>& warnings() const override { return generic_->kernel().warnings(); }

 private:
  std::shared_ptr<const GenericKernel> generic_;
  runtime::SizeValues values_;
  int threads_;
  bool compiledNow_;
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::vector<std::shared_ptr<const GenericKernel>>> built;  // by compiler and key
  std::set<std::string> refused;  // keys whose generic C the compiler rejected
  // Sources compiled as they were (no probe: it would have cost too much),
  // by key: the next source of the key generalizes from them.
  std::map<std::string, std::vector<std::string>> compiledAsWritten;
};

constexpr size_t kMostSourcesKept = 4;

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::unique_ptr<Kernel> sizeGenericKernel(const std::string& source,
                                          const std::function<std::vector<std::string>()>& probes,
                                          const runtime::JitOptions& jit, const std::vector<std::string>& libraries,
                                          int threads) {
  std::string key = jit.cc + '\0' + jit.cflags + '\0' + jit.cacheDir + '\0';
  for (auto& l : libraries) key += l + ' ';
  key += '\0' + runtime::sizeGenericKey(source);
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.mutex);
  if (r.refused.count(key)) return nullptr;
  auto& built = r.built[key];
  for (auto& g : built)
    if (auto values = runtime::instanceValues(g->source(), source))
      return std::make_unique<GenericInstance>(g, std::move(*values), threads, false);
  // A new set of sizes that changed numerals the earlier ones kept: the
  // sources seen before tell the rest, with no new probe.
  std::vector<std::string> seen = built.empty() ? probes() : built.back()->seen();
  auto& asWritten = r.compiledAsWritten[key];
  seen.insert(seen.end(), asWritten.begin(), asWritten.end());
  std::optional<runtime::SizeGenericSource> generic = runtime::generalize(source, seen);
  if (!generic) {
    if (asWritten.size() < kMostSourcesKept) asWritten.push_back(source);
    return nullptr;
  }
  std::optional<runtime::SizeValues> values = runtime::instanceValues(*generic, source);
  if (!values) throw InternalError("a source is not an instance of its own generic form");
  seen.push_back(source);
  std::shared_ptr<const GenericKernel> g;
  // The C compiler runs unlocked, so that kernels of other keys (a
  // gradient's forward and backward passes) compile at once; the registry's
  // maps keep their entries' addresses meanwhile.
  lock.unlock();
  try {
    g = std::make_shared<const GenericKernel>(std::move(*generic), std::move(seen), jit, libraries);
  } catch (const InternalError&) {  // a varying numeral where C wants a constant: compile each size
    lock.lock();
    r.refused.insert(key);
    return nullptr;
  }
  lock.lock();
  built.push_back(g);
  return std::make_unique<GenericInstance>(g, std::move(*values), threads, g->kernel().compiledNow());
}

std::unique_ptr<Kernel> sizeGenericKernelFor(const ir::Program& scheduled, const target::Target& target,
                                             const std::function<std::vector<std::string>(const std::string&)>& probes,
                                             const runtime::JitOptions& jit) {
  ir::Program lowered = lowering::lower(scheduled, target, cache::analysisDirectory(jit.cacheDir));
  std::string c = codegen::emitC(lowered, target);
  auto generic = sizeGenericKernel(c, [&] { return probes(c); }, jit, codegen::linkFlags(lowered), target.threads);
  return generic ? std::move(generic) : backendFor(target)->build(lowered, jit);
}

}  // namespace teml::backend
