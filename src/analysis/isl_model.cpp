#include "analysis/isl_model.hpp"

#include <algorithm>
#include <cctype>

#include <isl/options.h>
#include <isl/set.h>

#include "ir/accesses.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"

namespace teml::analysis::isl_model {

using namespace ir;

Ctx boundedContext() {
  Ctx ctx(isl_ctx_alloc());
  isl_options_set_on_error(ctx.get(), ISL_ON_ERROR_CONTINUE);
  isl_ctx_set_max_operations(ctx.get(), 5000000);
  return ctx;
}

UMap check(isl_union_map* m) {
  if (!m) throw IslFailure{};
  return UMap(m);
}

UMap unite(const UMap& a, const UMap& b) { return check(isl_union_map_union(a.copy(), b.copy())); }
UMap intersect(const UMap& a, const UMap& b) { return check(isl_union_map_intersect(a.copy(), b.copy())); }
UMap meet(const UMap& a, const UMap& b) {
  return check(isl_union_map_apply_range(a.copy(), isl_union_map_reverse(b.copy())));
}

bool isEmpty(const UMap& m) {
  isl_bool e = isl_union_map_is_empty(m.get());
  if (e == isl_bool_error) throw IslFailure{};
  return e == isl_bool_true;
}

bool isEqual(const UMap& a, const UMap& b) {
  isl_bool e = isl_union_map_is_equal(a.get(), b.get());
  if (e == isl_bool_error) throw IslFailure{};
  return e == isl_bool_true;
}

namespace {
// An integer expression in isl's syntax; loads (not affine) and others fail.
class IslText : public ExprFunctor<std::string()> {
 public:
  IslText(const std::map<std::string, std::string>& names, const std::set<std::string>* written,
          std::set<std::string>& params, std::vector<std::string>& unknowns, std::vector<LoadedValue>& loads)
      : names_(names), written_(written), params_(params), unknowns_(unknowns), loads_(loads) {}
  std::string of(const ExprP& e) { return dispatch(e); }

 private:
  std::string visitIntConst(const IntConst& c) override { return std::to_string(c.value); }
  std::string visitVar(const Var& v) override {
    auto it = names_.find(v.name);
    if (it != names_.end()) return it->second;
    return *params_.insert("P" + tupleName(v.name)).first;
  }
  std::string visitFloatConst(const FloatConst&) override { throw IslFailure{}; }
  std::string visitLoad(const Load& l) override {
    LoadedValue v{"", l.tensor, {}};
    for (auto& i : l.indices) v.indices.push_back(of(i));
    bool constant = written_ && !written_->count(l.tensor) && l.isInt() &&
                    std::all_of(v.indices.begin(), v.indices.end(), [&](const std::string& t) { return onlyParameters(t); });
    if (constant) return *params_.insert("L" + tupleName(l.tensor + "[" + join(v.indices, ",") + "]")).first;
    v.unknown = unknown();
    loads_.push_back(std::move(v));
    return loads_.back().unknown;
  }
  std::string visitUnary(const Unary& u) override {
    if (u.op != UnaryOp::Neg) return unknown();
    return "(-" + of(u.a) + ")";
  }
  std::string visitCast(const Cast& c) override { return c.isInt() && c.a->isInt() ? of(c.a) : unknown(); }
  std::string visitSelect(const Select&) override { return unknown(); }
  std::string visitBinary(const Binary& b) override {
    if (!b.isInt() || !b.a->isInt() || !b.b->isInt()) return unknown();
    std::string x = of(b.a), y = of(b.b);
    int64_t k;
    bool constantRight = constValue(b.b, &k), constantLeft = constValue(b.a, &k);
    switch (b.op) {
      case BinOp::Add: return "(" + x + " + " + y + ")";
      case BinOp::Sub: return "(" + x + " - " + y + ")";
      case BinOp::Mul: return constantLeft || constantRight ? "(" + x + " * " + y + ")" : unknown();
      case BinOp::FloorDiv:
      case BinOp::Div: return constantRight ? "floor((" + x + ") / " + y + ")" : unknown();
      case BinOp::Mod: return constantRight ? "((" + x + ") mod " + y + ")" : unknown();
      case BinOp::Min: return "min(" + x + ", " + y + ")";
      case BinOp::Max: return "max(" + x + ", " + y + ")";
      default: return unknown();
    }
  }
  std::string unknown() {
    unknowns_.push_back("u" + std::to_string(unknowns_.size()));
    return unknowns_.back();
  }
  // Whether isl text names nothing but parameters (and numbers).
  bool onlyParameters(const std::string& text) const {
    for (size_t at = 0; at < text.size();) {
      if (!std::isalpha(static_cast<unsigned char>(text[at])) && text[at] != '_') {
        ++at;
        continue;
      }
      size_t end = at;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
      std::string name = text.substr(at, end - at);
      if (name != "floor" && name != "mod" && name != "min" && name != "max" && !params_.count(name)) return false;
      at = end;
    }
    return true;
  }

