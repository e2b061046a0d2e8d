#include "ir/stmt.hpp"

#include <limits>

namespace teml::ir {

const char* threadScheduleName(ThreadSchedule s) {
  switch (s) {
    case ThreadSchedule::Static: return "static";
    case ThreadSchedule::Dynamic: return "dynamic";
    case ThreadSchedule::Guided: return "guided";
  }
  return "?";
}

const char* parallelScopeName(ParallelScope s) {
  switch (s) {
    case ParallelScope::Serial: return "serial";
    case ParallelScope::Threads: return "threads";
    case ParallelScope::SimdLanes: return "simd";
    case ParallelScope::ThreadsAndSimdLanes: return "threads+simd";
    case ParallelScope::BlockX: return "blockIdx.x";
    case ParallelScope::BlockY: return "blockIdx.y";
    case ParallelScope::BlockZ: return "blockIdx.z";
    case ParallelScope::ThreadX: return "threadIdx.x";
    case ParallelScope::ThreadY: return "threadIdx.y";
    case ParallelScope::ThreadZ: return "threadIdx.z";
  }
  return "?";
}

std::optional<ParallelScope> gpuScopeNamed(const std::string& name) {
  for (auto s : {ParallelScope::BlockX, ParallelScope::BlockY, ParallelScope::BlockZ, ParallelScope::ThreadX,
                 ParallelScope::ThreadY, ParallelScope::ThreadZ})
    if (name == parallelScopeName(s)) return s;
  return std::nullopt;
}

ParallelScope threadScope(int dimension) {
  return dimension == 0 ? ParallelScope::ThreadX : dimension == 1 ? ParallelScope::ThreadY : ParallelScope::ThreadZ;
}

int gpuDimension(ParallelScope s) {
  switch (s) {
    case ParallelScope::BlockY:
    case ParallelScope::ThreadY: return 1;
    case ParallelScope::BlockZ:
    case ParallelScope::ThreadZ: return 2;
    default: return 0;
  }
}

const char* vectorFormName(VectorForm f) {
  switch (f) {
    case VectorForm::Pragma: return "pragma";
    case VectorForm::Jammed: return "jammed";
    case VectorForm::Loop: return "loop";
    case VectorForm::Streaming: return "streaming";
  }
  return "?";
}

const char* copyFormName(CopyForm f) {
  switch (f) {
    case CopyForm::Loops: return "loops";
    case CopyForm::Flat: return "flat";
    case CopyForm::FlatStreaming: return "flat streaming";
    case CopyForm::Gathered: return "gathered";
  }
  return "?";
}

bool GpuKernelPlan::operator==(const GpuKernelPlan& o) const {
  for (int d = 0; d < 3; ++d)
    if (blockDim[d] != o.blockDim[d] || !(grid[d] == o.grid[d] || (grid[d] && o.grid[d] && equal(grid[d], o.grid[d]))))
      return false;
  return name == o.name && sharedBytes == o.sharedBytes && dynamicShared == o.dynamicShared && symbol == o.symbol &&
         tensorArgs == o.tensorArgs && scalarArgs == o.scalarArgs;
}

ParallelScope LoopKind::join(ParallelScope a, ParallelScope b) {
  LoopKind x{a}, y{b};
  if (x.gpu()) return a;  // a GPU scope is one loop's alone (merge refuses two)
  if (y.gpu()) return b;
  bool threads = x.threads() || y.threads(), lanes = x.lanes() || y.lanes();
  if (threads && lanes) return ParallelScope::ThreadsAndSimdLanes;
  if (threads) return ParallelScope::Threads;
  return lanes ? ParallelScope::SimdLanes : ParallelScope::Serial;
}

const char* memKindName(MemKind m) {
  switch (m) {
    case MemKind::Auto: return "auto";
    case MemKind::Heap: return "heap";
    case MemKind::Stack: return "stack";
    case MemKind::Register: return "register";
    case MemKind::GpuGlobal: return "gpu/global";
    case MemKind::GpuShared: return "gpu/shared";
    case MemKind::GpuLocal: return "gpu/local";
  }
  return "?";
}

std::optional<MemKind> memKindNamed(const std::string& name) {
  if (name == "cpu") return MemKind::Auto;
  for (auto m : {MemKind::GpuGlobal, MemKind::GpuShared, MemKind::GpuLocal})
    if (name == memKindName(m)) return m;
  return std::nullopt;
}

bool isGpuMemory(MemKind m) { return m == MemKind::GpuGlobal || m == MemKind::GpuShared || m == MemKind::GpuLocal; }

const char* reduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::Add: return "+=";
    case ReduceOp::Mul: return "*=";
    case ReduceOp::Max: return "max=";
    case ReduceOp::Min: return "min=";
  }
  return "?";
}

