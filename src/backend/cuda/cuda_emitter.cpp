#include "backend/cuda/cuda_emitter.hpp"

#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "backend/cuda/cuda_host_interface.hpp"
#include "backend/cuda/cuda_prelude.hpp"
#include "codegen/c_expr.hpp"
#include "codegen/c_names.hpp"
#include "codegen/c_text.hpp"
#include "diag/diagnostics.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"

namespace teml::codegen {

using namespace ir;

namespace {

const char* dims[] = {"x", "y", "z"};

std::string indent(int n) { return std::string(2 * n, ' '); }

// The number of iterations of `f` as a C expression.
std::string tripText(const For& f, const CExprNames& names) {
  std::string b = cExpr(f.begin, names), e = cExpr(f.end, names);
  if (f.step == 1) return "(" + e + ") - (" + b + ")";
  if (f.step > 0) return "((" + e + ") - (" + b + ") + " + std::to_string(f.step - 1) + ") / " + std::to_string(f.step);
  return "((" + b + ") - (" + e + ") + " + std::to_string(-f.step - 1) + ") / " + std::to_string(-f.step);
}

struct TensorName {
  std::string cname;
  const TensorDecl* decl;
};

// Names shared by the device and the host code of one nest.
class Scope {
 public:
  std::map<std::string, std::string> iterators;  // IR iterator -> C name
  std::map<std::string, TensorName> tensors;     // IR tensor -> C name and declaration
  CNames names;

  CExprNames exprNames() {
    return CExprNames{[this](const std::string& v) {
                        auto it = iterators.find(v);
                        if (it == iterators.end()) throw InternalError("cuda emitter: unbound iterator '" + v + "'");
                        return it->second;
                      },
                      [this](const std::string& t, const std::vector<ExprP>& idx) { return element(t, idx); }};
  }
  std::string element(const std::string& tensor, const std::vector<ExprP>& idx) {
    auto it = tensors.find(tensor);
    if (it == tensors.end()) throw InternalError("cuda emitter: unknown tensor '" + tensor + "'");
    const TensorDecl& d = *it->second.decl;
    std::string linear;
    for (size_t k = 0; k < idx.size(); ++k) {
      std::string i = cExpr(idx[k], exprNames());
      linear = linear.empty() ? i : "(" + linear + ") * " + std::to_string(d.shape[k]) + " + (" + i + ")";
    }
    return it->second.cname + "[" + (linear.empty() ? "0" : linear) + "]";
  }
};

const char* elementCType(DType t) { return t == DType::Bool ? "unsigned char" : cType(t); }

// One kernel: its outermost loop and everything inside, as a __global__ function.
class KernelPrinter : StmtFunctor<void(int, std::ostream&)> {
 public:
  KernelPrinter(Scope& host, const For& root, const std::string& name, std::vector<std::string>& messages)
      : host_(host), root_(root), name_(name), messages_(messages) {}

  // The function, and its arguments for the launch (C names of the host),
  // as the kernel's plan lists them.
  std::string print(std::vector<std::string>& args) {
    Scope& s = scope_;
    std::string params;
    const GpuKernelPlan& plan = root_.loopKind.kernel;
    auto written = tensorsWritten(root_.self());
    for (auto& t : plan.tensorArgs) {
      const TensorName& n = host_.tensors.at(t);
      s.tensors[t] = TensorName{s.names.claim(t), n.decl};
      // __restrict__ only where the kernel never writes: on a written tensor
      // nvcc moves a thread's loads above the barrier that orders them after
      // another thread's store (seen on an H200, tests/cuda/08).
      std::string pointer = written.count(t) ? std::string(elementCType(n.decl->dtype)) + " *"
                                             : std::string("const ") + elementCType(n.decl->dtype) + " *__restrict__ ";
      params += std::string(params.empty() ? "" : ", ") + pointer + s.tensors[t].cname;
      args.push_back(n.cname);
    }
    for (auto& v : plan.scalarArgs) {
      s.iterators[v] = s.names.claim(v);
      params += std::string(params.empty() ? "" : ", ") + "long " + s.iterators[v];
      args.push_back(host_.iterators.at(v));
    }
    int64_t threads = plan.blockDim[0] * plan.blockDim[1] * plan.blockDim[2];
    std::ostringstream os;
    os << "extern \"C\" __global__ void __launch_bounds__(" << threads << ") " << name_ << "(" << params << ") {\n";
    if (plan.dynamicShared) os << "  extern __shared__ unsigned char teml_shared[];\n";
    stmt(root_.self(), 1, os);
    os << "}\n\n";
    return os.str();
  }

