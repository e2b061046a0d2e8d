#include "analysis/legality.hpp"

#include "ir/csr_rows.hpp"

#include <isl/map.h>
#include <isl/set.h>
#include <isl/union_set.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "analysis/answer_cache.hpp"
#include "analysis/conflicts.hpp"
#include "analysis/isl_model.hpp"
#include "ir/affine.hpp"
#include "ir/mutator.hpp"

namespace teml::analysis {

using namespace ir;
using namespace isl_model;

namespace {

// Describes one violated dependence of map `m` (instances of two statements).
std::string describe(isl_map* m, const std::map<std::string, const Occurrence*>& byId) {
  std::string src = isl_map_get_tuple_name(m, isl_dim_in), dst = isl_map_get_tuple_name(m, isl_dim_out);
  const Occurrence* so = byId.at(src);
  const Occurrence* dO = byId.at(dst);
  std::string names = "(" + join(so->tag.names, ", ") + ")";
  std::string where = src == dst ? "" : " from the statement at line " + std::to_string(so->loc.line) +
                                            " to the one at line " + std::to_string(dO->loc.line);
  if (so->tag.names.size() == dO->tag.names.size()) {
    // A constant distance reads best: (i, j) -> (i + 2, j - 1).
    isl_map* same = isl_map_set_tuple_name(isl_map_copy(m), isl_dim_out, src.c_str());
    isl_set* deltas = same ? isl_map_deltas(same) : nullptr;
    if (deltas && isl_set_is_singleton(deltas) == isl_bool_true) {
      isl_point* p = isl_set_sample_point(isl_set_copy(deltas));
      std::vector<std::string> terms;
      for (size_t k = 0; k < so->tag.names.size(); ++k) {
        isl_val* v = isl_point_get_coordinate_val(p, isl_dim_set, static_cast<int>(k));
        long d = isl_val_get_num_si(v);
        isl_val_free(v);
        const std::string& n = dO->tag.names[k];
        terms.push_back(d == 0 ? n : n + (d > 0 ? " + " : " - ") + std::to_string(d > 0 ? d : -d));
      }
      isl_point_free(p);
      isl_set_free(deltas);
      return "the dependence " + names + " -> (" + join(terms, ", ") + ")" + where;
    }
    if (deltas) isl_set_free(deltas);
  }
  isl_basic_map* sample = isl_map_sample(isl_map_copy(m));
  char* printed = sample ? isl_basic_map_to_str(sample) : nullptr;
  std::string text = printed ? printed : "?";
  std::free(printed);
  if (sample) isl_basic_map_free(sample);
  return "a dependence between instances of the statements at lines " + std::to_string(so->loc.line) + " and " +
         std::to_string(dO->loc.line) + " (for example " + text + ")";
}


Legality undecided() {
  return {false, "the dependence analysis could not decide (the nest is too complex for its budget); "
                 "use --no-check to apply the transformation unchecked"};
}

// Changes whenever the analysis or its messages change, so old answers are not reused.
constexpr const char* kAnalysisVersion = "teml-legality-9";

// The problem as text (every relation the check reads), the key of the cache.
std::string problemText(const std::vector<Occurrence>& occB, const std::vector<Occurrence>& occA) {
  std::string key = kAnalysisVersion;
  for (auto* occ : {&occB, &occA}) {
    key += "|";
    for (auto& o : *occ) {
      key += relation(o, "T", o.time) + (o.isReduce ? " R" + std::to_string(static_cast<int>(o.op)) : " S");
      std::vector<const Access*> acc = {&o.write};
      for (auto& r : o.reads) acc.push_back(&r);
      for (auto* a : acc) {
        std::vector<std::string> idx;
        size_t firstLoad = o.texter.loads.size();
        for (auto& i : a->indices) idx.push_back(o.texter.expr(i));
        for (size_t k = firstLoad; k < o.texter.loads.size(); ++k) {  // which tensor each unknown loads
          auto& l = o.texter.loads[k];
          key += " " + l.unknown + ":" + l.tensor + "[" + join(l.indices, ",") + "]";
        }
        auto scope = o.scoped.find(a->tensor);
        std::string where = scope == o.scoped.end() ? "" : scope->second.tuple + "(" + join(scope->second.prefix, ",") + ")";
        key += " " + a->tensor + where + "[" + join(idx, ",") + "]";
      }
      key += " @" + std::to_string(o.loc.line) + " " + join(o.tag.names, ",") + "\n";
    }
  }
  return key;
}

Legality checkWithIsl(const StmtP& before, const StmtP& after);

// A kept answer: the verdict on the first line, then the violation.
std::string answerText(const Legality& l) { return std::string(l.legal ? "legal" : "illegal") + "\n" + l.violation; }

std::optional<Legality> keptLegality(const std::string& dir, char kind, const std::string& key) {
  std::optional<std::string> kept = keptAnswer(dir, kind, key);
  if (!kept) return std::nullopt;
  size_t newline = kept->find('\n');
  std::string verdict = kept->substr(0, newline);
  if (newline == std::string::npos || (verdict != "legal" && verdict != "illegal")) return std::nullopt;
  return Legality{verdict == "legal", kept->substr(newline + 1)};
}

}  // namespace

Legality checkReordering(const StmtP& before, const StmtP& after, const std::string& cacheDir) {
  if (cacheDir.empty()) return checkWithIsl(before, after);
  std::string key;
  try {
    key = problemText(occurrences(before), occurrences(after));
  } catch (const IslFailure&) {
    return checkWithIsl(before, after);
  }
  if (std::optional<Legality> answer = keptLegality(cacheDir, 'd', key)) return *answer;
  Legality l = checkWithIsl(before, after);
  if (l.violation.find("could not decide") == std::string::npos) keepAnswer(cacheDir, 'd', key, answerText(l));
  return l;
}

namespace {

// Pairs of instances that use the same copy of scoped tensor t (one run of
// its VarDef, under the same iterations of the loops around it).
UMap sameCopy(isl_ctx* ctx, const std::vector<Occurrence>& occ, const std::string& t) {
  UMap copyOf = empty(ctx);
  for (auto& o : occ) {
    auto scope = o.scoped.find(t);
    bool uses = o.write.tensor == t;
    for (auto& r : o.reads) uses |= r.tensor == t;
    if (uses && scope != o.scoped.end()) copyOf = unite(copyOf, relationMap(ctx, o, scope->second.tuple, scope->second.prefix));
  }
  return meet(copyOf, copyOf);
}

// A scoped tensor's copies must be shared by the same instances before and
// after: a value cannot cross into another copy, nor two copies become one.
std::string copiesChanged(isl_ctx* ctx, const std::vector<Occurrence>& occB, const std::vector<Occurrence>& occA) {
  std::set<std::string> scoped;
  for (auto& o : occB)
    for (auto& [name, scope] : o.scoped) scoped.insert(name);
  for (auto& t : scoped)
    if (!isEqual(sameCopy(ctx, occB, t), sameCopy(ctx, occA, t)))
      return "change which statement instances share one copy of '" + t +
             "' (a tensor defined inside a loop: each iteration has its own, and its values do not cross to another)";
  return "";
}

// Instance pairs of the statements `pairs` relates (its domain's to its
// range's) whose times `order` relates.
UMap ordered(const UMap& time, const UMap& pairs, isl_union_map* (*order)(isl_union_map*, isl_union_map*)) {
  isl_union_set* from = isl_union_set_universe(isl_union_map_domain(pairs.copy()));
  isl_union_set* to = isl_union_set_universe(isl_union_map_range(pairs.copy()));
  return check(order(isl_union_map_intersect_domain(time.copy(), from), isl_union_map_intersect_domain(time.copy(), to)));
}

Legality checkWithIsl(const StmtP& before, const StmtP& after) {
  Ctx ctx = boundedContext();
  try {
    std::vector<Occurrence> occB = occurrences(before), occA = occurrences(after);
    if (occB.empty()) return {};
    if (std::string changed = copiesChanged(ctx.get(), occB, occA); !changed.empty()) return {false, changed};
    std::map<std::string, const Occurrence*> byId;
    std::set<std::string> tensors;
    for (auto& o : occB) {
      byId.emplace(tupleName(o.tag.id), &o);
      tensors.insert(o.write.tensor);
      for (auto& r : o.reads) tensors.insert(r.tensor);
    }
    // Loads of tensors neither nest writes give the same value for one element.
    std::set<std::string> constant;
    for (auto* occ : {&occB, &occA})
      for (auto& o : *occ)
        for (auto& r : o.reads) constant.insert(r.tensor);
    for (auto* occ : {&occB, &occA})
      for (auto& o : *occ) constant.erase(o.write.tensor);
    UMap timeB = schedule(ctx.get(), occB), timeA = schedule(ctx.get(), occA);
    for (auto& t : tensors) {
      UMap conflicts = conflictsOn(ctx.get(), occB, t, constant);
      if (isEmpty(conflicts)) continue;
      // Ordered only among the statements that conflict on t: ordering
      // every pair of the nest's statements at once cost most of the time.
      UMap deps = intersect(conflicts, ordered(timeB, conflicts, isl_union_map_lex_lt_union_map));
      if (isEmpty(deps)) continue;
      UMap violated = intersect(deps, ordered(timeA, conflicts, isl_union_map_lex_ge_union_map));
      if (isEmpty(violated)) continue;
      std::string text;
      std::pair<std::string*, const std::map<std::string, const Occurrence*>*> state(&text, &byId);
      isl_union_map_foreach_map(
          violated.get(),
          [](isl_map* m, void* user) -> isl_stat {
            auto* st = static_cast<std::pair<std::string*, const std::map<std::string, const Occurrence*>*>*>(user);
            if (st->first->empty()) *st->first = describe(m, *st->second);
            isl_map_free(m);
            return isl_stat_ok;
          },
          &state);
      return {false, "reverse " + text + " on '" + t + "'"};
    }
    return {};
  } catch (const IslFailure&) {
    return undecided();
  }
}

}  // namespace

namespace {

// A statement inside a loop over a CSR row (ir/csr_rows) that checks its
// row array does not decrease: the row r and the entry k its instances are
// at.
struct InRow {
  const Occurrence* occurrence;
  std::string rows;
  ExprP row;
  std::string entry;
};

// The statements of `inside` in rows (the innermost row loop of each)
// inside the loop `loopId`.
std::vector<InRow> inRows(const StmtP& nest, const std::string& loopId, const std::vector<Occurrence>& inside) {
  const For* outer = nullptr;
  forEachStmt(nest, [&](const StmtP& s) {
    if (s->kind == StmtKind::For && s->id == loopId) outer = static_cast<const For*>(s.get());
  });
  if (!outer) return {};
  auto rowLoops = checkedRowLoops(outer->body);
  std::vector<InRow> out;
  for (auto& o : inside) {
    const std::pair<const For*, CsrRow>* innermost = nullptr;
    size_t depth = 0;
    for (auto& [id, loop] : rowLoops)
      if (o.loopPos.count(id) && o.loopPos.at(id) >= depth) depth = o.loopPos.at(id), innermost = &loop;
    if (innermost) out.push_back({&o, innermost->second.rows, innermost->second.row, innermost->first->var});
  }
  return out;
}

// Each instance of a statement in rows of `rows`: R[row, entry].
UMap rowEntries(isl_ctx* ctx, const std::vector<InRow>& in, const std::string& rows) {
  UMap at = empty(ctx);
  for (auto& x : in)
    if (x.rows == rows) {
      std::vector<std::string> where = {x.occurrence->texter.expr(x.row), x.occurrence->texter.expr(var(x.entry))};
      at = unite(at, relationMap(ctx, *x.occurrence, "R", where));
    }
  return at;
}

// Whether instance pairs of statements in rows (`at`: rowEntries) can meet:
// as the rows do not decrease, rows r1 < r2 hold entries k1 < k2, so two
// instances in different rows are never at one entry.
bool meetInRows(isl_ctx* ctx, const UMap& pairs, const UMap& at) {
  UMap rowPairs = check(isl_union_map_apply_range(isl_union_map_apply_domain(pairs.copy(), at.copy()), at.copy()));
  UMap possible = read(ctx, "{ R[r1, k1] -> R[r2, k2] : r1 = r2 or (r1 < r2 and k1 < k2) or (r1 > r2 and k1 > k2) }");
  return !isEmpty(intersect(rowPairs, possible));
}

// Whether two instances in different iterations of the loop (at position
// p of their times) touch one element of `tn` with a write. Only the
// statements touching tn take part: a smaller problem than the whole body.
bool tensorApartWithIsl(const std::vector<Occurrence>& touching, const std::vector<InRow>& in, size_t p,
                        const std::string& tn) {
  Ctx ctx = boundedContext();
  UMap time = schedule(ctx.get(), touching);
  size_t len = 0;
  for (auto& o : touching) len = std::max(len, o.time.size());
  // Same time before the loop's iterator, a different value of it.
  std::vector<std::string> t, u, eqs;
  for (size_t k = 0; k < len; ++k) {
    t.push_back("t" + std::to_string(k));
    u.push_back("u" + std::to_string(k));
    if (k < p) eqs.push_back(t.back() + " = " + u.back());
  }
  eqs.push_back("(t" + std::to_string(p) + " < u" + std::to_string(p) + " or t" + std::to_string(p) + " > u" +
                std::to_string(p) + ")");
  UMap across = read(ctx.get(), "{ T[" + join(t, ", ") + "] -> T[" + join(u, ", ") + "] : " + join(eqs, " and ") + " }");
  UMap acrossInstances = check(isl_union_map_apply_range(isl_union_map_apply_range(time.copy(), across.copy()),
                                                         isl_union_map_reverse(time.copy())));
  // Statements in the rows of one row array meet each other only where rowOrder says.
  std::set<const Stmt*> inRowsOfOne;
  for (auto& x : in)
    if (x.rows == in[0].rows) inRowsOfOne.insert(x.occurrence->node);
  UMap at = in.empty() ? empty(ctx.get()) : rowEntries(ctx.get(), in, in[0].rows);
  UMap writes[2] = {empty(ctx.get()), empty(ctx.get())}, any[2] = {empty(ctx.get()), empty(ctx.get())};
  for (auto& o : touching) {
    int rows = inRowsOfOne.count(o.node) ? 1 : 0;
    auto rel = [&](const Access& a) { return accessRelation(ctx.get(), o, a); };
    if (o.write.tensor == tn) {
      writes[rows] = unite(writes[rows], rel(o.write));
      any[rows] = unite(any[rows], rel(o.write));
    }
    for (auto& r : o.reads)
      if (r.tensor == tn) any[rows] = unite(any[rows], rel(r));
  }
  UMap all = unite(any[0], any[1]);
  // Pairs with a statement outside the rows, then pairs within them.
  UMap conflicts = unite(unite(meet(writes[0], all), meet(all, writes[0])), unite(meet(writes[1], any[0]), meet(any[0], writes[1])));
  if (!isEmpty(intersect(conflicts, acrossInstances))) return false;
  UMap inRowConflicts = unite(meet(writes[1], any[1]), meet(any[1], writes[1]));
  return !meetInRows(ctx.get(), intersect(inRowConflicts, acrossInstances), at);
}

// tensorApartWithIsl for the statements of `inside` that touch tn; none
// writing it, none meet. Answers are kept for the process: a loop is asked
// about again as its nest is scheduled, checked and lowered, and about the
// same tensor among different sets of them.
bool tensorApart(const StmtP& nest, const std::string& loopId, const std::vector<Occurrence>& inside, size_t p,
                 const std::string& tn) {
  std::vector<Occurrence> touching;
  bool written = false;
  for (auto& o : inside) {
    bool touches = o.write.tensor == tn;
    written |= touches;
    for (auto& r : o.reads) touches |= r.tensor == tn;
    if (touches) touching.push_back(o);
  }
  if (!written) return true;
  std::vector<InRow> in = inRows(nest, loopId, touching);
  std::string key = problemText(touching, {}) + "|apart " + tn + " at " + std::to_string(p) + "\n";
  for (auto& x : in)
    key += "in rows: " + x.occurrence->tag.id + " " + x.rows + "[" + x.occurrence->texter.expr(x.row) + "] " + x.entry + "\n";
  static std::mutex mutex;
  static std::map<std::string, bool> answers;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = answers.find(key); it != answers.end()) return it->second;
  }
  bool apart = tensorApartWithIsl(touching, in, p, tn);
  std::lock_guard<std::mutex> lock(mutex);
  // Bounded: a long-lived process (Python, a tuner) compiles many programs;
  // the answers of one compilation are what it asks again.
  if (answers.size() >= 16384) answers.clear();
  answers.emplace(key, apart);
  return apart;
}