double reduceIdentity(ReduceOp op) {
  switch (op) {
    case ReduceOp::Add: return 0;
    case ReduceOp::Mul: return 1;
    case ReduceOp::Max: return -std::numeric_limits<double>::infinity();
    case ReduceOp::Min: return std::numeric_limits<double>::infinity();
  }
  return 0;
}

StmtP makeFor(std::string id, std::string var, ExprP begin, ExprP end, int64_t step, LoopKind kind,
              StmtP body, const std::vector<LocalTensor>& locals, Provenance made) {
  for (auto l = locals.rbegin(); l != locals.rend(); ++l)
    body = std::make_shared<VarDef>(l->decl, std::move(body), static_cast<const LoopLocal&>(*l));
  return std::make_shared<For>(std::move(id), std::move(var), std::move(begin), std::move(end),
                               step, kind, std::move(body), std::move(made));
}

std::vector<LocalTensor> localsOf(const For& f) {
  std::vector<LocalTensor> out;
  for (const Stmt* s = f.body.get(); s->kind == StmtKind::VarDef;) {
    auto& v = static_cast<const VarDef&>(*s);
    if (!v.loopLocal) break;
    out.emplace_back(v.decl, *v.loopLocal);
    s = v.body.get();
  }
  return out;
}

const StmtP& loopBody(const For& f) {
  const StmtP* s = &f.body;
  while ((*s)->kind == StmtKind::VarDef && static_cast<const VarDef&>(**s).loopLocal)
    s = &static_cast<const VarDef&>(**s).body;
  return *s;
}

StmtP withBody(const For& f, StmtP body) {
  return makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, std::move(body), localsOf(f), f.made);
}

StmtP makeStore(std::string tensor, std::vector<ExprP> indices, ExprP value, SourceLoc loc, StmtTag tag) {
  return std::make_shared<Store>(std::move(tensor), std::move(indices), std::move(value), loc, std::move(tag));
}

StmtP makeReduce(ReduceOp op, std::string tensor, std::vector<ExprP> indices, ExprP value,
                 SourceLoc loc, StmtTag tag, bool atomic) {
  return std::make_shared<Reduce>(op, std::move(tensor), std::move(indices), std::move(value), loc, std::move(tag),
                                  atomic);
}

StmtP makeSeqOfPresent(std::vector<StmtP> stmts) {
  std::erase(stmts, nullptr);
  return stmts.empty() ? nullptr : makeSeq(std::move(stmts));
}

StmtP makeSeq(std::vector<StmtP> stmts) {
  std::vector<StmtP> flat;
  for (auto& s : stmts) {
    if (!s) continue;
    if (s->kind == StmtKind::Seq) {
      for (auto& t : static_cast<const Seq&>(*s).stmts) flat.push_back(t);
    } else {
      flat.push_back(s);
    }
  }
  if (flat.size() == 1) return flat[0];
  // A sequence is where its first statement is written.
  Provenance made;
  if (!flat.empty()) made.loc = flat.front()->made.loc;
  return std::make_shared<Seq>(std::move(flat), "", made);
}

StmtP makeIf(ExprP cond, StmtP then, StmtP otherwise) {
  int64_t c;
  if (constValue(cond, &c)) return c ? then : otherwise ? otherwise : makeSeq({});
  return std::make_shared<If>(std::move(cond), std::move(then), std::move(otherwise));
}

std::vector<StmtP> items(const StmtP& s) {
  if (s->kind == StmtKind::Seq) return static_cast<const Seq&>(*s).stmts;
  return {s};
}

StmtP makeVarDef(TensorDecl decl, StmtP body) { return std::make_shared<VarDef>(std::move(decl), std::move(body)); }

StmtP makeAssert(ExprP cond, std::string message, ExprP shown, SourceLoc loc, StmtP body) {
  return std::make_shared<Assert>(std::move(cond), std::move(message), std::move(shown), loc, std::move(body));
}

std::string assertionMessage(const std::string& message, int64_t shown) {
  std::string out = message;
  if (auto at = out.find("{}"); at != std::string::npos) out.replace(at, 2, std::to_string(shown));
  return out;
}