  const std::map<std::string, std::string>& names_;
  const std::set<std::string>* written_;
  std::set<std::string>& params_;
  std::vector<std::string>& unknowns_;
  std::vector<LoadedValue>& loads_;
};
}  // namespace

std::string Texter::expr(const ExprP& e) const { return IslText(names, written.get(), params, unknowns, loads).of(e); }

std::string Texter::cond(const ExprP& e, bool positive) const {
  try {
    return condOrThrow(e, positive);
  } catch (const IslFailure&) {
    return "";
  }
}

std::string Texter::condOrThrow(const ExprP& e, bool positive) const {
    if (e->kind != ExprKind::Binary) throw IslFailure{};
    auto& b = e->as<Binary>();
    if (b.op == BinOp::And || b.op == BinOp::Or)
      return "(" + condOrThrow(b.a, positive) + ((b.op == BinOp::And) == positive ? " and " : " or ") +
             condOrThrow(b.b, positive) + ")";
    std::string x = expr(b.a), y = expr(b.b);
    std::string unequal = "(" + x + " < " + y + " or " + x + " > " + y + ")";
    switch (b.op) {
      case BinOp::Lt: return positive ? x + " < " + y : x + " >= " + y;
      case BinOp::Le: return positive ? x + " <= " + y : x + " > " + y;
      case BinOp::Gt: return positive ? x + " > " + y : x + " <= " + y;
      case BinOp::Ge: return positive ? x + " >= " + y : x + " < " + y;
      case BinOp::Eq: return positive ? x + " = " + y : unequal;
      case BinOp::Ne: return positive ? unequal : x + " = " + y;
      default: throw IslFailure{};
    }
  }

namespace {

// Every tagged statement's instances: iteration domain, schedule, accesses.
class OccurrenceCollector : public StmtFunctor<void(Occurrence)> {
 public:
  explicit OccurrenceCollector(std::vector<Occurrence>& out) : out_(out) {}
  void collect(const StmtP& s, Occurrence ctx) { dispatch(s, std::move(ctx)); }

 private:
  static void addReads(std::vector<Access>& to, const ExprP& e) {
    for (auto& r : readsOf(e)) to.push_back({r.tensor, r.indices});
  }
  static void addControlReads(Occurrence& ctx, const ExprP& e) {
    addReads(ctx.controlReads, e);
    ctx.controlDepth.resize(ctx.controlReads.size(), ctx.constraints.size());
  }

