#include "autodiff/tapes.hpp"

#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"
#include "ir/rename_tensor.hpp"
#include "ir/scoped_visitor.hpp"
#include "ir/unique_statement_ids.hpp"

namespace teml::autodiff {

TapeMode tapeModeNamed(const std::string& name) {
  if (name == "auto") return TapeMode::Auto;
  if (name == "all") return TapeMode::All;
  if (name == "none") return TapeMode::None;
  throw UsageError("tapes must be auto, all or none, not '" + name + "'");
}

using namespace ir;

namespace {

constexpr double kMaxTapeBytes = 1 << 30;
// What a byte of tape costs in operations: it is written by the forward pass
// and read back by the backward pass. A tape that stays in the caches costs
// about one operation per byte; a larger one costs memory traffic, about 3
// operations per byte on the machines we measure (205 GFLOP/s, i.e. about
// 100 G vector operations, against 36 GB/s).
constexpr double kCachedTapeBytes = 1 << 20;
constexpr double kOpsPerCachedByte = 1, kOpsPerMemoryByte = 3;

// The work of the statements that write `t`, each counted once per
// iteration of the loops around it (16 for a loop whose trip count data
// decide).
class RecomputeWork : public StmtFunctor<double(const std::string&)> {
  double visitSeq(const Seq& q, const std::string& t) override {
    double n = 0;
    for (auto& x : q.stmts) n += dispatch(x, t);
    return n;
  }
  double visitFor(const For& f, const std::string& t) override {
    int64_t b, e, trips = 16;
    if (constValue(f.begin, &b) && constValue(f.end, &e)) trips = std::max<int64_t>(0, (e - b) / f.step);
    return static_cast<double>(trips) * dispatch(f.body, t);
  }
  double visitIf(const If& i, const std::string& t) override {
    return std::max(dispatch(i.then, t), i.otherwise ? dispatch(i.otherwise, t) : 0.0);
  }
  double visitVarDef(const VarDef& v, const std::string& t) override { return dispatch(v.body, t); }
  double visitAssert(const Assert& a, const std::string& t) override { return dispatch(a.body, t); }
  double visitBarrier(const Barrier&, const std::string&) override { return 0; }
  double visitExchange(const Exchange&, const std::string&) override { return 0; }
  double visitStore(const Store& st, const std::string& t) override {
    return st.tensor == t ? 1.0 + static_cast<double>(operationsIn(st.value)) : 0.0;
  }
  double visitReduce(const Reduce& r, const std::string& t) override {
    return r.tensor == t ? 1.0 + static_cast<double>(operationsIn(r.value)) : 0.0;
  }
  double visitLibCall(const LibCall&, const std::string&) override { return 0; }
};

// Where a tensor's definition is first written (a VarDef has no position of its own).
SourceLoc firstWrite(const VarDef& v) {
  SourceLoc at;
  forEachStmt(v.body, [&](const StmtP& s) {
    if (at.line) return;
    if (s->kind == StmtKind::Store && s->as<Store>().tensor == v.decl.name) at = s->as<Store>().loc;
    if (s->kind == StmtKind::Reduce && s->as<Reduce>().tensor == v.decl.name) at = s->as<Reduce>().loc;
  });
  return at;
}

class Chooser : public ScopedVisitor {
 public:
  Chooser(TapeMode mode, std::set<std::string> names, const std::set<std::string>& mustStore)
      : mode_(mode), names_(std::move(names)), mustStore_(mustStore) {}
  std::map<std::string, TapeChoice> out;
  std::map<std::string, int> seen;
  using Visitor::visit;
  void visit(const ExprP&) override {}

 protected:
  void visitVarDef(const VarDef& v) override {
    if (++seen[v.decl.name] == 1) out[v.decl.name] = choose(v);
    else if (mustStore_.count(v.decl.name))
      throw UserError(firstWrite(v), "gradient: '" + v.decl.name + "' reads values that are overwritten afterwards, so it " +
                                       "cannot be recomputed, and it is defined in more than one place (one tape each is not built)");
    else out[v.decl.name] = {false, "", {}, "recomputed (defined in more than one place)"};
    ScopedVisitor::visitVarDef(v);
  }

