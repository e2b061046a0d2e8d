#include "analysis/legality.hpp"

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/union_map.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "ir/mutator.hpp"
#include "ir/printer.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

// ---- small RAII holders for isl objects
struct CtxDeleter {
  void operator()(isl_ctx* c) const { isl_ctx_free(c); }
};
using Ctx = std::unique_ptr<isl_ctx, CtxDeleter>;

class UMap {
 public:
  UMap() = default;
  explicit UMap(isl_union_map* m) : m_(m) {}
  UMap(const UMap& o) : m_(o.m_ ? isl_union_map_copy(o.m_) : nullptr) {}
  UMap& operator=(UMap o) {
    std::swap(m_, o.m_);
    return *this;
  }
  ~UMap() {
    if (m_) isl_union_map_free(m_);
  }
  isl_union_map* copy() const { return isl_union_map_copy(m_); }
  isl_union_map* get() const { return m_; }
  bool valid() const { return m_ != nullptr; }

 private:
  isl_union_map* m_ = nullptr;
};

struct IslFailure {};

UMap check(isl_union_map* m) {
  if (!m) throw IslFailure{};
  return UMap(m);
}

UMap unite(const UMap& a, const UMap& b) { return check(isl_union_map_union(a.copy(), b.copy())); }
UMap intersect(const UMap& a, const UMap& b) { return check(isl_union_map_intersect(a.copy(), b.copy())); }
// {i1 -> i2 : a(i1) = b(i2)}
UMap meet(const UMap& a, const UMap& b) {
  return check(isl_union_map_apply_range(a.copy(), isl_union_map_reverse(b.copy())));
}

// ---- IR expressions as isl text; iterators are renamed x0, x1, ... by depth
class Texter {
 public:
  std::map<std::string, std::string> names;

  std::string expr(const ExprP& e) const {
    switch (e->kind) {
      case ExprKind::IntConst: return std::to_string(static_cast<const IntConst&>(*e).value);
      case ExprKind::Var: {
        auto it = names.find(static_cast<const Var&>(*e).name);
        if (it == names.end()) throw IslFailure{};
        return it->second;
      }
      case ExprKind::Binary: {
        auto& b = static_cast<const Binary&>(*e);
        std::string x = expr(b.a), y = expr(b.b);
        switch (b.op) {
          case BinOp::Add: return "(" + x + " + " + y + ")";
          case BinOp::Sub: return "(" + x + " - " + y + ")";
          case BinOp::Mul: return "(" + x + " * " + y + ")";
          case BinOp::FloorDiv: return "floor((" + x + ") / " + y + ")";
          case BinOp::Mod: return "((" + x + ") mod " + y + ")";
          case BinOp::Min: return "min(" + x + ", " + y + ")";
          case BinOp::Max: return "max(" + x + ", " + y + ")";
          default: throw IslFailure{};
        }
      }
      default: throw IslFailure{};  // loads in indices: not affine
    }
  }

  std::string cond(const ExprP& e, bool positive) const {
    if (e->kind != ExprKind::Binary) throw IslFailure{};
    auto& b = static_cast<const Binary&>(*e);
    if (b.op == BinOp::And)
      return "(" + cond(b.a, positive) + (positive ? " and " : " or ") + cond(b.b, positive) + ")";
    std::string x = expr(b.a), y = expr(b.b);
    switch (b.op) {
      case BinOp::Lt: return positive ? x + " < " + y : x + " >= " + y;
      case BinOp::Le: return positive ? x + " <= " + y : x + " > " + y;
      case BinOp::Eq: return positive ? x + " = " + y : "(" + x + " < " + y + " or " + x + " > " + y + ")";
      default: throw IslFailure{};
    }
  }
};

struct Access {
  std::string tensor;
  std::vector<ExprP> indices;
};

// One Store/Reduce node with everything needed to describe its instances.
struct Occurrence {
  const Stmt* node;
  StmtTag tag;
  SourceLoc loc;
  Texter texter;
  std::vector<std::string> vars;        // x0, x1, ... of enclosing loops
  std::vector<std::string> constraints;  // domain
  std::vector<std::string> time;        // schedule vector
  std::map<std::string, size_t> loopPos;  // loop id -> position of its iterator in `time`
  Access write;
  bool isReduce = false;
  ReduceOp op = ReduceOp::Add;
  std::vector<Access> reads;
};