bool independentWithIsl(const StmtP& nest, const std::string& loopId, const std::set<std::string>& only) {
  try {
    // Untagged statements cannot be described to isl: no verdict.
    bool untagged = false;
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::Store) untagged |= !s->as<Store>().tag.known();
      if (s->kind == StmtKind::Reduce) untagged |= !s->as<Reduce>().tag.known();
    });
    if (untagged) return false;
    std::vector<Occurrence> inside;
    for (auto& o : occurrences(nest, true))
      if (o.loopPos.count(loopId)) inside.push_back(o);
    if (inside.empty()) return true;
    size_t p = inside[0].loopPos.at(loopId);
    std::set<std::string> tensors;
    for (auto& o : inside) {
      tensors.insert(o.write.tensor);
      for (auto& r : o.reads) tensors.insert(r.tensor);
    }
    // A tensor asked about that the loop does not touch means the question
    // was asked of another nest: no verdict.
    for (auto& tn : only)
      if (!tensors.count(tn)) return false;
    if (!only.empty()) tensors = only;
    // Tensors local to the loop or to loops inside it are private to one iteration.
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind != StmtKind::For) return;
      auto& f = s->as<For>();
      bool inLoop = f.id == loopId;
      if (!inLoop)
        for (auto& o : inside) inLoop |= o.loopPos.count(f.id) && o.loopPos.at(f.id) > p;
      if (inLoop)
        for (auto& l : localsOf(f)) tensors.erase(l.decl.name);
      // So are the tensors defined in the loop's body.
      if (f.id == loopId)
        forEachStmt(f.body, [&](const StmtP& d) {
          if (d->kind == StmtKind::VarDef) tensors.erase(d->as<VarDef>().decl.name);
        });
    });
    for (auto& tn : tensors)
      if (!tensorApart(nest, loopId, inside, p, tn)) return false;
    return true;
  } catch (const IslFailure&) {
    return false;
  }
}