 private:
  void stmt(const StmtP& st, int n, std::ostream& os) { dispatch(st, n, os); }

  void visitFor(const For& node, int n, std::ostream& os) override {
    const StmtP st = node.self();
    Scope& s = scope_;
    auto names = s.exprNames();
    std::string pad = indent(n);
    auto& f = st->as<For>();
    std::string v = s.names.claim(f.var);
    s.iterators[f.var] = v;
    if (f.loopKind.gpu()) {
      int d = gpuDimension(f.loopKind.scope);
      std::string index = std::string(f.loopKind.gpuBlocks() ? "blockIdx." : "threadIdx.") + dims[d];
      os << pad << "{  /* " << f.id << ": " << parallelScopeName(f.loopKind.scope) << " */\n";
      os << pad << "  const long " << v << " = " << cExpr(f.begin, names) << " + (long)" << index << " * "
         << f.step << ";\n";
      // Threads past the loop's count skip it (none where it has one iteration per thread).
      int64_t b = 0, e = 0;
      bool exact = constValue(f.begin, &b) && constValue(f.end, &e) && f.step == 1 &&
                   e - b == root_.loopKind.kernel.blockDim[d];
      bool guard = f.loopKind.gpuThreads() && !exact;
      bool outerLevel = warpLevel_;
      // Every lane of every warp runs this body (a warp's lanes share y and z).
      warpLevel_ = f.loopKind.gpuThreads() && exact && d == 0 && root_.loopKind.kernel.blockDim[0] % kWarpSize == 0;
      if (guard) os << pad << "  if ((long)" << index << " < " << tripText(f, names) << ") {\n";
      stmt(f.body, n + (guard ? 2 : 1), os);
      if (guard) os << pad << "  }\n";
      os << pad << "}\n";
      warpLevel_ = outerLevel;
    } else {
      os << pad << "for (long " << v << " = " << cExpr(f.begin, names) << "; " << v << (f.step > 0 ? " < " : " > ")
         << cExpr(f.end, names) << "; " << v << " += " << f.step << ") {\n";
      bool outerLevel = std::exchange(warpLevel_, false);
      stmt(f.body, n + 1, os);
      warpLevel_ = outerLevel;
      os << pad << "}\n";
    }
    s.iterators.erase(f.var);
    s.names.release(v);
  }

  void visitStore(const Store& node, int n, std::ostream& os) override {
    const StmtP st = node.self();
    Scope& s = scope_;
    auto names = s.exprNames();
    std::string pad = indent(n);
    auto& w = st->as<Store>();
    const TensorDecl& d = *s.tensors.at(w.tensor).decl;
    os << pad << s.element(w.tensor, w.indices) << " = (" << elementCType(d.dtype) << ")("
       << cExpr(w.value, names, 0, false, d.dtype == DType::F32) << ");\n";
  }

