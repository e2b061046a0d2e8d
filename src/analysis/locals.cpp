#include "analysis/locals.hpp"

#include <isl/map.h>

#include <cstdlib>
#include <map>
#include <set>

#include "analysis/answer_cache.hpp"
#include "analysis/isl_model.hpp"
#include "analysis/local_box.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "ir/visitor.hpp"

namespace teml::analysis {

using namespace ir;
using namespace isl_model;

namespace {

struct Owner {
  const For* loop;
  std::string tensor;
};

// Owners of local tensors, and accesses of them outside their owners.
class Structure : public Visitor {
 public:
  std::vector<Owner> owners;
  std::string problem;
  std::set<std::string> localNames;

  using Visitor::visit;
  void visit(const StmtP& s) override {
    if (problem.empty()) Visitor::visit(s);
  }

 protected:
  void visitFor(const For& f) override {
    const For* saved = loop_;
    loop_ = &f;
    Visitor::visitFor(f);
    loop_ = saved;
  }
  void visitVarDef(const VarDef& v) override {
    if (!v.loopLocal) return Visitor::visitVarDef(v);
    const std::string& name = v.decl.name;
    if (active_.count(name)) {
      problem = "'" + name + "' is local to loop '" + loop_->var + "' and to a loop around it";
      return;
    }
    owners.push_back({loop_, name});
    active_.insert(name);
    Visitor::visitVarDef(v);
    active_.erase(name);
  }
  void visitStore(const Store& st) override { checkUses(st.tensor, st.value, st.tag, st.loc); }
  void visitReduce(const Reduce& r) override { checkUses(r.tensor, r.value, r.tag, r.loc); }

 private:
  void checkUses(const std::string& written, const ExprP& value, const StmtTag& tag, SourceLoc loc) {
    std::vector<std::string> used = {written};
    for (auto& r : readsOf(value)) used.push_back(r.tensor);
    for (auto& n : used) {
      if (!localNames.count(n)) continue;
      if (!active_.count(n)) {
        problem = "'" + n + "' is used outside the loop it is local to (statement at line " + std::to_string(loc.line) +
                  ")";
        return;
      }
      if (!tag.known()) {
        problem = "'" + n + "' is used by a statement the dependence analysis cannot describe";
        return;
      }
    }
  }

