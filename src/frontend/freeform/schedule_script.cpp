// The schedule in the program file: `@teml.schedule(entry)` functions whose
// body calls primitives on their one parameter (`s.split("Li", 8)`); loops
// are named by label or by a handle a primitive returned. Each primitive
// runs through schedule::Schedule and a refusal is an error at its call.
#include <chrono>

#include "autoschedule/auto_schedule.hpp"
#include "frontend/freeform/lowerer.hpp"
#include "schedule/schedule.hpp"

namespace teml::freeform {

using namespace ir;

namespace {

[[noreturn]] void fail(SourceLoc loc, const std::string& m) { throw UserError(loc, m); }

// Runs one schedule function's statements.
class ScheduleScript {
 public:
  ScheduleScript(schedule::Schedule& s, const std::map<std::string, Value>& globals, StmtP& body,
                 const target::Target& target, FreeformProgram* out)
      : sch_(s), globals_(globals), body_(body), target_(target), out_(out) {}

  void run(const Node& fn) {
    if (fn.params.size() != 1) fail(fn.loc, "a schedule function takes one parameter (the schedule)");
    self_ = fn.params[0]->text;
    for (auto& st : fn.kids) statement(*st);
  }

 private:
  void statement(const Node& st) {
    switch (st.kind) {
      case NodeKind::Pass: return;
      case NodeKind::ExprStmt:
        if (st.kids[0]->kind == NodeKind::Str) return;
        value(st.kids[0]);
        return;
      case NodeKind::Assign: {
        Value v = value(st.kids[1]);
        const NodeP& t = st.kids[0];
        if (t->kind == NodeKind::Name) {
          names_[t->text] = v;
          return;
        }
        if (t->kind == NodeKind::Tuple && v.kind == Value::Kind::Tuple && v.items.size() == t->kids.size()) {
          for (size_t k = 0; k < t->kids.size(); ++k) {
            if (t->kids[k]->kind != NodeKind::Name) fail(t->kids[k]->loc, "expected a name");
            names_[t->kids[k]->text] = v.items[k];
          }
          return;
        }
        fail(t->loc, "cannot assign this in a schedule (names, or as many names as the primitive returns)");
      }
      default: fail(st.loc, "not supported in schedules: this statement (calls of primitives and assignments of their handles)");
    }
  }

  Value value(const NodeP& e) {
    switch (e->kind) {
      case NodeKind::Str: return Value::string(e->text);
      case NodeKind::Int: return Value::number(e->intValue);
      case NodeKind::UnaryOp:
        if (e->text == "-" && e->kids[0]->kind == NodeKind::Int) return Value::number(-e->kids[0]->intValue);
        break;
      case NodeKind::Name: {
        auto n = names_.find(e->text);
        if (n != names_.end()) return n->second;
        auto g = globals_.find(e->text);
        if (g != globals_.end() && g->second.isNumber()) return g->second;
        fail(e->loc, "unknown name '" + e->text + "' in the schedule");
      }
      case NodeKind::List:
      case NodeKind::Tuple: {
        std::vector<Value> items;
        for (auto& k : e->kids) items.push_back(value(k));
        return Value::tuple(items);
      }
      case NodeKind::Call: return primitive(*e);
      default: break;
    }
    fail(e->loc, "not supported in schedules: this expression");
  }

  std::string loop(const Value& v, SourceLoc loc) {
    if (v.kind != Value::Kind::String) fail(loc, "expected a loop: a label (a string) or a handle");
    return v.text;
  }
  int64_t integer(const Value& v, SourceLoc loc) {
    if (!v.isInteger()) fail(loc, "expected an integer");
    return v.i;
  }

  Value handles(const std::vector<std::string>& ids) {
    std::vector<Value> items;
    for (auto& id : ids) items.push_back(Value::string(id));
    return items.size() == 1 ? items[0] : Value::tuple(items);
  }

