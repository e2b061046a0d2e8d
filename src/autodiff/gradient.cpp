#include "autodiff/gradient.hpp"

#include <algorithm>
#include <chrono>

#include "autodiff/activity.hpp"
#include "autodiff/backward.hpp"
#include "autodiff/overwritten_reads.hpp"
#include "autodiff/partials.hpp"
#include "autodiff/recompute.hpp"
#include "autodiff/running_reductions.hpp"
#include "autodiff/taped_conditions.hpp"
#include "autodiff/versions.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"
#include "ir/rename_tensor.hpp"
#include "ir/unique_statement_ids.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

void checkNamed(const Program& p, const std::vector<std::string>& names, const std::string& option) {
  if (names.empty()) throw UserError(SourceLoc{}, "gradient: " + option + " names no tensor");
  for (auto& n : names) {
    const TensorDecl* t = p.find(n);
    if (!t || p.isTemporary(n))
      throw UserError(SourceLoc{}, "gradient: " + option + ": the program has no tensor '" + n + "'");
    if (!isFloat(t->dtype))
      throw UserError(SourceLoc{}, "gradient: " + option + ": '" + n + "' holds " + dtypeName(t->dtype) +
                                       " values, which have no gradient (only float tensors do)");
  }
}

std::set<std::string> definedInside(const Program& p) {
  std::set<std::string> out;
  for (auto& nest : p.nests)
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::VarDef) out.insert(s->as<VarDef>().decl.name);
    });
  return out;
}

// The tensors the backward pass rewinds that outlive it (the program's, and
// locals living in their tapes) get a copy of their own, taken when the
// backward pass starts: the forward's results stay, and a second backward
// pass over the same forward pass starts from them again.
void rewindCopies(Program& p, size_t forwardNests, const SavedWrites& saves, const std::map<std::string, TapeChoice>& tapes,
                  std::set<std::string>& names) {
  std::set<std::string> rewound;
  for (auto& nest : saves)
    for (auto& [id, s] : nest) {
      auto tape = tapes.find(s.tensor);
      if (tape == tapes.end()) rewound.insert(s.tensor);
      else if (tape->second.inPlace()) rewound.insert(tape->second.tape);
    }
  if (rewound.empty()) return;
  std::vector<StmtP> copies;
  for (auto& x : rewound) {
    TensorDecl decl = *p.find(x);
    std::string copy = x + ".rewound";
    while (!names.insert(copy).second) copy += "_";
    for (size_t k = forwardNests; k < p.nests.size(); ++k) p.nests[k] = renameTensor(p.nests[k], x, copy);
    copies.push_back(overElements(copy, decl.shape, [&](const std::vector<ExprP>& element, StmtTag tag) {
      tag.id += ".in";
      return makeStore(copy, element, load(x, element, decl.dtype), {}, tag);
    }));
    decl.name = copy;
    p.tensors.push_back(decl);
    p.roles[copy] = TensorRole::Temporary;
  }
  p.nests.insert(p.nests.begin() + static_cast<long>(forwardNests), uniqueStatementIds(makeSeq(std::move(copies))));
}

// The locals that cannot be recomputed: those whose statements read values
// overwritten afterwards (recomputing would read the new values), and those
// whose recomputation runs again such a local's statements (a local nested
// in their scope that their value depends on: it would read them too).
std::set<std::string> mustBeStored(const Program& p, const std::set<std::string>& locals,
                                   const std::set<std::string>& readOverwritten) {
  std::set<std::string> out;
  for (auto& t : readOverwritten)
    if (locals.count(t)) out.insert(t);
  std::vector<const VarDef*> defs;
  for (auto& nest : p.nests)
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::VarDef) defs.push_back(static_cast<const VarDef*>(s.get()));
    });
  for (bool grew = !out.empty(); grew;) {
    grew = false;
    for (auto* v : defs) {
      if (out.count(v->decl.name)) continue;
      for (auto& t : recomputedWith(v->body, v->decl.name))
        if (out.count(t)) {
          grew |= out.insert(v->decl.name).second;
          break;
        }
    }
  }
  return out;
}

// Per nest, the stores of y = exp(u), sigmoid(u) or tanh(u) into a tensor
// with a gradient: their partials are functions of y.
std::vector<std::set<std::string>> resultsWithKnownPartials(const Program& p, const std::set<std::string>& active) {
  std::vector<std::set<std::string>> out(p.nests.size());
  for (size_t k = 0; k < p.nests.size(); ++k)
    forEachStmt(p.nests[k], [&](const StmtP& s) {
      if (s->kind != StmtKind::Store) return;
      auto& st = s->as<Store>();
      if (active.count(st.tensor) && partialOfResult(st.value, floatConst(0))) out[k].insert(st.id);
    });
  return out;
}

