#include "autodiff/gradient.hpp"

#include <algorithm>

#include "autodiff/activity.hpp"
#include "autodiff/backward.hpp"
#include "autodiff/overwritten_reads.hpp"
#include "autodiff/running_reductions.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

void checkNamed(const Program& p, const std::vector<std::string>& names, const std::string& option) {
  if (names.empty()) throw UserError(SourceLoc{}, "gradient: " + option + " names no tensor");
  for (auto& n : names) {
    const TensorDecl* t = p.find(n);
    if (!t || p.temporaries.count(n))
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
      if (s->kind == StmtKind::VarDef) out.insert(static_cast<const VarDef&>(*s).decl.name);
    });
  return out;
}

}  // namespace

GradientProgram gradient(const Program& original, const GradientRequest& request) {
  checkNamed(original, request.wrt, "--wrt");
  checkNamed(original, request.of, "--of");
  // What the backward pass is derived from; the forward pass runs as written.
  Program forward = runningReductionsAsReductions(original);
  std::set<std::string> active = activeTensors(forward, request.wrt, request.of);
  std::set<std::string> locals = definedInside(forward);
  std::set<std::string> needed = locals;
  needed.insert(active.begin(), active.end());
  refuseOverwrittenReads(forward, needed);

  GradientProgram g;
  g.tapes = chooseTapes(forward, request.tapes);
  g.program = recordTapes(original, g.tapes);
  std::set<std::string> names;
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
    if (!among(request.wrt)) g.program.temporaries.insert(name);
  }
  for (auto it = forward.nests.rbegin(); it != forward.nests.rend(); ++it)
    if (StmtP back = backwardNest(*it, active, g.gradientOf, g.tapes)) g.program.nests.push_back(back);
  return g;
}

}  // namespace teml::autodiff