  Value primitive(const Node& c) {
    const NodeP& callee = c.kids[0];
    if (callee->kind != NodeKind::Attribute || callee->kids[0]->kind != NodeKind::Name || callee->kids[0]->text != self_)
      fail(c.loc, "a schedule calls primitives on its parameter: " + self_ + ".split(...), " + self_ + ".reorder(...), ...");
    const std::string& p = callee->text;
    std::vector<Value> args;
    std::map<std::string, Value> kw;
    size_t positional = c.kids.size() - 1 - c.keywords.size();
    for (size_t k = 1; k < c.kids.size(); ++k) {
      Value v = value(c.kids[k]);
      if (k - 1 < positional) args.push_back(v);
      else kw[c.keywords[k - 1 - positional]] = v;
    }
    auto arity = [&](size_t lo, size_t hi, const std::string& usage) {
      if (args.size() < lo || args.size() > hi) fail(c.loc, p + " takes " + usage);
    };
    auto keywords = [&](std::set<std::string> allowed) {
      for (auto& [k, v] : kw)
        if (!allowed.count(k)) fail(c.loc, p + "() takes no keyword argument '" + k + "'");
    };
    auto at = [&](size_t k) { return c.kids[k + 1]->loc; };
    try {
      schedule::Schedule::Applied r;
      if (p == "split") {
        keywords({"factor", "nparts"});
        arity(1, 2, "split(loop, factor) or split(loop, nparts=n)");
        std::string l = loop(args[0], at(0));
        if (kw.count("nparts")) r = sch_.splitN(body_, l, integer(kw["nparts"], c.loc));
        else r = sch_.split(body_, l, integer(args.size() == 2 ? args[1] : kw["factor"], c.loc));
        body_ = r.result;
        return handles({r.created.at(0), l});
      }
      keywords({});
      if (p == "auto_schedule") {
        // The automatic schedule of what the steps before left alone.
        arity(0, 0, "auto_schedule(): no arguments");
        auto start = std::chrono::steady_clock::now();
        auto chosen = autoschedule::autoSchedule(sch_, body_, target_);
        out_->autoSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        body_ = chosen.body;
        for (auto& step : chosen.steps) out_->autoSteps.push_back(autoschedule::freeformText(step));
        out_->autoScheduled = true;
        return Value{};
      }
      if (p == "reorder") {
        arity(1, 1, "reorder([loops, outermost first])");
        if (args[0].kind != Value::Kind::Tuple) fail(at(0), "reorder takes a list of loops");
        std::vector<std::string> order;
        for (auto& v : args[0].items) order.push_back(loop(v, at(0)));
        r = sch_.reorder(body_, order);
      } else if (p == "interchange") {
        arity(2, 2, "interchange(a, b): two loops of one perfect nest trade places");
        r = sch_.interchange(body_, loop(args[0], at(0)), loop(args[1], at(1)));
      } else if (p == "tile") {
        arity(2, 2, "tile(loop, factor): every loop of the perfect nest below it, in blocks");
        r = sch_.tile(body_, loop(args[0], at(0)), integer(args[1], at(1)));
      } else if (p == "merge") {
        arity(2, 2, "merge(outer, inner)");
        r = sch_.merge(body_, loop(args[0], at(0)), loop(args[1], at(1)));
        body_ = r.result;
        return handles({loop(args[0], at(0))});  // the merged loop keeps the outer one's id
      } else if (p == "fuse") {
        arity(2, 2, "fuse(first, second)");
        r = sch_.fuse(body_, loop(args[0], at(0)), loop(args[1], at(1)));
        body_ = r.result;
        return handles({loop(args[0], at(0))});
      } else if (p == "fission") {
        arity(2, 2, "fission(loop, k): the first k statements of its body stay, the rest go to a second loop");
        r = sch_.fission(body_, loop(args[0], at(0)), static_cast<int>(integer(args[1], at(1))));
      } else if (p == "swap") {
        arity(3, 3, "swap(loop, a, b): statements a and b of its body trade places");
        r = sch_.swap(body_, loop(args[0], at(0)), static_cast<int>(integer(args[1], at(1))),
                      static_cast<int>(integer(args[2], at(2))));
      } else if (p == "blend") {
        arity(1, 1, "blend(loop)");
        r = sch_.blend(body_, loop(args[0], at(0)));
      } else if (p == "unroll") {
        arity(1, 2, "unroll(loop) or unroll(loop, factor)");
        r = args.size() == 2 ? sch_.unroll(body_, loop(args[0], at(0)), integer(args[1], at(1)))
                             : sch_.unroll(body_, loop(args[0], at(0)));
      } else if (p == "unroll_and_jam") {
        arity(2, 2, "unroll_and_jam(loop, factor)");
        r = sch_.unrollAndJam(body_, loop(args[0], at(0)), integer(args[1], at(1)));
      } else if (p == "parallelize") {
        arity(1, 2, "parallelize(loop) or parallelize(loop, \"static\"|\"dynamic\"|\"guided\")");
        ThreadSchedule t = ThreadSchedule::Static;
        if (args.size() == 2) {
          std::string s = args[1].kind == Value::Kind::String ? args[1].text : "";
          if (s == "dynamic") t = ThreadSchedule::Dynamic;
          else if (s == "guided") t = ThreadSchedule::Guided;
          else if (s != "static") fail(at(1), "the thread schedule is \"static\", \"dynamic\" or \"guided\"");
        }
        r = sch_.parallelize(body_, loop(args[0], at(0)), t);
      } else if (p == "vectorize") {
        arity(1, 1, "vectorize(loop)");
        r = sch_.vectorize(body_, loop(args[0], at(0)));
      } else if (p == "hoist_product") {
        arity(1, 1, "hoist_product(loop)");
        r = sch_.hoistProduct(body_, loop(args[0], at(0)));
      } else if (p == "factor_sum") {
        arity(1, 1, "factor_sum(loop)");
        r = sch_.factorSum(body_, loop(args[0], at(0)));
      } else if (p == "separate_tail") {
        arity(1, 1, "separate_tail(loop)");
        r = sch_.separateTail(body_, loop(args[0], at(0)));
      } else if (p == "skew") {
        arity(3, 3, "skew(outer, inner, factor)");
        r = sch_.skew(body_, loop(args[0], at(0)), loop(args[1], at(1)), integer(args[2], at(2)));
      } else if (p == "as_lib") {
        arity(1, 1, "as_lib(loop)");
        r = sch_.asLib(body_, loop(args[0], at(0)));
      } else if (p == "cache" || p == "cache_reduce") {
        arity(2, 2, p + "(loop, tensor)");
        if (args[1].kind != Value::Kind::String) fail(at(1), p + ": name the tensor as a string");
        r = sch_.cache(body_, loop(args[0], at(0)), args[1].text, p == "cache_reduce", c.loc.line);
      } else {
        fail(callee->loc, "unknown schedule primitive '" + p + "'");
      }
      body_ = r.result;
      return handles(r.created);
    } catch (const schedule::ScheduleError& e) {
      fail(c.loc, e.what());
    }
  }