SourceLoc sourceLocOf(const StmtP& s) {
  switch (s->kind) {
    case StmtKind::Store: return s->as<Store>().loc;
    case StmtKind::Reduce: return s->as<Reduce>().loc;
    case StmtKind::Assert: return s->as<Assert>().loc;
    default: break;
  }
  if (s->made.loc.line > 0) return s->made.loc;
  for (const StmtP& inner : [&]() -> std::vector<StmtP> {
         switch (s->kind) {
           case StmtKind::For: return {s->as<For>().body};
           case StmtKind::Seq: return s->as<Seq>().stmts;
           case StmtKind::If: return {s->as<If>().then};
           case StmtKind::VarDef: return {s->as<VarDef>().body};
           case StmtKind::LibCall: return {s->as<LibCall>().reference};
           default: return {};
         }
       }()) {
    SourceLoc loc = sourceLocOf(inner);
    if (loc.line > 0) return loc;
  }
  return {};
}

}  // namespace teml::ir

namespace teml::ir {

StmtP withIdentity(const StmtP& s, std::string id, Provenance made) {
  switch (s->kind) {
    case StmtKind::For: {
      auto& f = static_cast<const For&>(*s);
      return std::make_shared<For>(std::move(id), f.var, f.begin, f.end, f.step, f.loopKind, f.body, std::move(made));
    }
    case StmtKind::Store: {
      auto& st = static_cast<const Store&>(*s);
      return std::make_shared<Store>(st.tensor, st.indices, st.value, st.loc, st.tag, std::move(id), std::move(made));
    }
    case StmtKind::Reduce: {
      auto& r = static_cast<const Reduce&>(*s);
      return std::make_shared<Reduce>(r.op, r.tensor, r.indices, r.value, r.loc, r.tag, r.atomic, std::move(id),
                                      std::move(made));
    }
    case StmtKind::Seq: return std::make_shared<Seq>(static_cast<const Seq&>(*s).stmts, std::move(id), std::move(made));
    case StmtKind::If: {
      auto& i = static_cast<const If&>(*s);
      return std::make_shared<If>(i.cond, i.then, i.otherwise, std::move(id), std::move(made));
    }
    case StmtKind::LibCall: {
      auto& c = static_cast<const LibCall&>(*s);
      return std::make_shared<LibCall>(c.routine, c.tensors, c.args, c.reference, std::move(id), std::move(made));
    }
    case StmtKind::VarDef: {
      auto& v = static_cast<const VarDef&>(*s);
      return std::make_shared<VarDef>(v.decl, v.body, v.loopLocal, std::move(id), std::move(made));
    }
    case StmtKind::Assert: {
      auto& a = static_cast<const Assert&>(*s);
      return std::make_shared<Assert>(a.cond, a.message, a.shown, a.loc, a.body, std::move(id), std::move(made));
    }
    case StmtKind::Barrier:
      return std::make_shared<Barrier>(s->as<Barrier>().scope, std::move(id), std::move(made));
    case StmtKind::Exchange: {
      auto& x = s->as<Exchange>();
      return std::make_shared<Exchange>(x.kind, x.tensor, x.op, x.transfers, x.combined, x.index, std::move(id),
                                        std::move(made), x.namedRows);
    }
  }
  return s;
}

const char* exchangeKindName(ExchangeKind k) {
  switch (k) {
    case ExchangeKind::Halo: return "halo";
    case ExchangeKind::HaloStart: return "halo";  // it moves the halo's bytes
    case ExchangeKind::HaloWait: return "halo wait";
    case ExchangeKind::Broadcast: return "broadcast";
    case ExchangeKind::Gather: return "gather";
    case ExchangeKind::IndexedRequests: return "indexed requests";
    case ExchangeKind::IndexedGather: return "indexed gather";
    case ExchangeKind::ReductionStart: return "reduction start";
    case ExchangeKind::Reduction: return "reduction";
    case ExchangeKind::OwnersReductionStart: return "reduction start at owners";
    case ExchangeKind::ReductionToOwners: return "reduction to owners";
  }
  return "?";
}

bool movesNoRows(ExchangeKind k) {
  return k == ExchangeKind::ReductionStart || k == ExchangeKind::OwnersReductionStart ||
         k == ExchangeKind::IndexedRequests || k == ExchangeKind::HaloWait;
}

int64_t BoxTransfer::elements() const {
  int64_t n = 1;
  for (size_t d = 0; d < lo.size(); ++d) n *= std::max<int64_t>(0, hi[d] - lo[d]);
  return n;
}

}  // namespace teml::ir
