// set_mem_type(tensor, kind): where a tensor the nest defines lives
// (FreeTensor's set_mem_type): "gpu/shared", "gpu/local", "gpu/global",
// or "cpu" (the target's choice). Program tensors are the caller's and
// stay where they are. The CUDA lowering checks that the place fits the
// tensor's scope (lowering/cuda/gpu_memory_kinds).
#include "ir/mutator.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP setMemType(const StmtP& nest, const std::string& tensor, MemKind kind) {
  struct Set : Mutator {
    const std::string& tensor;
    MemKind kind;
    bool found = false;
    Set(const std::string& t, MemKind k) : tensor(t), kind(k) {}
    StmtP mutateVarDef(const StmtP& s) override {
      auto& v = s->as<VarDef>();
      StmtP body = mutate(v.body);
      if (v.decl.name != tensor) return body == v.body ? s : std::make_shared<VarDef>(v.decl, body, v.loopLocal, v.id, v.made);
      found = true;
      TensorDecl decl = v.decl;
      decl.mem = kind;
      return std::make_shared<VarDef>(decl, body, v.loopLocal, v.id, v.made);
    }
  } set(tensor, kind);
  StmtP out = set.mutate(nest);
  if (!set.found)
    throw ScheduleError("set_mem_type: no tensor '" + tensor +
                        "' is defined in this nest (a parameter lives where its caller put it)");
  return out;
}

}  // namespace teml::schedule