  void visitFor(const For& f, Occurrence ctx) override {
    addControlReads(ctx, f.begin);
    addControlReads(ctx, f.end);
    std::string x = "x" + std::to_string(ctx.vars.size());
    std::string b = ctx.texter.expr(f.begin), e = ctx.texter.expr(f.end);
    ctx.texter.names[f.var] = x;
    ctx.vars.push_back(x);
    // A loop counting down runs its values in decreasing order: time -x.
    bool down = f.step < 0;
    ctx.constraints.push_back(down ? e + " < " + x + " <= " + b : b + " <= " + x + " < " + e);
    ctx.loopPos[f.id] = ctx.time.size();
    if (f.step != 1 && f.step != -1)
      ctx.constraints.push_back("(" + x + " - " + b + ") mod " + std::to_string(down ? -f.step : f.step) + " = 0");
    ctx.time.push_back(down ? "-" + x : x);
    ctx.time.push_back("0");
    ctx.slotFree = true;
    collect(f.body, std::move(ctx));
  }
  // The position in the nearest loop's or branch's body; a sequence inside
  // an item of another (through a check or a scoped tensor) takes a
  // dimension of its own, or its first item would take the outer item's
  // place.
  void visitSeq(const Seq& q, Occurrence ctx) override {
    if (!ctx.slotFree) ctx.time.push_back("0");
    ctx.slotFree = false;
    for (size_t k = 0; k < q.stmts.size(); ++k) {
      Occurrence c = ctx;
      c.time.back() = std::to_string(k);
      collect(q.stmts[k], std::move(c));
    }
  }
  void visitLibCall(const LibCall& c, Occurrence ctx) override { collect(c.reference, std::move(ctx)); }
  // The body's instances may or may not run (a check on data): all are kept.
  void visitBarrier(const Barrier&, Occurrence) override {}  // no access
  void visitExchange(const Exchange&, Occurrence) override {}  // moves values between ranks, changes none
  void visitAssert(const Assert& a, Occurrence ctx) override {
    addControlReads(ctx, a.cond);
    if (a.shown) addControlReads(ctx, a.shown);
    if (std::string c = ctx.texter.cond(a.cond, true); !c.empty()) ctx.constraints.push_back(c);
    collect(a.body, std::move(ctx));
  }
  void visitVarDef(const VarDef& v, Occurrence ctx) override {
    // A loop-local tensor keeps the whole tensor's indices, and its elements
    // stay within one iteration (analysis/locals.hpp): the whole tensor. A
    // cache's copy is refilled in every iteration: each has its own.
    if (!v.loopLocal || v.loopLocal->isCopy) ctx.scoped[v.decl.name] = {"V" + std::to_string(++varDefs_) + "_" + tupleName(v.decl.name), ctx.vars};
    collect(v.body, std::move(ctx));
  }
  void visitIf(const If& i, Occurrence ctx) override {
    addControlReads(ctx, i.cond);
    Occurrence t = ctx;
    if (std::string c = t.texter.cond(i.cond, true); !c.empty()) t.constraints.push_back(c);
    t.time.push_back("0");
    t.time.push_back("0");
    t.slotFree = true;
    collect(i.then, std::move(t));
    if (i.otherwise) {
      Occurrence o = ctx;
      if (std::string c = o.texter.cond(i.cond, false); !c.empty()) o.constraints.push_back(c);
      o.time.push_back("1");
      o.time.push_back("0");
      o.slotFree = true;
      collect(i.otherwise, std::move(o));
    }
  }
  void visitStore(const Store& st, Occurrence ctx) override {
    add(st, st.tag, {st.tensor, st.indices}, st.loc, st.value, std::move(ctx));
  }
  void visitReduce(const Reduce& r, Occurrence ctx) override {
    ctx.isReduce = true;
    ctx.op = r.op;
    add(r, r.tag, {r.tensor, r.indices}, r.loc, r.value, std::move(ctx));
  }

  void add(const Stmt& s, const StmtTag& tag, Access write, SourceLoc loc, const ExprP& value, Occurrence o) {
    if (!tag.known()) return;
    o.node = &s;
    o.tag = tag;
    o.write = std::move(write);
    o.loc = loc;
    o.reads = o.controlReads;
    for (auto& i : o.write.indices) addReads(o.reads, i);
    addReads(o.reads, value);
    out_.push_back(std::move(o));
  }

