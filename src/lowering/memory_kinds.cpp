#include "lowering/memory_kinds.hpp"

#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

class MemoryKinds : public Mutator {
 protected:
  StmtP mutateVarDef(const StmtP& s) override {
    auto& v = s->as<VarDef>();
    StmtP body = mutate(v.body);
    // A GPU's memory kinds (a program written for a GPU) are the CPU's choice here.
    if (v.decl.mem != MemKind::Auto && !isGpuMemory(v.decl.mem))
      return body == v.body ? s : std::make_shared<VarDef>(v.decl, body, v.loopLocal);
    TensorDecl decl = v.decl;
    int64_t size = std::max<int64_t>(1, decl.elementCount()) * bytes(decl.dtype);
    // A scalar of its own scope is a C variable: no fill in memory, which
    // would keep the C compiler from vectorizing the loop around it.
    if (decl.shape.empty() && !v.loopLocal) decl.mem = MemKind::Register;
    else decl.mem = size > kMaxStackBytes ? MemKind::Heap : MemKind::Stack;
    return std::make_shared<VarDef>(decl, body, v.loopLocal);
  }
};

}  // namespace

StmtP chooseMemoryKinds(const StmtP& nest) { return MemoryKinds().mutate(nest); }

}  // namespace teml::lowering