  std::set<std::string> active_;
  const For* loop_ = nullptr;  // the innermost loop around
};

// Pairs of instances (statement instance -> statement instance) that run in
// different iterations of the loop at schedule position p or of a loop around it.
UMap differentIterations(isl_ctx* ctx, const UMap& time, size_t len, size_t p) {
  std::vector<std::string> t, u, differs;
  for (size_t k = 0; k < len; ++k) {
    t.push_back("t" + std::to_string(k));
    u.push_back("u" + std::to_string(k));
    if (k <= p) differs.push_back(t.back() + " < " + u.back() + " or " + t.back() + " > " + u.back());
  }
  UMap across = read(ctx, "{ T[" + join(t, ", ") + "] -> T[" + join(u, ", ") + "] : " + join(differs, " or ") + " }");
  return check(isl_union_map_apply_range(isl_union_map_apply_range(time.copy(), across.copy()),
                                         isl_union_map_reverse(time.copy())));
}

std::string sample(const UMap& m) {
  isl_map* one = nullptr;
  isl_union_map_foreach_map(
      m.get(),
      [](isl_map* x, void* user) -> isl_stat {
        auto** slot = static_cast<isl_map**>(user);
        if (!*slot) *slot = x;
        else isl_map_free(x);
        return isl_stat_ok;
      },
      &one);
  if (!one) return "";
  isl_basic_map* b = isl_map_sample(one);
  char* text = b ? isl_basic_map_to_str(b) : nullptr;
  std::string s = text ? text : "";
  std::free(text);
  if (b) isl_basic_map_free(b);
  return s;
}

std::string checkDisjoint(const StmtP& nest, const std::vector<Owner>& owners) {
  Ctx ctx = boundedContext();
  try {
    std::vector<Occurrence> occ = occurrences(nest);
    std::map<std::string, std::vector<UMap>> byTensor;  // accesses per owner
    for (auto& ow : owners) {
      // Only the statements inside the loop that use the tensor matter.
      std::vector<Occurrence> inside;
      for (auto& o : occ) {
        bool uses = o.write.tensor == ow.tensor;
        for (auto& r : o.reads) uses |= r.tensor == ow.tensor;
        if (uses && o.loopPos.count(ow.loop->id)) inside.push_back(o);
      }
      UMap acc = empty(ctx.get());
      for (auto& o : inside) {
        if (o.write.tensor == ow.tensor) acc = unite(acc, accessRelation(ctx.get(), o, o.write));
        for (auto& r : o.reads)
          if (r.tensor == ow.tensor) acc = unite(acc, accessRelation(ctx.get(), o, r));
      }
      if (!inside.empty()) {
        UMap time = schedule(ctx.get(), inside);
        // schedule() pads every time vector to the longest among `inside`.
        size_t l = 0;
        for (auto& o : inside) l = std::max(l, o.time.size());
        UMap shared = intersect(meet(acc, acc), differentIterations(ctx.get(), time, l, inside[0].loopPos.at(ow.loop->id)));
        if (!isEmpty(shared))
          return "an element of '" + ow.tensor + "' is used in two different iterations of loop '" + ow.loop->var +
                 "' (or of a loop around it), so it cannot be local to that loop: " + sample(shared);
      }
      for (auto& other : byTensor[ow.tensor])
        if (!isEmpty(meet(acc, other)))
          return "an element of '" + ow.tensor + "' is used under two loops that each hold a local copy of it";
      byTensor[ow.tensor].push_back(acc);
    }
    return "";
  } catch (const IslFailure&) {
    return "the analysis could not decide whether the local tensors' elements stay within one iteration "
           "(the nest is too complex for its budget)";
  }
}

// Every loop serial: what a local tensor's soundness does not depend on.
class LoopKindsErased : public Mutator {
 public:
  using Mutator::mutate;

 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    return std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, LoopKind{}, mutate(f.body), f.made);
  }
};

}  // namespace

std::string checkLocals(const StmtP& nest, bool dependences, const std::string& cacheDir) {
  Structure st;
  for (auto& l : localTensorsIn(nest)) st.localNames.insert(l.tensor.decl.name);
  if (st.localNames.empty()) return "";
  st.visit(nest);
  if (!st.problem.empty()) return st.problem;
  std::set<std::string> written = tensorsWritten(nest);
  for (auto& name : st.localNames)
    if (!written.count(name))
      return "'" + name + "' is only read here: as a local tensor it would lose the values it is given";
  for (auto& ow : st.owners) {
    LocalBox box;
    std::string why;
    if (!localBox(ow.loop->body, ow.tensor, &box, &why))
      return "'" + ow.tensor + "' cannot be local to loop '" + ow.loop->var + "': " + why;
  }
  // A cache's copy is refilled in every iteration: its elements may recur.
  std::erase_if(st.owners, [](const Owner& o) {
    for (auto& l : localsOf(*o.loop))
      if (l.decl.name == o.tensor) return l.isCopy;
    return false;
  });
  if (!dependences) return "";
  if (cacheDir.empty()) return checkDisjoint(nest, st.owners);
  // The nest as printed (loops, locals, accesses) decides the answer; how
  // loops run (threads, lanes) does not, so a step that only parallelizes or
  // vectorizes asks the question the step before it asked.
  std::string question = "teml-locals-2\n" + toString(LoopKindsErased().mutate(nest), true);
  if (auto kept = keptAnswer(cacheDir, 'l', question)) return *kept;
  std::string answer = checkDisjoint(nest, st.owners);
  if (answer.find("could not decide") == std::string::npos) keepAnswer(cacheDir, 'l', question, answer);
  return answer;
}

}  // namespace teml::analysis
