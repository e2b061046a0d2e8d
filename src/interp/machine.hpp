// The reference interpreter's machine, shared by interp/interpreter.cpp and
// the GPU emulator (interp/gpu_emulator.cpp). Internal to src/interp.
#pragma once
#include <cmath>
#include <functional>
#include <map>
#include <unordered_map>

#include "diag/diagnostics.hpp"
#include "ir/functor.hpp"
#include "ir/printer.hpp"
#include "ir/program.hpp"
#include "runtime/buffer.hpp"

namespace teml::interp::detail {

using namespace ir;

class Interpreter : StmtFunctor<void()> {
 public:
  Interpreter(const Program& p, runtime::BufferMap& b) : program_(p), buffers_(b) {}

  void exec(const StmtP& s) { dispatch(s); }

  // The buffer of a tensor a VarDef defines.
  struct Scoped {
    runtime::Buffer buffer;
    std::vector<int64_t> written;  // offsets to put back to the initial value
    bool inThread = false;         // a GPU thread's own (gpu/local): no other thread sees it
    std::vector<char> defined;     // shared memory: which elements some thread wrote (empty: not tracked)
  };

  // ---- The GPU emulator's hooks (interp/gpu_emulator).
  // Set on the interpreter of one GPU thread: its place in the grid, and
  // where each access to memory is reported.
  struct GpuThread;
  class GpuHooks {
   public:
    virtual ~GpuHooks() = default;
    // `unwritten`: a read of shared memory no thread has written.
    virtual void access(const GpuThread& thread, const runtime::Buffer& buf, int64_t offset, const std::string& tensor,
                        bool write, bool atomic, bool unwritten, const Stmt* stmt) = 0;
    virtual void barrier(const GpuThread& thread, const Barrier& b) = 0;  // waits for the block's other threads
    virtual Scoped* shared(const GpuThread& thread, const VarDef& v) = 0;  // the block's buffer of a gpu/shared tensor
  };
  struct GpuThread {
    int64_t block[3] = {0, 0, 0}, thread[3] = {0, 0, 0};
    int64_t id = 0, blockId = 0;  // linear, in the grid and of the block
    GpuHooks* hooks = nullptr;
    void* context = nullptr;  // the hooks' own (a coroutine)
  };
  const GpuThread* gpuThread = nullptr;
  // A thread starts with the host's iterators and tensors in scope.
  void inheritScope(const Interpreter& host) {
    for (auto& [name, slot] : host.env_)
      if (slot.bound) env_[name] = slot;
    locals_ = host.locals_;
    localStacks_.clear();
  }
  int64_t value(const ExprP& e) { return evalInt(e); }
  // An iterator of the host's, as a kernel's launch passes it.
  void bind(const std::string& var, int64_t v) { env_[var] = Slot{v, 1}; }
  bool inScope(const std::string& tensor) const {
    auto local = locals_.find(tensor);
    return (local != locals_.end() && !local->second.empty()) || buffers_.count(tensor);
  }
  // The buffer `tensor` names here: a tensor in scope, else the program's.
  runtime::Buffer& bufferNamed(const std::string& tensor) {
    auto local = locals_.find(tensor);
    if (local != locals_.end() && !local->second.empty()) return local->second.back()->buffer;
    // Not buffer(): its cache is keyed by the address of an IR string, and
    // a caller's name may be a temporary whose address another name reuses.
    auto it = buffers_.find(tensor);
    if (it == buffers_.end()) throw InternalError("interpreter: unknown tensor '" + tensor + "'");
    return it->second;
  }