// The loop `id` of `nest`: isl is asked about it alone, with the iterators
// of the loops around it as constants (the iterations of one run of the
// loop are what may run at once): a smaller question than the whole nest.
StmtP loopIn(const StmtP& nest, const std::string& id) {
  StmtP found;
  forEachStmt(nest, [&](const StmtP& s) {
    if (!found && s->kind == StmtKind::For && s->id == id) found = s;
  });
  return found ? found : nest;
}

// A loop split into chunks (schedule/chunked_loop: for o in [0, n): for i in
// [b + c o, min(b + c o + c, e))) as the one loop it was, for i in [b, end),
// and the inner loop's id; none where `loop` is no such pair. Iterations of
// different o are iterations of different i, so what is independent across
// i is across o; isl answers about one loop far faster than about the pair
// (a CSR loop's rows in a gradient: 26 ms instead of 400).
std::optional<std::pair<StmtP, std::string>> unchunked(const StmtP& loop) {
  if (loop->kind != StmtKind::For) return std::nullopt;
  const For& o = loop->as<For>();
  if (o.step != 1 || o.body->kind != StmtKind::For) return std::nullopt;
  const For& i = o.body->as<For>();
  int64_t zero = -1, n = 0;
  if (i.step != 1 || !constValue(o.begin, &zero) || zero != 0 || !constValue(o.end, &n) || n < 1)
    return std::nullopt;
  Affine begin;
  if (!toAffine(i.begin, &begin) || begin.coeffs.size() != 1 || begin.coeff(o.var) < 1) return std::nullopt;
  int64_t c = begin.coeff(o.var), first = begin.constant, last = first + c * n;
  auto chunkEnd = [&](const ExprP& e) {
    Affine a;
    return toAffine(e, &a) && a.coeffs == begin.coeffs && a.constant == first + c;
  };
  if (!chunkEnd(i.end)) {
    int64_t cap = 0;
    if (i.end->kind != ExprKind::Binary || i.end->as<Binary>().op != BinOp::Min) return std::nullopt;
    const Binary& m = i.end->as<Binary>();
    if (chunkEnd(m.a) && constValue(m.b, &cap)) last = std::min(last, cap);
    else if (chunkEnd(m.b) && constValue(m.a, &cap)) last = std::min(last, cap);
    else return std::nullopt;
  }
  bool usesOuter = false;
  forEachExprIn(i.body, [&](const ExprP& e) { usesOuter = usesOuter || usesVar(e, o.var); });
  if (usesOuter || last <= first) return std::nullopt;
  auto merged = std::make_shared<For>(i.id, i.var, intConst(first), intConst(last), 1, i.loopKind, i.body, i.made);
  return std::pair<StmtP, std::string>{merged, i.id};
}

}  // namespace

