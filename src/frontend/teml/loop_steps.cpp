// TeML's loop expressions: build, and the transformations, each translated
// to a schedule::Schedule primitive (which checks it).
#include "frontend/teml/evaluator_state.hpp"
#include "ir/mutator.hpp"

namespace teml::teml_lang {

StmtP Evaluator::loopArg(const NodeP& n, const std::string& what) {
  const MetaValue& m = lookup(n, what);
  if (m.type == MetaValue::Type::Loop) {
    currentNest_ = m.loop;  // where level arguments given as iterator names are looked up
    return m.loop;
  }
  fail(n->loc, what + ": '" + n->name + "' is " + typeWord(m.type) + ", not a loop nest" +
                   (m.type == MetaValue::Type::Assignment ? " (build it first)" : ""));
}

void Evaluator::arity(const Call& c, size_t lo, size_t hi, const std::string& usage) {
  if (c.args.size() < lo || c.args.size() > hi) fail(c.loc, c.function + " takes " + usage);
}

StmtP Evaluator::loopExpr(const Call& c) {
  const std::string& f = c.function;
  try {
    if (f == "build") {
      arity(c, 1, 1, "one argument: build(assignment)");
      const MetaValue& m = lookup(c.args[0], f);
      if (m.type != MetaValue::Type::Assignment)
        fail(c.args[0]->loc, "build: '" + c.args[0]->name + "' is " + typeWord(m.type) +
                                 "; build wraps loops around an assignment (eq, op, contract, ...)");
      return build(*m.assign);
    }
    if (f == "stripmine") {
      arity(c, 3, 3, "stripmine(l, level, factor)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.split(l, loopAt(l, c.args[1], f), intArg(c.args[2], f)).result;
    }
    if (f == "stripmine_n") {
      arity(c, 3, 3, "stripmine_n(l, n, factor)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.splitN(l, loopAt(l, c.args[1], f), intArg(c.args[2], f)).result;
    }
    if (f == "interchange") {
      StmtP l = loopArg(c.args[0], f);
      if (c.args.size() == 2 && c.args[1]->kind == Kind::List && c.args[1]->kids.size() == 2)
        return schedule_.interchange(l, loopAt(l, c.args[1]->kids[0], f), loopAt(l, c.args[1]->kids[1], f)).result;
      arity(c, 3, 3, "interchange(l, level1, level2)");
      return schedule_.interchange(l, loopAt(l, c.args[1], f), loopAt(l, c.args[2], f)).result;
    }
    if (f == "reorder") {
      arity(c, 2, 2, "reorder(l, [levels, outermost first])");
      StmtP l = loopArg(c.args[0], f);
      if (c.args[1]->kind != Kind::List) fail(c.args[1]->loc, "reorder: expected a list of levels such as [i, k, j]");
      std::vector<std::string> order;
      for (auto& k : c.args[1]->kids) order.push_back(loopAt(l, k, f));
      return schedule_.reorder(l, order).result;
    }
    if (f == "interchange_n") {
      arity(c, 3, 3, "interchange_n(l, level, n)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.interchangeN(l, level(c.args[1], f), intArg(c.args[2], f));
    }
    if (f == "fuse_outer") {
      arity(c, 3, 3, "fuse_outer(l1, l2, level)");
      StmtP a = loopArg(c.args[0], f), b = loopArg(c.args[1], f);
      return schedule_.fuseOuter(a, b, level(c.args[2], f));
    }
    if (f == "fuse_inner") {
      arity(c, 2, 2, "fuse_inner(l, level)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.fuseInner(l, level(c.args[1], f));
    }
    if (f == "unroll") {
      arity(c, 2, 3, "unroll(l, level) or unroll(l, level, factor)");
      StmtP l = loopArg(c.args[0], f);
      std::string loop = loopAt(l, c.args[1], f);
      if (c.args.size() == 3) return schedule_.unroll(l, loop, intArg(c.args[2], f)).result;
      return schedule_.unroll(l, loop).result;
    }
    if (f == "unroll_and_jam") {
      arity(c, 3, 3, "unroll_and_jam(l, level, factor)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.unrollAndJam(l, loopAt(l, c.args[1], f), intArg(c.args[2], f)).result;
    }
    if (f == "tile") {
      arity(c, 2, 2, "tile(l, factor)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.tile(l, intArg(c.args[1], f));
    }
    if (f == "skew") {
      arity(c, 4, 4, "skew(l, level1, level2, factor)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.skew(l, loopAt(l, c.args[1], f), loopAt(l, c.args[2], f), intArg(c.args[3], f)).result;
    }
    if (f == "fission") {
      arity(c, 3, 3, "fission(l, level, k)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.fission(l, loopAt(l, c.args[1], f), static_cast<int>(intArg(c.args[2], f))).result;
    }
    if (f == "swap") {
      arity(c, 4, 4, "swap(l, level, a, b)");
      StmtP l = loopArg(c.args[0], f);
      int64_t r = intArg(c.args[1], f);
      if (r < 0 || r > 1000) fail(c.args[1]->loc, "swap: level " + std::to_string(r) + " does not exist");
      return schedule_.swap(l, static_cast<int>(r), static_cast<int>(intArg(c.args[2], f)),
                            static_cast<int>(intArg(c.args[3], f)));
    }
    if (f == "merge") {
      arity(c, 2, 2, "merge(l, level)");
      StmtP l = loopArg(c.args[0], f);
      int r = level(c.args[1], f);
      auto chain = schedule::loopsToLevel(l, r + 1, f);
      return schedule_.merge(l, chain[r - 1]->id, chain[r]->id).result;
    }
    if (f == "blend") {
      arity(c, 2, 2, "blend(l, level)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.blend(l, loopAt(l, c.args[1], f)).result;
    }
    if (f == "local") {
      arity(c, 3, 3, "local(l, level, tensor)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.makeLocal(l, loopAt(l, c.args[1], f), tensorArg(c.args[2], f), c.loc.line).result;
    }
    if (f == "cache_zeroed") {
      arity(c, 3, 3, "cache_zeroed(l, level, tensor)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.cacheZeroed(l, loopAt(l, c.args[1], f), tensorArg(c.args[2], f), c.loc.line).result;
    }
    if (f == "cache" || f == "cache_reduce") {
      arity(c, 3, 3, f + "(l, level, tensor)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.cache(l, loopAt(l, c.args[1], f), tensorArg(c.args[2], f), f == "cache_reduce", c.loc.line).result;
    }
    if (f == "prefetch") {
      arity(c, 2, 3, "prefetch(l, copy) or prefetch(l, copy, distance)");
      StmtP l = loopArg(c.args[0], f);
      std::string copy = localTensorArg(c.args[1], f);
      return schedule_.prefetch(l, copy, c.args.size() == 3 ? intArg(c.args[2], f) : 1);
    }
    if (f == "var_reorder" || f == "var_split" || f == "var_merge") {
      if (f == "var_reorder") arity(c, 3, 3, "var_reorder(l, tensor, [dimensions in their new order])");
      if (f == "var_split") arity(c, 4, 4, "var_split(l, tensor, dimension, factor)");
      if (f == "var_merge") arity(c, 3, 3, "var_merge(l, tensor, dimension)");
      StmtP l = loopArg(c.args[0], f);
      std::string t = localTensorArg(c.args[1], f);
      if (f == "var_split") return schedule_.varSplit(l, t, dimension(c.args[2], f), intArg(c.args[3], f));
      if (f == "var_merge") return schedule_.varMerge(l, t, dimension(c.args[2], f));
      const NodeP& list = c.args[2];
      if (list->kind != Kind::List) fail(list->loc, "var_reorder: expected a list of dimensions such as [2, 1]");
      std::vector<int> order;
      for (auto& k : list->kids) order.push_back(dimension(k, f));
      return schedule_.varReorder(l, t, order);
    }
    if (f == "replace_array") {
      arity(c, 4, 4, "replace_array(l, level, old, new)");
      StmtP l = loopArg(c.args[0], f);
      int r = level(c.args[1], f);
      std::string old = tensorArg(c.args[2], f);
      std::vector<int> sigma;
      Replacement rep = transposition(c.args[3], old, c.loc, &sigma);
      replacements_.push_back(rep);
      return schedule_.replaceArray(l, r, old, *decl(rep.replacement), sigma, !rep.isVirtual);
    }
    if (f == "as_lib") {
      arity(c, 1, 1, "as_lib(l)");
      return schedule_.asLib(loopArg(c.args[0], f));
    }
    if (f == "separate_tail") {
      arity(c, 2, 2, "separate_tail(l, level)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.separateTail(l, loopAt(l, c.args[1], f)).result;
    }
    if (f == "parallelize") {
      arity(c, 2, 3, "parallelize(l, level) or parallelize(l, level, static|dynamic|guided)");
      StmtP l = loopArg(c.args[0], f);
      std::string loop = loopAt(l, c.args[1], f);
      return schedule_.parallelize(l, loop, c.args.size() == 3 ? threadSchedule(c.args[2]) : ir::ThreadSchedule::Static)
          .result;
    }
    if (f == "auto_schedule") {
      // The automatic schedule of what the steps before left alone (a loop
      // already on threads or in lanes keeps its mark).
      arity(c, 1, 1, "auto_schedule(l)");
      StmtP l = loopArg(c.args[0], f);
      return autoSchedule(l, c.args[0]->name, assigningTo_);
    }
    if (f == "hoist_product") {
      arity(c, 2, 2, "hoist_product(l, level)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.hoistProduct(l, loopAt(l, c.args[1], f)).result;
    }
    if (f == "factor_sum") {
      arity(c, 2, 2, "factor_sum(l, level)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.factorSum(l, loopAt(l, c.args[1], f)).result;
    }
    if (f == "vectorize") {
      arity(c, 2, 2, "vectorize(l, level)");
      StmtP l = loopArg(c.args[0], f);
      return schedule_.vectorize(l, loopAt(l, c.args[1], f)).result;
    }
  } catch (const schedule::ScheduleError& e) {
    fail(c.loc, e.what());
  }
  fail(c.loc, "internal: unknown loop expression");
}

std::string Evaluator::tensorArg(const NodeP& n, const std::string& what) {
  const MetaValue& m = lookup(n, what);
  std::string name = m.type == MetaValue::Type::Tensor       ? m.tensor
                     : m.type == MetaValue::Type::Assignment ? m.assign->tensor
                                                             : "";
  if (name.empty() || !decl(name))
    fail(n->loc, what + ": '" + n->name + "' is " + typeWord(m.type) + ", not a declared tensor");
  return name;
}

std::string Evaluator::localTensorArg(const NodeP& n, const std::string& what) {
  if (n->kind == Kind::Name && !state_.count(n->name)) return n->name;
  return tensorArg(n, what);
}

ir::ThreadSchedule Evaluator::threadSchedule(const NodeP& n) {
  if (n->kind == Kind::Name) {
    if (n->name == "static") return ir::ThreadSchedule::Static;
    if (n->name == "dynamic") return ir::ThreadSchedule::Dynamic;
    if (n->name == "guided") return ir::ThreadSchedule::Guided;
  }
  fail(n->loc, "parallelize: the thread schedule must be static, dynamic or guided");
}

Replacement Evaluator::transposition(const NodeP& n, const std::string& old, SourceLoc loc, std::vector<int>* sigma) {
  const MetaValue& m = lookup(n, "replace_array");
  Replacement rep{old, "", m.type == MetaValue::Type::Expr, loc};
  std::string of;
  bool ok = false;
  if (m.type == MetaValue::Type::Expr && m.expr.indexed && m.expr.reductions.empty()) {
    ok = transpositionOf(m.expr.body, m.expr.dims, &of, sigma);
    rep.replacement = n->name;
  } else if (m.type == MetaValue::Type::Assignment && !m.assign->reduce) {
    std::vector<std::string> vars;
    for (auto& i : m.assign->indices)
      vars.push_back(i->kind == ir::ExprKind::Var ? static_cast<const ir::Var&>(*i).name : "");
    ok = transpositionOf(m.assign->value, vars, &of, sigma);
    rep.replacement = m.assign->tensor;
  }
  if (!ok || of != old)
    fail(n->loc, "replace_array: '" + n->name + "' is not a transposition of '" + old + "' (write it as transpose(" +
                     old + ", ...) or vtranspose(" + old + ", ...))");
  if (!rep.isVirtual) return rep;
  bool again = std::any_of(replacements_.begin(), replacements_.end(), [&](const Replacement& r) {
    return r.isVirtual && r.old == old && r.replacement == rep.replacement;
  });
  if (decl(rep.replacement) && !again)
    fail(n->loc, "replace_array: a tensor named '" + rep.replacement + "' already exists");
  if (!again) {
    ir::TensorDecl d = *decl(old);
    d.name = rep.replacement;
    for (size_t k = 0; k < sigma->size(); ++k) d.shape[(*sigma)[k]] = decl(old)->shape[k];
    program_.tensors.push_back(d);
    auto init = program_.initialValues.find(old);
    if (init != program_.initialValues.end()) program_.initialValues[d.name] = init->second;
  }
  return rep;
}

void Evaluator::refuseHalfReplaced(SourceLoc loc, const std::string& what, const StmtP& nest) {
  auto used = ir::tensorsAccessed(nest);
  for (auto& r : replacements_)
    if (r.isVirtual && used.count(r.old) && used.count(r.replacement))
      fail(loc, what + ": this nest accesses both '" + r.old + "' and its virtual transposition '" + r.replacement +
                    "' (replace_array at line " + std::to_string(r.loc.line) +
                    "); replace the remaining accesses of '" + r.old + "' first");
}

StmtP Evaluator::build(const lower::Assignment& a) {
  std::string n = std::to_string(++nestCounter_);
  StmtP nest = lower::buildNest(a, "L" + n + ".", "S" + n);
  if (std::string broken = ir::verify(nest, program_.tensors); !broken.empty())
    throw InternalError("build produced ill-formed IR: " + broken);
  return nest;
}

int Evaluator::level(const NodeP& n, const std::string& what) {
  if (n->kind == Kind::Name && !options_.sizes.count(n->name) && currentNest_) {
    int depth = schedule::perfectDepth(currentNest_);
    auto chain = schedule::loopsToLevel(currentNest_, std::max(depth, 1), what);
    for (size_t k = 0; k < chain.size(); ++k)
      if (chain[k]->var == n->name) return static_cast<int>(k + 1);
    std::string have;
    for (auto* f : chain) have += (have.empty() ? "" : ", ") + f->var;
    fail(n->loc, what + ": no loop over '" + n->name + "' among the nest's levels (" + have + ")");
  }
  return dimension(n, what);
}

std::string Evaluator::loopAt(const StmtP& nest, const NodeP& n, const std::string& what) {
  // An iterator's name: the first loop over it in program order, outermost
  // first (its level in a perfect nest; in a nest that an unroll-and-jam or
  // separate_tail split, the loop that kept its place, not the copies after it).
  if (n->kind == Kind::Name && !options_.sizes.count(n->name)) {
    std::string id;
    ir::forEachStmt(nest, [&](const StmtP& s) {
      if (id.empty() && s->kind == ir::StmtKind::For && static_cast<const ir::For&>(*s).var == n->name) id = s->id;
    });
    if (!id.empty()) return id;
  }
  int r = level(n, what);
  return schedule::loopsToLevel(nest, r, what)[r - 1]->id;
}

int Evaluator::dimension(const NodeP& n, const std::string& what) {
  int64_t v = intArg(n, what);
  if (v < 1 || v > 1000) fail(n->loc, what + ": level " + std::to_string(v) + " does not exist (levels count from 1)");
  return static_cast<int>(v);
}

}  // namespace teml::teml_lang