 private:
  void visitFor(const For& f) override {
    if (f.loopKind.gpu() && gpuThread) return gpuLoop(f);  // else a loop like any other
    current_ = &f;
    int64_t b = evalInt(f.begin), e = evalInt(f.end);
    Slot& slot = env_[f.var];  // stays where it is: entries are never erased
    Slot saved = slot;
    ++slot.bound;
    for (int64_t i = b; f.step > 0 ? i < e : i > e; i += f.step) {
      slot.value = i;
      exec(f.body);
    }
    slot = saved;
  }
  // Values are computed in int64 or double and converted to the element
  // type on the way into memory, as C converts them.
  // A loop bound to a GPU scope, in a thread: the one iteration its block
  // or thread index chooses.
  void gpuLoop(const For& f) {
    int d = gpuDimension(f.loopKind.scope);
    int64_t index = f.loopKind.gpuBlocks() ? gpuThread->block[d] : gpuThread->thread[d];
    int64_t b = evalInt(f.begin), e = evalInt(f.end), i = b + index * f.step;
    if (f.step > 0 ? i >= e : i <= e) return;
    Slot& slot = env_[f.var];
    Slot saved = slot;
    slot.value = i;
    ++slot.bound;
    exec(f.body);
    slot = saved;
  }
  void visitStore(const Store& st) override {
    current_ = &st;
    auto [buf, off] = locate(st.tensor, st.indices, true);
    if (isIntegral(buf->dtype()) && st.value->isInt()) buf->setInt(off, evalInt(st.value));
    else buf->set(off, evalFloat(st.value));
  }
  void visitReduce(const Reduce& r) override {
    current_ = &r;
    atomic_ = r.atomic;
    auto [buf, off] = locate(r.tensor, r.indices, true);
    atomic_ = false;
    if (isIntegral(buf->dtype()) && r.value->isInt()) {
      int64_t v = evalInt(r.value), old = buf->getInt(off);
      switch (r.op) {
        case ReduceOp::Add: buf->setInt(off, old + v); break;
        case ReduceOp::Mul: buf->setInt(off, old * v); break;
        case ReduceOp::Max: buf->setInt(off, std::max(old, v)); break;
        case ReduceOp::Min: buf->setInt(off, std::min(old, v)); break;
      }
      return;
    }
    double v = evalFloat(r.value), old = buf->get(off);
    switch (r.op) {
      case ReduceOp::Add: buf->set(off, old + v); break;
      case ReduceOp::Mul: buf->set(off, old * v); break;
      case ReduceOp::Max: buf->set(off, std::fmax(old, v)); break;
      case ReduceOp::Min: buf->set(off, std::fmin(old, v)); break;
    }
  }
  void visitSeq(const Seq& q) override {
    for (auto& t : q.stmts) exec(t);
  }
  void visitLibCall(const LibCall& c) override { exec(c.reference); }
  void visitAssert(const Assert& a) override {
    current_ = &a;
    if (evalInt(a.cond)) {
      exec(a.body);
      return;
    }
    throw UserError(a.loc, assertionMessage(a.message, a.shown ? evalInt(a.shown) : 0));
  }
  // A fresh tensor each time; a loop-local one is the whole tensor, as its
  // indices are (code generation stores only the box an iteration touches).
  // Each VarDef keeps one buffer and puts back what a run wrote, so a loop
  // over it does not fill the whole tensor in every iteration.
  void visitBarrier(const Barrier& b) override {
    if (gpuThread) gpuThread->hooks->barrier(*gpuThread, b);  // elsewhere (the lowered program on the CPU's interpreter) nothing to wait for
  }
  // One process runs every iteration: it has every value an exchange would bring.
  void visitExchange(const Exchange&) override {}
  void visitVarDef(const VarDef& v) override {
    if (gpuThread && v.decl.mem == MemKind::GpuShared) {  // one buffer for the block's threads
      std::vector<Scoped*>& stack = stackOf(v);
      stack.push_back(gpuThread->hooks->shared(*gpuThread, v));
      exec(v.body);
      stack.pop_back();
      return;
    }
    double init = v.loopLocal ? v.loopLocal->init : 0;
    auto [it, fresh] = scoped_.try_emplace(&v, Scoped{runtime::Buffer(v.decl.dtype, v.decl.shape), {}, gpuThread != nullptr});
    Scoped& s = it->second;
    if (fresh && init != 0) s.buffer.fill(init);
    std::vector<Scoped*>& stack = stackOf(v);
    stack.push_back(&s);
    exec(v.body);
    stack.pop_back();
    for (int64_t off : s.written) s.buffer.set(off, init);
    s.written.clear();
  }
  void visitIf(const If& i) override {
    current_ = &i;
    if (evalInt(i.cond)) exec(i.then);
    else if (i.otherwise) exec(i.otherwise);
  }