void collect(const StmtP& s, Occurrence ctx, std::vector<Occurrence>& out) {
  switch (s->kind) {
    case StmtKind::For: {
      auto& f = static_cast<const For&>(*s);
      std::string x = "x" + std::to_string(ctx.vars.size());
      std::string b = ctx.texter.expr(f.begin), e = ctx.texter.expr(f.end);
      ctx.texter.names[f.var] = x;
      ctx.vars.push_back(x);
      ctx.constraints.push_back(b + " <= " + x + " < " + e);
      ctx.loopPos[f.id] = ctx.time.size();
      if (f.step != 1) ctx.constraints.push_back("(" + x + " - " + b + ") mod " + std::to_string(f.step) + " = 0");
      ctx.time.push_back(x);
      ctx.time.push_back("0");
      collect(f.body, ctx, out);
      break;
    }
    case StmtKind::Seq: {
      auto& q = static_cast<const Seq&>(*s);
      for (size_t k = 0; k < q.stmts.size(); ++k) {
        Occurrence c = ctx;
        c.time.back() = std::to_string(k);
        collect(q.stmts[k], c, out);
      }
      break;
    }
    case StmtKind::LibCall: collect(static_cast<const LibCall&>(*s).reference, ctx, out); break;
    case StmtKind::If: {
      auto& i = static_cast<const If&>(*s);
      Occurrence t = ctx;
      t.constraints.push_back(ctx.texter.cond(i.cond, true));
      t.time.push_back("0");
      t.time.push_back("0");
      collect(i.then, t, out);
      if (i.otherwise) {
        Occurrence o = ctx;
        o.constraints.push_back(ctx.texter.cond(i.cond, false));
        o.time.push_back("1");
        o.time.push_back("0");
        collect(i.otherwise, o, out);
      }
      break;
    }
    case StmtKind::Store:
    case StmtKind::Reduce: {
      bool red = s->kind == StmtKind::Reduce;
      const StmtTag& tag = red ? static_cast<const Reduce&>(*s).tag : static_cast<const Store&>(*s).tag;
      if (!tag.known()) return;
      Occurrence o = ctx;
      o.node = s.get();
      o.tag = tag;
      ExprP value;
      if (red) {
        auto& r = static_cast<const Reduce&>(*s);
        o.write = {r.tensor, r.indices};
        o.isReduce = true;
        o.op = r.op;
        o.loc = r.loc;
        value = r.value;
      } else {
        auto& st = static_cast<const Store&>(*s);
        o.write = {st.tensor, st.indices};
        o.loc = st.loc;
        value = st.value;
      }
      forEachExpr(value, [&](const ExprP& e) {
        if (e->kind == ExprKind::Load) {
          auto& l = static_cast<const Load&>(*e);
          o.reads.push_back({l.tensor, l.indices});
        }
      });
      out.push_back(std::move(o));
      break;
    }
  }
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// { Sid[origin] -> <rhs>[values] : the occurrence's domain }
std::string relation(const Occurrence& o, const std::string& rhsTuple, const std::vector<std::string>& values) {
  std::vector<std::string> outs, eqs;
  for (size_t k = 0; k < o.tag.origin.size(); ++k) {
    eqs.push_back("o" + std::to_string(k) + " = " + o.texter.expr(o.tag.origin[k]));
    outs.push_back("o" + std::to_string(k));
  }
  std::vector<std::string> rv;
  for (size_t k = 0; k < values.size(); ++k) {
    rv.push_back("v" + std::to_string(k));
    eqs.push_back("v" + std::to_string(k) + " = " + values[k]);
  }
  for (auto& c : o.constraints) eqs.push_back(c);
  std::string body = join(eqs, " and ");
  if (!o.vars.empty()) body = "exists (" + join(o.vars, ", ") + " : " + body + ")";
  return "{ " + o.tag.id + "[" + join(outs, ", ") + "] -> " + rhsTuple + "[" + join(rv, ", ") + "] : " + body + " }";
}

UMap read(isl_ctx* ctx, const std::string& text) {
  return check(isl_union_map_read_from_str(ctx, text.c_str()));
}

UMap empty(isl_ctx* ctx) { return check(isl_union_map_read_from_str(ctx, "{ }")); }

// The schedule of every instance: statement instance -> time vector (padded).
UMap schedule(isl_ctx* ctx, const std::vector<Occurrence>& occ) {
  size_t len = 0;
  for (auto& o : occ) len = std::max(len, o.time.size());
  UMap m = empty(ctx);
  for (auto& o : occ) {
    std::vector<std::string> t = o.time;
    t.resize(len, "0");
    m = unite(m, read(ctx, relation(o, "T", t)));
  }
  return m;
}

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


// Changes whenever the analysis or its messages change, so old answers are not reused.
constexpr const char* kAnalysisVersion = "teml-legality-2";

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
        for (auto& i : a->indices) idx.push_back(o.texter.expr(i));
        key += " " + a->tensor + "[" + join(idx, ",") + "]";
      }
      key += " @" + std::to_string(o.loc.line) + " " + join(o.tag.names, ",") + "\n";
    }
  }
  return key;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