  void visitReduce(const Reduce& node, int n, std::ostream& os) override {
    const StmtP st = node.self();
    Scope& s = scope_;
    auto names = s.exprNames();
    std::string pad = indent(n);
    auto& r = st->as<Reduce>();
    const TensorDecl& d = *s.tensors.at(r.tensor).decl;
    bool f32 = d.dtype == DType::F32, ints = isIntegral(d.dtype);
    std::string e = s.element(r.tensor, r.indices), v = cExpr(r.value, names, 0, false, f32);
    std::string typed = "(" + std::string(ints ? "long" : cType(d.dtype)) + ")(" + v + ")";
    if (r.atomic) {
      if (r.op == ReduceOp::Add) os << pad << "teml_atomic_add(&" << e << ", " << typed << ");\n";
      else os << pad << "teml_atomic(" << (r.op == ReduceOp::Mul ? 1 : r.op == ReduceOp::Max ? 2 : 3) << ", &" << e << ", " << typed << ");\n";
      return;
    }
    switch (r.op) {
      case ReduceOp::Add: os << pad << e << " += " << v << ";\n"; return;
      case ReduceOp::Mul: os << pad << e << " *= " << v << ";\n"; return;
      case ReduceOp::Max:
      case ReduceOp::Min: {
        std::string fn = ints ? (r.op == ReduceOp::Max ? "teml_max" : "teml_min")
                              : std::string(r.op == ReduceOp::Max ? "fmax" : "fmin") + (f32 ? "f" : "");
        os << pad << e << " = " << fn << "(" << e << ", " << typed << ");\n";
        return;
      }
    }
  }

  void visitSeq(const Seq& node, int n, std::ostream& os) override {
    const StmtP st = node.self();
    bool diverged = false;  // lanes may have left a loop or branch apart: their atomics would not fold
    for (auto& t : st->as<Seq>().stmts) {
      if (warpLevel_ && diverged && hasAtomic(t)) {
        os << indent(n) << "__syncwarp();  /* the warp's lanes together again before their atomics */\n";
        diverged = false;
      }
      diverged = diverged || hasControl(t);
      stmt(t, n, os);
    }
  }
  static bool hasAtomic(const StmtP& s) {
    bool found = false;
    forEachStmt(s, [&](const StmtP& t) { found = found || (t->kind == StmtKind::Reduce && t->as<Reduce>().atomic); });
    return found;
  }
  static bool hasControl(const StmtP& s) {
    bool found = false;
    forEachStmt(s, [&](const StmtP& t) {
      found = found || t->kind == StmtKind::For || t->kind == StmtKind::If || t->kind == StmtKind::Assert;
    });
    return found;
  }

  void visitIf(const If& node, int n, std::ostream& os) override {
    const StmtP st = node.self();
    Scope& s = scope_;
    auto names = s.exprNames();
    std::string pad = indent(n);
    auto& i = st->as<If>();
    os << pad << "if (" << cExpr(i.cond, names) << ") {\n";
    bool outerLevel = std::exchange(warpLevel_, false);  // lanes may differ on the condition
    stmt(i.then, n + 1, os);
    if (i.otherwise) {
      os << pad << "} else {\n";
      stmt(i.otherwise, n + 1, os);
    }
    warpLevel_ = outerLevel;
    os << pad << "}\n";
  }

  void visitLibCall(const LibCall& node, int n, std::ostream& os) override {
    const StmtP st = node.self();
    return stmt(st->as<LibCall>().reference, n, os);
  }

  void visitVarDef(const VarDef& node, int n, std::ostream& os) override {
    const StmtP st = node.self();
    Scope& s = scope_;
    auto names = s.exprNames();
    std::string pad = indent(n);
    auto& v = st->as<VarDef>();
    const TensorDecl& d = v.decl;
    std::string c = s.names.claim(d.name);
    s.tensors[d.name] = TensorName{c, &d};
    int64_t count = std::max<int64_t>(1, d.elementCount());
    const char* type = elementCType(d.dtype);
    if (d.mem == MemKind::GpuShared) {
      if (root_.loopKind.kernel.dynamicShared)
        os << pad << type << " *" << c << " = (" << type << " *)(teml_shared + " << sharedOffset_ << ");\n";
      else
        os << pad << "__shared__ " << type << " " << c << "[" << count << "];\n";
      sharedOffset_ += count * bytes(d.dtype);
    } else {
      os << pad << type << " " << c << "[" << count << "];\n";
    }
    bool filled = (v.loopLocal && v.loopLocal->writtenBeforeRead) || d.mem == MemKind::GpuShared;  // shared: filled in the IR
    if (!filled) {
      double init = v.loopLocal ? v.loopLocal->init : 0;
      os << pad << "for (long teml_e = 0; teml_e < " << count << "; teml_e++) " << c << "[teml_e] = ("
         << type << ")" << floatLiteral(init, d.dtype == DType::F32) << ";\n";
    }
    stmt(v.body, n, os);
    s.tensors.erase(d.name);
    s.names.release(c);
  }