 private:
  std::pair<runtime::Buffer*, int64_t> locate(const std::string& tensor, const std::vector<ExprP>& indices,
                                             bool write = false) {
    std::vector<Scoped*>* stack = localStack(tensor);
    Scoped* scoped = stack && !stack->empty() ? stack->back() : nullptr;
    runtime::Buffer& buf = scoped ? scoped->buffer : buffer(tensor);
    if (indices.size() != buf.shape().size())
      throw InternalError("interpreter: tensor '" + tensor + "' indexed with " +
                          std::to_string(indices.size()) + " indices");
    int64_t off = 0;
    for (size_t d = 0; d < indices.size(); ++d) {
      int64_t i = evalInt(indices[d]);
      if (i < 0 || i >= buf.shape()[d])
        throw InternalError("interpreter: out-of-bounds access to '" + tensor + "': index " +
                            toString(indices[d]) + " = " + std::to_string(i) + " in dimension " +
                            std::to_string(d + 1) + " of extent " + std::to_string(buf.shape()[d]));
      off = off * buf.shape()[d] + i;
    }
    if (scoped && write) scoped->written.push_back(off);
    if (gpuThread && !(scoped && scoped->inThread)) {
      bool unwritten = scoped && !scoped->defined.empty() && !write && !scoped->defined[off];
      if (scoped && !scoped->defined.empty() && write) scoped->defined[off] = 1;
      gpuThread->hooks->access(*gpuThread, buf, off, tensor, write, atomic_, unwritten, current_);
    }
    return {&buf, off};
  }

  // Integer and boolean values (ExprP::isInt), in int64; results of a
  // narrower type are wrapped to it.
  class IntValue : public ExprFunctor<int64_t()> {
   public:
    explicit IntValue(Interpreter& in) : in_(in) {}
    int64_t of(const ExprP& e) { return wrap(e->dtype, dispatch(e)); }

   private:
    static int64_t wrap(DType t, int64_t v) {
      if (t == DType::I32) return static_cast<int32_t>(v);
      if (t == DType::Bool) return v != 0;
      return v;
    }
    int64_t visitIntConst(const IntConst& c) override { return c.value; }
    int64_t visitVar(const Var& v) override {
      // Each Var node finds its slot once (a pointer hash instead of a string hash per use).
      auto cached = in_.varSlots_.find(&v);
      Slot* slot;
      if (cached != in_.varSlots_.end()) {
        slot = cached->second;
      } else {
        slot = &in_.env_[v.name];
        in_.varSlots_.emplace(&v, slot);
      }
      if (slot->bound == 0) throw InternalError("interpreter: unbound iterator '" + v.name + "'");
      return slot->value;
    }
    int64_t visitLoad(const Load& l) override {
      auto [buf, off] = in_.locate(l.tensor, l.indices);
      return buf->getInt(off);
    }
    int64_t visitBinary(const Binary& b) override {
      if (isComparison(b.op) && (!b.a->isInt() || !b.b->isInt())) {
        double x = in_.evalFloat(b.a), y = in_.evalFloat(b.b);
        return compareValues(b.op, x, y);
      }
      if (b.op == BinOp::And) return of(b.a) && of(b.b);  // short-circuit, as C
      if (b.op == BinOp::Or) return of(b.a) || of(b.b);
      std::optional<int64_t> v = integerValue(b.op, of(b.a), of(b.b));
      if (!v) throw InternalError("interpreter: integer division by zero");
      return *v;
    }
    int64_t visitUnary(const Unary& u) override {
      int64_t x = u.a->isInt() ? of(u.a) : 0;
      switch (u.op) {
        case UnaryOp::Neg: return -x;
        case UnaryOp::Abs: return x < 0 ? -x : x;
        case UnaryOp::Not: return u.a->isInt() ? !x : in_.evalFloat(u.a) == 0;
        default: throw InternalError(std::string("interpreter: ") + unaryOpName(u.op) + " does not give an integer");
      }
    }
    int64_t visitCast(const Cast& c) override {
      if (c.a->isInt()) return of(c.a);
      double v = in_.evalFloat(c.a);
      if (c.dtype == DType::Bool) return v != 0;
      if (!std::isfinite(v) || std::fabs(v) >= 9.2e18) throw InternalError("interpreter: cast of a value out of range");
      return static_cast<int64_t>(v);  // truncates, as C
    }
    int64_t visitSelect(const Select& s) override { return of(s.cond) ? of(s.a) : of(s.b); }
    int64_t visitFloatConst(const FloatConst&) override {
      throw InternalError("interpreter: a float constant typed as an integer");
    }