  std::vector<Occurrence>& out_;
  int varDefs_ = 0;
};

}  // namespace

std::vector<Occurrence> occurrences(const StmtP& nest, bool loadsAsParameters) {
  std::vector<Occurrence> out;
  Occurrence root;
  root.time = {"0"};
  if (loadsAsParameters) root.texter.written = std::make_shared<const std::set<std::string>>(tensorsWritten(nest));
  OccurrenceCollector(out).collect(nest, root);
  return out;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string tupleName(const std::string& id) {
  // Letters and digits stay; '_' doubles and anything else is '_' and its
  // code, so different ids keep different names ("C.L1.1.in": "C_46_L1_46_1_46_in").
  std::string out;
  for (unsigned char c : id) {
    if (std::isalnum(c)) out += static_cast<char>(c);
    else if (c == '_') out += "__";
    else out += "_" + std::to_string(c) + "_";
  }
  return out;
}

namespace {

// The names in an isl constraint's text, isl's own words left out.
std::vector<std::string> namesIn(const std::string& text) {
  static const std::set<std::string> words{"and", "or", "not", "mod", "floor", "ceil", "min", "max", "exists"};
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[at]);
    if (!(std::isalpha(c) || c == '_')) {
      ++at;
      continue;
    }
    size_t end = at;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    std::string name = text.substr(at, end - at);
    if (!words.count(name)) out.push_back(name);
    at = end;
  }
  return out;
}

// A value loaded from data (Texter's "u<k>").
bool isUnknown(const std::string& name) {
  if (name.size() < 2 || name[0] != 'u') return false;
  for (size_t k = 1; k < name.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(name[k]))) return false;
  return true;
}

// Drops from `eqs` the groups of constraints that name only loaded values
// and share none with the other constraints (the checks of indices read from
// data, the bounds of a CSR row loop): whether values exist that meet such a
// group decides whether any instance runs, not which. isl would multiply the
// disjunctions of every group out (time exponential in the checks: the
// loads y[col[k]] of a row loop, each with its check); each group is asked
// alone instead. False where a group cannot be met (no instance).
bool withoutDataOnlyGroups(isl_ctx* ctx, std::vector<std::string>& eqs) {
  size_t n = eqs.size();
  std::vector<size_t> parent(n);
  for (size_t k = 0; k < n; ++k) parent[k] = k;
  auto root = [&](size_t k) {
    while (parent[k] != k) k = parent[k] = parent[parent[k]];
    return k;
  };
  std::vector<bool> anchored(n, false);
  std::map<std::string, size_t> firstWith;
  for (size_t k = 0; k < n; ++k) {
    auto names = namesIn(eqs[k]);
    if (names.empty()) anchored[k] = true;  // a constant fact: left to isl
    for (auto& name : names) {
      if (!isUnknown(name)) {
        anchored[k] = true;
        continue;
      }
      auto [it, fresh] = firstWith.emplace(name, k);
      if (!fresh) parent[root(k)] = root(it->second);
    }
  }
  std::vector<bool> groupAnchored(n, false);
  for (size_t k = 0; k < n; ++k)
    if (anchored[k]) groupAnchored[root(k)] = true;
  std::map<size_t, std::vector<std::string>> groups;
  std::vector<std::string> kept;
  for (size_t k = 0; k < n; ++k) {
    if (groupAnchored[root(k)]) kept.push_back(eqs[k]);
    else groups[root(k)].push_back(eqs[k]);
  }
  if (groups.empty()) return true;
  for (auto& [r, group] : groups) {
    std::set<std::string> unknowns;
    for (auto& c : group)
      for (auto& name : namesIn(c)) unknowns.insert(name);
    std::string text = "{ : exists (" + join(std::vector<std::string>(unknowns.begin(), unknowns.end()), ", ") +
                       " : " + join(group, " and ") + ") }";
    isl_set* set = isl_set_read_from_str(ctx, text.c_str());
    if (!set) throw IslFailure{};
    isl_bool empty = isl_set_is_empty(set);
    isl_set_free(set);
    if (empty == isl_bool_error) throw IslFailure{};
    if (empty == isl_bool_true) return false;
  }
  eqs = std::move(kept);
  return true;
}

