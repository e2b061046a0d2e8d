// Each kernel's launch, decided once: its C name, its grid (the trip counts
// of its loops bound to blockIdx, as expressions of the host) and its
// arguments (the tensors it reads or writes that live outside it, then the
// host's iterators it reads). Written on the kernel's plan after every
// other CUDA pass; the emitter, the host runner and the emulator read it
// and work out nothing of a launch themselves, as Halide's OffloadGPULoops
// and TVM's LowerDeviceKernelLaunch leave the launch in the IR.
#include <cctype>

#include "ir/mutator.hpp"
#include "lowering/cuda/cuda_passes.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

// Iterations of `f` as an expression, never negative.
ExprP tripCount(const For& f) {
  ExprP span = f.step > 0 ? sub(f.end, f.begin) : sub(f.begin, f.end);
  int64_t step = f.step > 0 ? f.step : -f.step;
  ExprP n = step == 1 ? span : floorDiv(add(span, intConst(step - 1)), intConst(step));
  return max(intConst(0), n);
}

std::set<std::string> iteratorsRead(const StmtP& s) {
  std::set<std::string> out;
  forEachExprIn(s, [&](const ExprP& e) {
    if (e->kind == ExprKind::Var) out.insert(e->as<Var>().name);
  });
  return out;
}

std::string cSafe(const std::string& id) {
  std::string out;
  for (char c : id) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

class Launches : public Mutator {
 public:
  Launches(size_t nest, const Program& program) : nest_(nest) {
    for (auto& t : program.tensors) tensors_.insert(t.name);
  }

 private:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    if (!f.loopKind.kernel.name.empty()) return launch(f);
    iterators_.push_back(f.var);
    StmtP out = Mutator::mutateFor(s);
    iterators_.pop_back();
    return out;
  }
  StmtP mutateVarDef(const StmtP& s) override {
    const std::string& name = s->as<VarDef>().decl.name;
    bool fresh = tensors_.insert(name).second;
    StmtP out = Mutator::mutateVarDef(s);
    if (fresh) tensors_.erase(name);
    return out;
  }

  StmtP launch(const For& root) {
    LoopKind kind = root.loopKind;
    GpuKernelPlan& plan = kind.kernel;
    plan.symbol = "teml_k" + std::to_string(nest_ + 1) + "_" + cSafe(root.id);
    for (auto& g : plan.grid) g = intConst(1);
    for (const For* f = &root;;) {
      plan.grid[gpuDimension(f->loopKind.scope)] = tripCount(*f);
      const StmtP& body = loopBody(*f);
      if (body->kind != StmtKind::For || !body->as<For>().loopKind.gpuBlocks()) break;
      f = &body->as<For>();
    }
    plan.tensorArgs.clear();
    for (auto& t : tensorsAccessed(root.self()))
      if (tensors_.count(t)) plan.tensorArgs.push_back(t);
    plan.scalarArgs.clear();
    std::set<std::string> read = iteratorsRead(root.self());
    for (auto& v : std::set<std::string>(iterators_.begin(), iterators_.end()))
      if (read.count(v)) plan.scalarArgs.push_back(v);
    return std::make_shared<For>(root.id, root.var, root.begin, root.end, root.step, kind, root.body, root.made);
  }

  size_t nest_;
  std::set<std::string> tensors_;       // the program's and the host's, in scope
  std::vector<std::string> iterators_;  // the host's loops around
};

}  // namespace

StmtP planLaunches(const StmtP& nest, const Program& program, const target::Target&) {
  // Kernel names carry the nest's number: statement ids are unique within a nest only.
  size_t k = 0;
  while (k < program.nests.size() && program.nests[k] != nest) ++k;
  if (k == program.nests.size()) throw InternalError("gpu_launches: a nest that is not the program's");
  return Launches(k, program).mutate(nest);
}

}  // namespace teml::lowering