 private:
  TapeChoice choose(const VarDef& v) {
    TapeChoice c = chooseFreely(v);
    if (mustStore_.count(v.decl.name) && !c.stored)
      throw UserError(firstWrite(v), "gradient: '" + v.decl.name + "' reads values that are overwritten afterwards, so it " +
                                       "cannot be recomputed, and it cannot be stored: " + c.why);
    return c;
  }

  TapeChoice chooseFreely(const VarDef& v) {
    TapeChoice c;
    TapeMode mode = mustStore_.count(v.decl.name) ? TapeMode::All : mode_;
    int64_t elements = std::max<int64_t>(1, v.decl.elementCount());
    double work = RecomputeWork()(v.body, v.decl.name);
    std::string cost = std::to_string(static_cast<int64_t>(work)) + " operations for " + std::to_string(elements) + " element" +
                       (elements == 1 ? "" : "s");
    if (mode == TapeMode::None) return {false, "", {}, "recomputed (--tapes none; " + cost + ")"};
    double versions = 1;
    for (auto* f : loops()) {
      TapeLoop l;
      if (!tapeLoop(*f, &l))
        return {false, "", {}, "recomputed (loop '" + f->var + "' around it has no constant trip count; " + cost + ")"};
      c.loops.push_back(l);
      versions *= static_cast<double>(l.trips);
    }
    // A tape is memory the forward pass fills for the whole backward pass.
    double bytes = versions * static_cast<double>(elements) * ir::bytes(v.decl.dtype);
    std::string size = std::to_string(static_cast<int64_t>(versions)) + " version" + (versions == 1 ? "" : "s") + ", " +
                       std::to_string(static_cast<int64_t>(bytes / 1024)) + " KiB";
    if (bytes > kMaxTapeBytes)
      return {false, "", {}, "recomputed (its tape would take " + std::to_string(static_cast<int64_t>(bytes / (1 << 20))) +
                                 " MiB; " + cost + ")"};
    // Stored when recomputing a version costs more than writing and reading
    // it back.
    double traffic = tapeTraffic(bytes, elements, v.decl.dtype);
    std::string against = "; a tape of " + size + " costs " + std::to_string(static_cast<int64_t>(traffic)) + " per version";
    if (mode == TapeMode::Auto && work <= traffic) return {false, "", {}, "recomputed (" + cost + against + ")"};
    c.stored = true;
    c.tape = v.decl.name + ".tape";
    while (names_.count(c.tape)) c.tape += "_";
    names_.insert(c.tape);
    c.why = "stored in " + c.tape + " (" + size + "; recomputing: " + cost +
            (mustStore_.count(v.decl.name) ? "; recomputing would read values overwritten afterwards)" : ")");
    return c;
  }

  TapeMode mode_;
  std::set<std::string> names_;
  const std::set<std::string>& mustStore_;
};

// tape[versions..][e..] = local[e..] (or the other way), over local's shape.
StmtP copyNest(const TensorDecl& local, const TapeChoice& c, bool intoTape) {
  return overElements(c.tape, local.shape, [&](const std::vector<ExprP>& element, StmtTag tag) {
    std::vector<ExprP> versioned = versionOf(c.loops);
    versioned.insert(versioned.end(), element.begin(), element.end());
    tag.id += intoTape ? ".in" : ".out";
    for (size_t k = c.loops.size(); k-- > 0;) {
      tag.names.insert(tag.names.begin(), c.loops[k].var);
      tag.origin.insert(tag.origin.begin(), var(c.loops[k].var));
    }
    return intoTape ? makeStore(c.tape, versioned, load(local.name, element, local.dtype), {}, tag)
                    : makeStore(local.name, element, load(c.tape, versioned, local.dtype), {}, tag);
  });
}

// tape[e..] = 0: the start of a local that lives in its tape (the caller may
// run the program again on the same tensors).
StmtP zeroed(const TensorDecl& local, const TapeChoice& c) {
  return overElements(c.tape, local.shape, [&](const std::vector<ExprP>& element, StmtTag tag) {
    tag.id += ".zero";
    return makeStore(c.tape, element, cast(local.dtype, intConst(0)), {}, tag);
  });
}

class Record : public Mutator {
 public:
  explicit Record(const std::map<std::string, TapeChoice>& tapes) : tapes_(tapes) {}