std::string relationText(const Occurrence& o, const std::string& rhsTuple, const std::vector<std::string>& values,
                         isl_ctx* ctx) {
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
  std::vector<std::string> quantified = o.vars;
  if (ctx) {
    if (!withoutDataOnlyGroups(ctx, eqs)) eqs = {"1 = 0"};
    std::set<std::string> used;  // the loaded values the constraints left still name
    for (auto& c : eqs)
      for (auto& name : namesIn(c))
        if (isUnknown(name)) used.insert(name);
    for (auto& u : o.texter.unknowns)
      if (used.count(u)) quantified.push_back(u);
  } else {
    quantified.insert(quantified.end(), o.texter.unknowns.begin(), o.texter.unknowns.end());
  }
  std::string body = join(eqs, " and ");
  if (ctx && body.empty()) body = "0 = 0";
  if (!quantified.empty()) body = "exists (" + join(quantified, ", ") + " : " + body + ")";
  return withParams(o.texter.params, "{ " + tupleName(o.tag.id) + "[" + join(outs, ", ") + "] -> " + rhsTuple + "[" +
                                          join(rv, ", ") + "] : " + body + " }");
}

}  // namespace

// { Sid[origin] -> <rhs>[values] : the occurrence's domain }
std::string relation(const Occurrence& o, const std::string& rhsTuple, const std::vector<std::string>& values) {
  return relationText(o, rhsTuple, values, nullptr);
}

UMap relationMap(isl_ctx* ctx, const Occurrence& o, const std::string& rhsTuple, const std::vector<std::string>& values) {
  return read(ctx, relationText(o, rhsTuple, values, ctx));
}

std::string withParams(const std::set<std::string>& params, const std::string& map) {
  if (params.empty()) return map;
  return "[" + join(std::vector<std::string>(params.begin(), params.end()), ", ") + "] -> " + map;
}

UMap read(isl_ctx* ctx, const std::string& text) {
  return check(isl_union_map_read_from_str(ctx, text.c_str()));
}

UMap empty(isl_ctx* ctx) { return check(isl_union_map_read_from_str(ctx, "{ }")); }

// The schedule of every instance: statement instance -> time vector (padded).
std::vector<UMap> schedules(isl_ctx* ctx, const std::vector<Occurrence>& occ) {
  size_t len = 0;
  for (auto& o : occ) len = std::max(len, o.time.size());
  std::vector<UMap> out;
  for (auto& o : occ) {
    std::vector<std::string> t = o.time;
    t.resize(len, "0");
    out.push_back(relationMap(ctx, o, "T", t));
  }
  return out;
}

UMap schedule(isl_ctx* ctx, const std::vector<Occurrence>& occ) {
  UMap m = empty(ctx);
  for (auto& t : schedules(ctx, occ)) m = unite(m, t);
  return m;
}

UMap accessRelation(isl_ctx* ctx, const Occurrence& o, const Access& a) {
  std::vector<std::string> idx;
  std::string tuple = "A_" + tupleName(a.tensor);  // "x.grad" is no isl name
  if (auto s = o.scoped.find(a.tensor); s != o.scoped.end()) {
    tuple = s->second.tuple;
    idx = s->second.prefix;
  }
  for (auto& i : a.indices) idx.push_back(o.texter.expr(i));
  return relationMap(ctx, o, tuple, idx);
}

}  // namespace teml::analysis::isl_model