  schedule::Schedule& sch_;
  const std::map<std::string, Value>& globals_;
  StmtP& body_;
  const target::Target& target_;
  FreeformProgram* out_;
  std::string self_;
  std::map<std::string, Value> names_;
};

}  // namespace

void Lowerer::runSchedules(const std::string& entry, StmtP& body, FreeformProgram* out) {
  schedule::Schedule sch(program_, schedule::ScheduleOptions{options_.checkLegality, options_.analysisCacheDir});
  bool scheduled = false;
  const target::Target& target = options_.target;
  for (auto& s : module_->kids) {
    if (s->kind != NodeKind::FunctionDef || !options_.applySchedules) continue;
    for (auto& d : s->decorators) {
      if (!isDecorator(d, "schedule")) continue;
      if (d->kind != NodeKind::Call || d->kids.size() != 2 || d->kids[1]->kind != NodeKind::Name)
        fail(d->loc, "write @teml.schedule(entry) with the entry function itself");
      if (!functions_.count(d->kids[1]->text)) fail(d->kids[1]->loc, "unknown function '" + d->kids[1]->text + "'");
      if (d->kids[1]->text != entry) continue;  // the schedule of another entry
      ScheduleScript(sch, globals_, body, target, out).run(*s);
      scheduled = true;
    }
  }
  if (!scheduled && options_.autoSchedule) {
    auto start = std::chrono::steady_clock::now();
    auto chosen = autoschedule::autoSchedule(sch, body, target);
    out->autoSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    body = chosen.body;
    for (auto& step : chosen.steps) out->autoSteps.push_back(autoschedule::freeformText(step));
    out->autoScheduled = true;
  }
  try {
    sch.admit(body);
  } catch (const schedule::ScheduleError& e) {
    fail({1, 1}, e.what());
  }
  out->analysisSeconds = sch.stats().analysisSeconds;
}

}  // namespace teml::freeform