bool loopIsIndependent(const StmtP& whole, const std::string& loopId, const std::string& cacheDir,
                       const std::set<std::string>& only) {
  StmtP nest = loopIn(whole, loopId);
  // Where the loop it was is independent, so are its chunks; where not, the
  // chunks may still be (iterations that meet only within a chunk).
  if (nest->id == loopId)
    if (auto merged = unchunked(nest))
      if (loopIsIndependent(merged->first, merged->second, cacheDir, only)) return true;
  if (cacheDir.empty()) return independentWithIsl(nest, loopId, only);
  // The question: every statement as checkReordering sees it, where each
  // stands relative to the loop, and the tensors local to the nest's loops.
  std::string key;
  try {
    std::vector<Occurrence> occ = occurrences(nest);
    key = problemText(occ, {}) + "|independent " + loopId + "\n";
    for (auto& tn : only) key += "only " + tn + "\n";
    for (auto& x : inRows(nest, loopId, occ))  // rows checked to be in order
      key += "in rows: " + x.occurrence->tag.id + " " + x.rows + "[" + x.occurrence->texter.expr(x.row) + "] " + x.entry + "\n";
    for (auto& o : occ) key += std::to_string(o.loopPos.count(loopId) ? static_cast<long>(o.loopPos.at(loopId)) : -1L) + " ";
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind != StmtKind::For) return;
      key += "\n" + s->id + ":";
      for (auto& l : localsOf(s->as<For>())) key += " " + l.decl.name;
    });
  } catch (const IslFailure&) {
    return independentWithIsl(nest, loopId, only);
  }
  if (std::optional<Legality> answer = keptLegality(cacheDir, 'i', key)) return answer->legal;
  bool independent = independentWithIsl(nest, loopId, only);
  keepAnswer(cacheDir, 'i', key, answerText(Legality{independent, ""}));
  return independent;
}

}  // namespace teml::analysis
