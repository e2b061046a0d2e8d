#include "analysis/conflicts.hpp"

#include <cstdlib>
#include <map>
#include <regex>

namespace teml::analysis {

using namespace ir;
using namespace isl_model;

namespace {

struct Use {
  const Occurrence* o;
  const Access* a;
  enum { Read, Store, Reduce } kind;
};

std::vector<Use> usesOf(const std::vector<Occurrence>& occ, const std::string& t) {
  std::vector<Use> uses;
  for (auto& o : occ) {
    if (o.write.tensor == t) uses.push_back({&o, &o.write, o.isReduce ? Use::Reduce : Use::Store});
    for (auto& r : o.reads)
      if (r.tensor == t) uses.push_back({&o, &r, Use::Read});
  }
  return uses;
}

bool orderMatters(const Use& a, const Use& b) {
  if (a.kind == Use::Store || b.kind == Use::Store) return true;
  if (a.kind == Use::Reduce && b.kind == Use::Reduce) return a.o->op != b.o->op;
  return a.kind != b.kind;  // a reduction and a read
}

// Every conflict, each access's unknowns independent of all others.
UMap independentUnknowns(isl_ctx* ctx, const std::vector<Use>& uses) {
  UMap stores = empty(ctx), reads = empty(ctx);
  std::map<ReduceOp, UMap> reduces;
  for (auto& u : uses) {
    UMap rel = accessRelation(ctx, *u.o, *u.a);
    if (u.kind == Use::Read) reads = unite(reads, rel);
    else if (u.kind == Use::Store) stores = unite(stores, rel);
    else {
      UMap& sameOp = reduces.emplace(u.o->op, empty(ctx)).first->second;
      sameOp = unite(sameOp, rel);
    }
  }
  UMap allReduces = empty(ctx);
  for (auto& [op, m] : reduces) allReduces = unite(allReduces, m);
  UMap any = unite(unite(stores, reads), allReduces);
  UMap conflicts = unite(meet(stores, any), meet(any, stores));
  conflicts = unite(conflicts, unite(meet(allReduces, reads), meet(reads, allReduces)));
  for (auto& [op1, m1] : reduces)
    for (auto& [op2, m2] : reduces)
      if (op1 != op2) conflicts = unite(conflicts, meet(m1, m2));
  return conflicts;
}

// One instance of a pair, in its own variables (the second one's renamed
// x -> y, u -> w): its origin, domain, the element it touches, the values
// its subscripts load.
struct Side {
  std::vector<std::string> origin, constraints, element, quantified;
  std::vector<LoadedValue> loads;
};

Side sideOf(const Use& u, bool second) {
  const Occurrence& o = *u.o;
  Side s;
  size_t first = o.texter.loads.size();
  if (auto scope = o.scoped.find(u.a->tensor); scope != o.scoped.end()) s.element = scope->second.prefix;
  for (auto& i : u.a->indices) s.element.push_back(o.texter.expr(i));
  s.loads.assign(o.texter.loads.begin() + static_cast<std::ptrdiff_t>(first), o.texter.loads.end());
  for (auto& e : o.tag.origin) s.origin.push_back(o.texter.expr(e));
  s.constraints = o.constraints;
  s.quantified = o.vars;
  s.quantified.insert(s.quantified.end(), o.texter.unknowns.begin(), o.texter.unknowns.end());
  if (!second) return s;
  static const std::regex name("\\b([xu])([0-9]+)\\b");
  auto rename = [](std::string& t) { t = std::regex_replace(t, name, "$1_$2"); };
  for (auto* list : {&s.origin, &s.constraints, &s.element, &s.quantified})
    for (auto& t : *list) rename(t);
  for (auto& l : s.loads) {
    rename(l.unknown);
    for (auto& i : l.indices) rename(i);
  }
  return s;
}

// "(x, y) name different elements, or the values loaded from them are equal".
std::string consistent(const LoadedValue& a, const LoadedValue& b) {
  std::vector<std::string> terms;
  for (size_t d = 0; d < a.indices.size(); ++d) {
    terms.push_back(a.indices[d] + " < " + b.indices[d]);
    terms.push_back(a.indices[d] + " > " + b.indices[d]);
  }
  terms.push_back(a.unknown + " = " + b.unknown);
  return "(" + join(terms, " or ") + ")";
}

std::string pairRelation(const Use& x, const Use& y, const std::set<std::string>& constant) {
  Side a = sideOf(x, false), b = sideOf(y, true);
  std::vector<std::string> in, out, eqs;
  for (size_t k = 0; k < a.origin.size(); ++k) {
    in.push_back("p" + std::to_string(k));
    eqs.push_back(in.back() + " = " + a.origin[k]);
  }
  for (size_t k = 0; k < b.origin.size(); ++k) {
    out.push_back("q" + std::to_string(k));
    eqs.push_back(out.back() + " = " + b.origin[k]);
  }
  eqs.insert(eqs.end(), a.constraints.begin(), a.constraints.end());
  eqs.insert(eqs.end(), b.constraints.begin(), b.constraints.end());
  for (size_t d = 0; d < a.element.size(); ++d) eqs.push_back(a.element[d] + " = " + b.element[d]);
  std::vector<LoadedValue> loads = a.loads;
  loads.insert(loads.end(), b.loads.begin(), b.loads.end());
  for (size_t i = 0; i < loads.size(); ++i)
    for (size_t j = i + 1; j < loads.size(); ++j)
      if (loads[i].tensor == loads[j].tensor && constant.count(loads[i].tensor) &&
          loads[i].indices.size() == loads[j].indices.size())
        eqs.push_back(consistent(loads[i], loads[j]));
  std::vector<std::string> quantified = a.quantified;
  quantified.insert(quantified.end(), b.quantified.begin(), b.quantified.end());
  std::string body = join(eqs, " and ");
  if (!quantified.empty()) body = "exists (" + join(quantified, ", ") + " : " + body + ")";
  std::set<std::string> params = x.o->texter.params;
  params.insert(y.o->texter.params.begin(), y.o->texter.params.end());
  return withParams(params, "{ " + tupleName(x.o->tag.id) + "[" + join(in, ", ") + "] -> " + tupleName(y.o->tag.id) +
                                "[" + join(out, ", ") + "] : " + body + " }");
}

bool loadsConstant(const Use& u, const std::set<std::string>& constant) {
  size_t first = u.o->texter.loads.size();
  for (auto& i : u.a->indices) u.o->texter.expr(i);
  for (size_t k = first; k < u.o->texter.loads.size(); ++k)
    if (constant.count(u.o->texter.loads[k].tensor)) return true;
  return false;
}

// Pair by pair, loads of one element of a constant tensor equal.
UMap consistentUnknowns(isl_ctx* ctx, const std::vector<Use>& uses, const std::set<std::string>& constant) {
  UMap conflicts = empty(ctx);
  for (auto& x : uses)
    for (auto& y : uses) {
      if (!orderMatters(x, y)) continue;
      auto sx = x.o->scoped.find(x.a->tensor), sy = y.o->scoped.find(y.a->tensor);
      bool sameTensor = (sx == x.o->scoped.end()) == (sy == y.o->scoped.end()) &&
                        (sx == x.o->scoped.end() || sx->second.tuple == sy->second.tuple);
      if (sameTensor) conflicts = unite(conflicts, read(ctx, pairRelation(x, y, constant)));
    }
  return conflicts;
}

}  // namespace

UMap conflictsOn(isl_ctx* ctx, const std::vector<Occurrence>& occ, const std::string& tensor,
                 const std::set<std::string>& constant) {
  std::vector<Use> uses = usesOf(occ, tensor);
  bool refine = false;
  for (auto& u : uses) refine |= loadsConstant(u, constant);
  if (refine) {
    // In a context of its own, so that running out of its budget leaves
    // `ctx` able to answer without the equalities (still sound).
    Ctx own = boundedContext();
    std::string text;
    try {
      UMap refined = consistentUnknowns(own.get(), uses, constant);
      char* printed = isl_union_map_to_str(refined.get());
      if (printed) text = printed;
      std::free(printed);
    } catch (const IslFailure&) {
    }
    if (!text.empty()) return read(ctx, text);
  }
  return independentUnknowns(ctx, uses);
}

}  // namespace teml::analysis