  void visitAssert(const Assert& node, int n, std::ostream& os) override {
    const StmtP st = node.self();
    Scope& s = scope_;
    auto names = s.exprNames();
    std::string pad = indent(n);
    auto& a = st->as<Assert>();
    messages_.push_back(a.message);
    os << pad << "if (" << cExpr(a.cond, names) << ") {\n";
    bool outerLevel = std::exchange(warpLevel_, false);
    stmt(a.body, n + 1, os);
    warpLevel_ = outerLevel;
    os << pad << "} else {\n"
       << pad << "  teml_fail(" << a.loc.line << ", " << a.loc.col << ", " << messages_.size() - 1 << ", "
       << (a.shown ? "(long long)(" + cExpr(a.shown, names) + ")" : std::string("0")) << ");\n"
       << pad << "}\n";
  }

  void visitExchange(const Exchange&, int, std::ostream&) override {
    throw InternalError("cuda emitter: an MPI exchange in a kernel");
  }
  void visitBarrier(const Barrier& node, int n, std::ostream& os) override {
    const StmtP st = node.self();
    std::string pad = indent(n);
    os << pad << (st->as<Barrier>().scope == BarrierScope::Warp ? "__syncwarp();\n" : "__syncthreads();\n");
  }

  static constexpr int64_t kWarpSize = 32;
  bool warpLevel_ = false;  // in the body of a thread loop that every lane of each warp runs
  Scope& host_;
  Scope scope_;
  const For& root_;
  std::string name_;
  std::vector<std::string>& messages_;
  int64_t sharedOffset_ = 0;
};

// The host code of one nest: loops and branches around kernel launches,
// tensors in global memory between kernels.
class HostPrinter : StmtFunctor<void(int)> {
 public:
  HostPrinter(size_t nest, Scope& scope, std::ostream& kernels, std::ostream& host, std::vector<std::string>& messages)
      : nest_(nest), s_(scope), kernels_(kernels), host_(host), messages_(messages) {}

  void stmt(const StmtP& st, int n) { dispatch(st, n); }

  void visitFor(const For& node, int n) override {
    const StmtP st = node.self();
    auto names = s_.exprNames();
    std::string pad = indent(n);
    auto& f = st->as<For>();
    if (!f.loopKind.kernel.name.empty()) return launch(f, n);
    std::string v = s_.names.claim(f.var);
    s_.iterators[f.var] = v;
    host_ << pad << "for (long " << v << " = " << cExpr(f.begin, names) << "; " << v << (f.step > 0 ? " < " : " > ")
          << cExpr(f.end, names) << "; " << v << " += " << f.step << ") {\n";
    stmt(f.body, n + 1);
    host_ << pad << "}\n";
    s_.iterators.erase(f.var);
    s_.names.release(v);
  }

  void visitStore(const Store& node, int n) override {
    throw InternalError("cuda emitter: a statement of the host outside every kernel (gpu_kernels wraps them)");
  }

  void visitReduce(const Reduce& node, int n) override {
    throw InternalError("cuda emitter: a statement of the host outside every kernel (gpu_kernels wraps them)");
  }

  void visitSeq(const Seq& node, int n) override {
    const StmtP st = node.self();
    for (auto& t : st->as<Seq>().stmts) stmt(t, n);
  }

  void visitIf(const If& node, int n) override {
    const StmtP st = node.self();
    auto names = s_.exprNames();
    std::string pad = indent(n);
    auto& i = st->as<If>();
    host_ << pad << "if (" << cExpr(i.cond, names) << ") {\n";
    stmt(i.then, n + 1);
    if (i.otherwise) {
      host_ << pad << "} else {\n";
      stmt(i.otherwise, n + 1);
    }
    host_ << pad << "}\n";
  }