// The statement can be written as a store: it is one, or a max= or min= reduction.
bool writtenAsStore(const StmtP& nest, const std::string& id) {
  bool store = false;
  forEachStmt(nest, [&](const StmtP& s) {
    if (s->id != id) return;
    store = store || s->kind == StmtKind::Store ||
            (s->kind == StmtKind::Reduce && (s->as<Reduce>().op == ReduceOp::Max || s->as<Reduce>().op == ReduceOp::Min));
  });
  return store;
}

}  // namespace

GradientProgram gradient(const Program& asWritten, const GradientRequest& request, const PassObserver& observe) {
  auto start = std::chrono::steady_clock::now();
  // Reports the pass that ended now, from `before` to `after`.
  auto passed = [&](const std::string& pass, const Program& before, const Program& after) {
    auto now = std::chrono::steady_clock::now();
    if (observe) observe(pass, before, after, std::chrono::duration<double>(now - start).count());
    start = now;
  };
  checkNamed(asWritten, request.wrt, "--wrt");
  checkNamed(asWritten, request.of, "--of");
  std::set<std::string> taken = definedInside(asWritten), differentiated = taken;
  for (auto& t : asWritten.tensors) taken.insert(t.name);
  for (auto& t : activeTensors(asWritten, request.wrt, request.of)) differentiated.insert(t);
  // The program the forward pass runs: as written, with the conditions the
  // backward pass must see as they were computed into locals.
  const Program original = conditionsAsLocals(asWritten, differentiated, taken);
  // What the backward pass is derived from; the forward pass runs `original`.
  // Running maxima and minima become reductions, except those that
  // overwrite values read before them: they stay stores, with versions.
  std::vector<std::set<std::string>> keep(original.nests.size());
  Program forward;
  std::set<std::string> active, locals, needed;
  Overwrites overwrites;
  for (;;) {
    forward = runningReductionsAsReductions(original, keep);
    active = activeTensors(forward, request.wrt, request.of);
    locals = definedInside(forward);
    needed = locals;
    needed.insert(active.begin(), active.end());
    overwrites = findOverwrites(forward, needed);
    if (overwrites.extremumRefusal.empty()) break;
    bool grew = false;
    for (size_t k = 0; k < original.nests.size(); ++k)
      for (auto& id : overwrites.extremaWriters[k])
        if (writtenAsStore(original.nests[k], id)) grew |= keep[k].insert(id).second;
    if (!grew) throw UserError(SourceLoc{}, overwrites.extremumRefusal);
  }
  passed("running_reductions", original, forward);
  std::set<std::string> mustStore = mustBeStored(forward, locals, overwrites.readersWrite);

  GradientProgram g;
  g.tapes = chooseTapes(forward, request.tapes, mustStore);
  std::set<std::string> names = locals;
  for (auto& t : original.tensors) names.insert(t.name);
  for (auto& [t, c] : g.tapes) names.insert(c.tape);
  SavedWrites saves = saveWrites(forward, overwrites.writers, metAsLeft(forward, overwrites.writers, overwrites.writers), names);
  for (auto& nest : saves)
    for (auto& [id, s] : nest) g.versions.push_back(s.tensor + ": " + s.why);
  g.program = recordTapes(recordSaves(original, saves), g.tapes);
  passed("tapes", forward, g.program);
  const Program taped = g.program;
  for (auto& t : g.program.tensors) names.insert(t.name);
  for (auto& t : active) {
    std::string name = t + ".grad";
    while (names.count(name) || locals.count(name)) name += "_";
    names.insert(name);
    g.gradientOf[t] = name;
    if (locals.count(t)) continue;  // defined in its scope by the backward pass
    TensorDecl decl = *forward.find(t);
    decl.name = name;
    g.program.tensors.push_back(decl);
    auto among = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), t) != v.end(); };
    // Gradients start at zero (a tensor no nest writes is an input to a
    // caller that fills inputs: --random would fill it), weights at one.
    g.program.initialValues[name] = among(request.of) ? 1 : 0;
    g.program.roles[name] = among(request.of)    ? TensorRole::Weights
                            : among(request.wrt) ? TensorRole::Gradient
                                                 : TensorRole::Adjoint;
  }
  std::vector<std::set<std::string>> reusable = metAsLeft(forward, resultsWithKnownPartials(forward, active), overwrites.writers);
  size_t forwardNests = g.program.nests.size();
  for (size_t k = forward.nests.size(); k-- > 0;)
    if (StmtP back = backwardNest(forward.nests[k], active, g.gradientOf, g.tapes, saves[k], reusable[k]))
      g.program.nests.push_back(back);
  rewindCopies(g.program, forwardNests, saves, g.tapes, names);
  g.program.backwardStart = forwardNests;
  passed("backward", taped, g.program);
  return g;
}

}  // namespace teml::autodiff