Legality checkWithIsl(const StmtP& before, const StmtP& after);

}  // namespace

Legality checkReordering(const StmtP& before, const StmtP& after, const std::string& cacheDir) {
  if (cacheDir.empty()) return checkWithIsl(before, after);
  std::string key;
  try {
    std::vector<Occurrence> occB, occA;
    Occurrence root;
    root.time = {"0"};
    collect(before, root, occB);
    collect(after, root, occA);
    key = problemText(occB, occA);
  } catch (const IslFailure&) {
    return checkWithIsl(before, after);
  }
  char name[32];
  std::snprintf(name, sizeof name, "/d%016llx", static_cast<unsigned long long>(fnv1a(key)));
  std::string path = cacheDir + name;
  {
    std::ifstream in(path);
    std::string stored, verdict;
    if (in && std::getline(in, verdict) && std::getline(in, stored, '\0') ) {
      // The problem text is stored too, so a hash collision is never believed.
      auto cut = stored.find("\n--\n");
      if (cut != std::string::npos && stored.substr(cut + 4) == key)
        return verdict == "legal" ? Legality{} : Legality{false, stored.substr(0, cut)};
    }
  }
  Legality l = checkWithIsl(before, after);
  if (l.violation.find("could not decide") == std::string::npos) {
    mkdir(cacheDir.c_str(), 0755);
    std::string tmp = path + "." + std::to_string(getpid());
    {
      std::ofstream out(tmp);
      out << (l.legal ? "legal" : "illegal") << "\n" << l.violation << "\n--\n" << key;
    }
    std::rename(tmp.c_str(), path.c_str());
  }
  return l;
}