 protected:
  StmtP mutateVarDef(const StmtP& s) override {
    StmtP inner = Mutator::mutateVarDef(s);
    auto& v = inner->as<VarDef>();
    auto c = tapes_.find(v.decl.name);
    if (c == tapes_.end() || !c->second.stored) return inner;
    if (c->second.inPlace()) return makeSeq({zeroed(v.decl, c->second), renameTensor(v.body, v.decl.name, c->second.tape)});
    return std::make_shared<VarDef>(v.decl, makeSeq({v.body, copyNest(v.decl, c->second, true)}), v.loopLocal, v.id,
                                    v.made);
  }

 private:
  const std::map<std::string, TapeChoice>& tapes_;
};

}  // namespace

int64_t operationsIn(const ExprP& e) {
  int64_t n = 0;
  forEachExpr(e, [&](const ExprP& x) {
    n += x->kind == ExprKind::Binary || x->kind == ExprKind::Unary || x->kind == ExprKind::Select;
  });
  return n;
}

// An element narrower than a float costs as much as one in vector code (a
// lane: widened on load, packed on store).
double tapeTraffic(double tapeBytes, int64_t elements, DType dtype) {
  double perByte = tapeBytes <= kCachedTapeBytes ? kOpsPerCachedByte : kOpsPerMemoryByte;
  return perByte * 2 * static_cast<double>(elements) * std::max<double>(4, ir::bytes(dtype));
}

StmtP overElements(const std::string& prefix, const std::vector<int64_t>& shape,
                   const std::function<StmtP(const std::vector<ExprP>&, StmtTag)>& body) {
  std::vector<ExprP> element;
  StmtTag tag{prefix, {}, {}};
  for (size_t d = 0; d < shape.size(); ++d) {
    tag.names.push_back(prefix + ".e" + std::to_string(d));
    element.push_back(var(tag.names.back()));
  }
  tag.origin = element;
  StmtP s = body(element, tag);
  for (size_t d = shape.size(); d-- > 0;)
    s = makeFor(tag.names[d], tag.names[d], intConst(0), intConst(shape[d]), 1, LoopKind{}, s);
  return s;
}

bool tapeLoop(const For& f, TapeLoop* out) {
  int64_t b, e;
  if (!constValue(f.begin, &b) || !constValue(f.end, &e) || (f.step != 1 && f.step != -1)) return false;
  *out = {f.var, b, f.step, std::max<int64_t>(0, (e - b) * f.step)};
  return true;
}

std::vector<ExprP> versionOf(const std::vector<TapeLoop>& loops) {
  std::vector<ExprP> out;
  for (auto& l : loops) out.push_back(l.step == 1 ? sub(var(l.var), intConst(l.begin)) : sub(intConst(l.begin), var(l.var)));
  return out;
}

std::map<std::string, TapeChoice> chooseTapes(const Program& p, TapeMode mode, const std::set<std::string>& mustStore) {
  std::set<std::string> names;
  for (auto& t : p.tensors) names.insert(t.name);
  Chooser c(mode, names, mustStore);
  for (auto& nest : p.nests) c.visit(nest);
  return c.out;
}

Program recordTapes(const Program& p, const std::map<std::string, TapeChoice>& tapes) {
  Program out = p;
  std::map<std::string, const TensorDecl*> locals;
  for (auto& nest : p.nests)
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::VarDef) locals[s->as<VarDef>().decl.name] = &s->as<VarDef>().decl;
    });
  for (auto& [name, c] : tapes) {
    if (!c.stored) continue;
    TensorDecl tape = *locals.at(name);
    tape.name = c.tape;
    tape.mem = MemKind::Auto;
    std::vector<int64_t> shape;
    for (auto& l : c.loops) shape.push_back(l.trips);
    shape.insert(shape.end(), tape.shape.begin(), tape.shape.end());
    tape.shape = shape;
    out.tensors.push_back(tape);
    out.roles[c.tape] = TensorRole::Tape;
  }
  for (auto& nest : out.nests) nest = uniqueStatementIds(Record(tapes).mutate(nest));
  return out;
}

StmtP withTape(const TensorDecl& local, const TapeChoice& choice, const StmtP& adjoints) {
  if (choice.inPlace()) return renameTensor(adjoints, local.name, choice.tape);
  return makeVarDef(local, makeSeq({copyNest(local, choice, false), adjoints}));
}

}  // namespace teml::autodiff