    Interpreter& in_;
  };

  // Float values, in double; float32 results are rounded to float.
  class FloatValue : public ExprFunctor<double()> {
   public:
    explicit FloatValue(Interpreter& in) : in_(in) {}
    double of(const ExprP& e) {
      if (e->isInt()) return static_cast<double>(in_.evalInt(e));
      double v = dispatch(e);
      return e->dtype == DType::F32 ? static_cast<float>(v) : v;
    }

   private:
    double visitFloatConst(const FloatConst& c) override { return c.value; }
    double visitLoad(const Load& l) override {
      auto [buf, off] = in_.locate(l.tensor, l.indices);
      return buf->get(off);
    }
    double visitBinary(const Binary& b) override {
      double x = of(b.a), y = of(b.b);
      switch (b.op) {
        case BinOp::Add: return x + y;
        case BinOp::Sub: return x - y;
        case BinOp::Mul: return x * y;
        case BinOp::Div: return x / y;
        case BinOp::FloorDiv: return std::floor(x / y);
        case BinOp::Mod: return x - std::floor(x / y) * y;
        case BinOp::Min: return y < x ? y : x;  // Python's min: the first unless the second is less
        case BinOp::Max: return y > x ? y : x;
        default: throw InternalError(std::string("interpreter: ") + binOpName(b.op) + " does not give a float");
      }
    }
    double visitUnary(const Unary& u) override {
      if (u.op == UnaryOp::Not) throw InternalError("interpreter: 'not' does not give a float");
      return applyUnary(u.op, of(u.a));
    }
    double visitCast(const Cast& c) override { return of(c.a); }
    double visitSelect(const Select& s) override { return in_.evalInt(s.cond) ? of(s.a) : of(s.b); }
    // Integer-typed nodes are evaluated by IntValue (see `of`).
    double visitIntConst(const IntConst& c) override { return static_cast<double>(c.value); }
    double visitVar(const Var&) override { throw InternalError("interpreter: an iterator typed as a float"); }

    Interpreter& in_;
  };

  int64_t evalInt(const ExprP& e) { return IntValue(*this).of(e); }
  double evalFloat(const ExprP& e) { return FloatValue(*this).of(e); }

  // A program tensor's buffer, found once per tensor name string of the IR.
  runtime::Buffer& buffer(const std::string& tensor) {
    auto cached = bufferOf_.find(&tensor);
    if (cached != bufferOf_.end()) return *cached->second;
    auto it = buffers_.find(tensor);
    if (it == buffers_.end()) throw InternalError("interpreter: unknown tensor '" + tensor + "'");
    bufferOf_.emplace(&tensor, &it->second);
    return it->second;
  }

  struct Slot {
    int64_t value = 0;
    int bound = 0;  // loops binding the iterator now (0: unbound)
  };

  const Program& program_;
  runtime::BufferMap& buffers_;
  std::unordered_map<std::string, Slot> env_;
  std::unordered_map<const Expr*, Slot*> varSlots_;
  std::unordered_map<const std::string*, runtime::Buffer*> bufferOf_;
  const Stmt* current_ = nullptr;  // the statement whose accesses are being made (for the emulator)
  bool atomic_ = false;
  std::map<const VarDef*, Scoped> scoped_;
  std::map<std::string, std::vector<Scoped*>> locals_;  // tensors of VarDefs in scope, innermost last
  // The entry of locals_ a name string of the IR finds (null: none), found
  // once per string instead of a string search per access; cleared when an
  // entry is added.
  std::unordered_map<const std::string*, std::vector<Scoped*>*> localStacks_;
  std::vector<Scoped*>* localStack(const std::string& tensor) {
    auto cached = localStacks_.find(&tensor);
    if (cached != localStacks_.end()) return cached->second;
    auto it = locals_.find(tensor);
    std::vector<Scoped*>* stack = it == locals_.end() ? nullptr : &it->second;
    localStacks_.emplace(&tensor, stack);
    return stack;
  }
  std::vector<Scoped*>& stackOf(const VarDef& v) {
    auto [it, added] = locals_.try_emplace(v.decl.name);
    if (added) localStacks_.clear();  // a name that found none may find this one now
    return it->second;
  }
};

}  // namespace teml::interp::detail