  // A matrix product as_lib made: row-major C += op(A) op(B), which the
  // runtime hands to cuBLAS (runtime/cublas.cpp).
  void visitLibCall(const LibCall& node, int n) override {
    auto& c = node.self()->as<LibCall>();
    if (c.routine != "gemm" || c.tensors.size() != 3 || c.args.size() != 8)
      throw InternalError("cuda emitter: unknown library call " + c.routine);
    bool single = s_.tensors.at(c.tensors[0]).decl->dtype == DType::F32;
    auto a = [&](int k) { return std::to_string(c.args[k]); };
    auto t = [&](int k) { return s_.tensors.at(c.tensors[k]).cname; };
    host_ << indent(n) << "if (teml_host->gemm(teml_host->context, " << single << ", " << a(0) << ", " << a(1) << ", "
          << a(2) << ", " << a(3) << ", " << a(4) << ", " << t(1) << ", " << a(5) << ", " << t(2) << ", " << a(6) << ", "
          << t(0) << ", " << a(7) << "))\n"
          << indent(n) << "  return 1;\n";
  }

  void visitVarDef(const VarDef& node, int n) override {
    const StmtP st = node.self();
    auto names = s_.exprNames();
    std::string pad = indent(n);
    auto& v = st->as<VarDef>();
    std::string c = s_.names.claim(v.decl.name);
    auto outer = s_.tensors.find(v.decl.name);  // a tensor of that name the definition hides
    std::optional<TensorName> hidden;
    if (outer != s_.tensors.end()) hidden = outer->second;
    s_.tensors[v.decl.name] = TensorName{c, &v.decl};
    const char* type = elementCType(v.decl.dtype);
    int64_t size = std::max<int64_t>(1, v.decl.elementCount()) * bytes(v.decl.dtype);
    // A C block of its own: another nest's tensor may take the same name.
    host_ << pad << "{\n"
          << pad << "  " << type << " *" << c << " = (" << type << " *)teml_host->allocate(teml_host->context, "
          << cString(backend::hostTensorKey(v.decl.name, nest_, v.id)) << ", " << size << ");  /* gpu/global, zeros */\n"
          << pad << "  if (!" << c << ") return 1;\n";
    stmt(v.body, n + 1);
    host_ << pad << "  teml_host->release(teml_host->context, " << c << ");\n"
          << pad << "}\n";
    if (hidden) s_.tensors[v.decl.name] = *hidden;
    else s_.tensors.erase(v.decl.name);
    s_.names.release(c);
  }

  void visitAssert(const Assert& node, int n) override {
    const StmtP st = node.self();
    auto names = s_.exprNames();
    std::string pad = indent(n);
    auto& a = st->as<Assert>();
    host_ << pad << "if (!(" << cExpr(a.cond, names) << ")) return teml_host->fail(teml_host->context, " << a.loc.line
          << ", " << a.loc.col << ", " << cString(a.message) << ", " << (a.shown ? "(long)(" + cExpr(a.shown, names) + ")" : "0")
          << ");\n";
    return stmt(a.body, n);
  }

  void visitExchange(const Exchange&, int) override {
    throw InternalError("cuda emitter: an MPI exchange on the CUDA target");
  }
  void visitBarrier(const Barrier& node, int n) override {
    throw InternalError("cuda emitter: a statement of the host outside every kernel (gpu_kernels wraps them)");
  }

 private:
  // The launch as the kernel's plan has it; a grid of no block launches nothing.
  void launch(const For& root, int n) {
    const GpuKernelPlan& plan = root.loopKind.kernel;
    if (plan.symbol.empty()) throw InternalError("cuda emitter: kernel '" + root.id + "' has no launch (gpu_launches)");
    std::vector<std::string> args;
    kernels_ << KernelPrinter(s_, root, plan.symbol, messages_).print(args);
    auto names = s_.exprNames();
    std::string pad = indent(n);
    host_ << pad << "{\n"
          << pad << "  const long teml_grid[3] = {" << cExpr(plan.grid[0], names) << ", " << cExpr(plan.grid[1], names)
          << ", " << cExpr(plan.grid[2], names) << "};\n"
          << pad << "  const long teml_block[3] = {" << plan.blockDim[0] << ", " << plan.blockDim[1] << ", "
          << plan.blockDim[2] << "};\n"
          << pad << "  void *teml_args[" << std::max<size_t>(1, args.size()) << "] = {";
    for (size_t k = 0; k < args.size(); ++k) host_ << (k ? ", " : "") << "&" << args[k];
    host_ << (args.empty() ? "0" : "") << "};\n"
          << pad << "  if (teml_grid[0] > 0 && teml_grid[1] > 0 && teml_grid[2] > 0 &&\n"
          << pad << "      teml_host->launch(teml_host->context, \"" << plan.symbol << "\", teml_grid, teml_block, "
          << (plan.dynamicShared ? plan.sharedBytes : 0) << ", teml_args, " << args.size() << "))\n"
          << pad << "    return 1;\n"
          << pad << "}\n";
  }