namespace {

Legality checkWithIsl(const StmtP& before, const StmtP& after) {
  Ctx ctx(isl_ctx_alloc());
  isl_options_set_on_error(ctx.get(), ISL_ON_ERROR_CONTINUE);
  isl_ctx_set_max_operations(ctx.get(), 5000000);
  try {
    std::vector<Occurrence> occB, occA;
    Occurrence root;
    root.time = {"0"};
    collect(before, root, occB);
    collect(after, root, occA);
    if (occB.empty()) return {};
    std::map<std::string, const Occurrence*> byId;
    std::set<std::string> tensors;
    for (auto& o : occB) {
      byId.emplace(o.tag.id, &o);
      tensors.insert(o.write.tensor);
      for (auto& r : o.reads) tensors.insert(r.tensor);
    }
    UMap timeB = schedule(ctx.get(), occB), timeA = schedule(ctx.get(), occA);
    UMap orderedB = check(isl_union_map_lex_lt_union_map(timeB.copy(), timeB.copy()));
    UMap notOrderedA = check(isl_union_map_lex_ge_union_map(timeA.copy(), timeA.copy()));
    for (auto& t : tensors) {
      // Access relations of this tensor: plain writes, reductions by kind, reads.
      UMap stores = empty(ctx.get()), reads = empty(ctx.get());
      std::map<ReduceOp, UMap> reduces;
      auto rel = [&](const Occurrence& o, const Access& a) {
        std::vector<std::string> idx;
        for (auto& i : a.indices) idx.push_back(o.texter.expr(i));
        return read(ctx.get(), relation(o, "A_" + t, idx));
      };
      for (auto& o : occB) {
        if (o.write.tensor == t) {
          if (o.isReduce) {
            auto it = reduces.emplace(o.op, empty(ctx.get())).first;
            it->second = unite(it->second, rel(o, o.write));
          } else {
            stores = unite(stores, rel(o, o.write));
          }
        }
        for (auto& r : o.reads)
          if (r.tensor == t) reads = unite(reads, rel(o, r));
      }
      UMap allReduces = empty(ctx.get());
      for (auto& [op, m] : reduces) allReduces = unite(allReduces, m);
      UMap any = unite(unite(stores, reads), allReduces);
      UMap conflicts = unite(meet(stores, any), meet(any, stores));
      conflicts = unite(conflicts, unite(meet(allReduces, reads), meet(reads, allReduces)));
      for (auto& [op1, m1] : reduces)
        for (auto& [op2, m2] : reduces)
          if (op1 != op2) conflicts = unite(conflicts, meet(m1, m2));
      UMap deps = intersect(conflicts, orderedB);
      UMap violated = intersect(deps, notOrderedA);
      isl_bool none = isl_union_map_is_empty(violated.get());
      if (none == isl_bool_error) throw IslFailure{};
      if (none == isl_bool_true) continue;
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
      return {false, text + " on '" + t + "'"};
    }
    return {};
  } catch (const IslFailure&) {
    return {false, "the dependence analysis could not decide (the nest is too complex for its budget); "
                   "use --no-check to apply the transformation unchecked"};
  }
}

}  // namespace

bool loopIsIndependent(const StmtP& nest, const std::string& loopId) {
  Ctx ctx(isl_ctx_alloc());
  isl_options_set_on_error(ctx.get(), ISL_ON_ERROR_CONTINUE);
  isl_ctx_set_max_operations(ctx.get(), 5000000);
  try {
    bool untagged = false;
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::Store) untagged |= !static_cast<const Store&>(*s).tag.known();
      if (s->kind == StmtKind::Reduce) untagged |= !static_cast<const Reduce&>(*s).tag.known();
    });
    if (untagged) return false;
    std::vector<Occurrence> all, inside;
    Occurrence root;
    root.time = {"0"};
    collect(nest, root, all);
    for (auto& o : all)
      if (o.loopPos.count(loopId)) inside.push_back(o);
    if (inside.empty()) return true;
    // Untagged statements cannot be described to isl: no verdict.
    size_t p = inside[0].loopPos.at(loopId);
    UMap time = schedule(ctx.get(), inside);
    size_t len = 0;
    for (auto& o : inside) len = std::max(len, o.time.size());
    std::set<std::string> tensors;
    for (auto& o : inside) {
      tensors.insert(o.write.tensor);
      for (auto& r : o.reads) tensors.insert(r.tensor);
    }
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
    UMap acrossInstances = check(isl_union_map_apply_range(
        isl_union_map_apply_range(time.copy(), across.copy()), isl_union_map_reverse(time.copy())));
    for (auto& tn : tensors) {
      UMap writes = empty(ctx.get()), any = empty(ctx.get());
      for (auto& o : inside) {
        auto rel = [&](const Access& a) {
          std::vector<std::string> idx;
          for (auto& i : a.indices) idx.push_back(o.texter.expr(i));
          return read(ctx.get(), relation(o, "A_" + tn, idx));
        };
        if (o.write.tensor == tn) {
          writes = unite(writes, rel(o.write));
          any = unite(any, rel(o.write));
        }
        for (auto& r : o.reads)
          if (r.tensor == tn) any = unite(any, rel(r));
      }
      UMap conflicts = unite(meet(writes, any), meet(any, writes));
      UMap carried = intersect(conflicts, acrossInstances);
      isl_bool none = isl_union_map_is_empty(carried.get());
      if (none != isl_bool_true) return false;
    }
    return true;
  } catch (const IslFailure&) {
    return false;
  }
}

}  // namespace teml::analysis