  size_t nest_;
  Scope& s_;
  std::ostream& kernels_;
  std::ostream& host_;
  std::vector<std::string>& messages_;
};

// The host interface's declaration, one member a line.
std::string hostDeclaration() {
  std::string out;
  for (const char* c = backend::kCudaHostDeclaration; *c; ++c) {
    bool opens = *c == '{', ends = *c == ';';
    out += *c;
    if (opens || ends) {
      out += c[1] == ' ' && c[2] == '}' ? "\n" : "\n  ";
      if (c[1] == ' ') ++c;
    }
  }
  return out;
}

struct Emitted {
  std::string kernels, host;
  std::vector<std::string> messages;
};

Emitted emitAll(const Program& p) {
  Emitted out;
  std::ostringstream kernels, host;
  Scope program;
  for (auto& t : p.tensors) program.tensors[t.name] = TensorName{program.names.claim(t.name), &t};
  host << "/* Host code, as it runs: compiled by the system C compiler and called by teml's CUDA runtime\n"
          "   (backend/cuda/cuda_kernel) or by its emulator, through teml_host (cuda_host_interface.hpp): launches,\n"
          "   tensors between kernels, cuBLAS, failed checks; each returns nonzero on failure. teml_buffers: the\n"
          "   program's tensors in GPU memory, in declaration order. */\n"
          "#ifndef __CUDACC__\n"
          "#include <stdint.h>\n"
          "/* The integer helpers the host's expressions use (nvcc takes the prelude's). */\n"
       << integerHelpers("static inline")
       << "#endif\n"
          "#ifdef __cplusplus\n"
          "extern \"C\" {\n"
          "#endif\n"
       << hostDeclaration() << ";\n"
       << "int teml_cuda_entry(void **teml_buffers, const struct teml_cuda_host *teml_host) {\n";
  for (size_t k = 0; k < p.tensors.size(); ++k)
    host << "  " << elementCType(p.tensors[k].dtype) << " *" << program.tensors[p.tensors[k].name].cname << " = ("
         << elementCType(p.tensors[k].dtype) << " *)teml_buffers[" << k << "];\n";
  for (size_t k = 0; k < p.nests.size(); ++k) {
    host << "  /* nest " << k + 1 << " */\n";
    HostPrinter(k, program, kernels, host, out.messages).stmt(p.nests[k], 1);
  }
  host << "  return 0;\n}\n"
          "#ifdef __cplusplus\n"
          "}\n"
          "#endif\n";
  out.kernels = kernels.str();
  out.host = host.str();
  return out;
}

}  // namespace

std::string emitCudaKernels(const Program& lowered, const target::Target& target) {
  return "/* Generated by teml for " + target.gpu.arch() + ". */\n" + cudaPrelude() + "\n" +
         emitAll(lowered).kernels;
}

std::string emitCudaHost(const Program& lowered) { return emitAll(lowered).host; }

std::string emitCuda(const Program& lowered, const target::Target& target) {
  Emitted e = emitAll(lowered);
  return "/* Generated by teml for " + target.gpu.arch() + ". */\n" + cudaPrelude() + "\n" + e.kernels +
         "#ifndef __CUDACC_RTC__\n" + e.host + "#endif\n";
}

std::vector<std::string> cudaCheckMessages(const Program& lowered) { return emitAll(lowered).messages; }

}  // namespace teml::codegen
