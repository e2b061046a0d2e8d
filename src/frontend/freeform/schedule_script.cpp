// The schedule in the program file: `@teml.schedule(entry)` functions whose
// body calls primitives on their one parameter (`s.split("Li", 8)`); loops
// are named by label or by a handle a primitive returned. The front end
// reads them into the user's schedule as data (ir/user_schedule.hpp); the
// schedule stage (pipeline/freeform_schedule.cpp) replays them.
#include "frontend/freeform/builder.hpp"
#include "target/target.hpp"

namespace teml::freeform {

using namespace ir;

namespace {

[[noreturn]] void fail(SourceLoc loc, const std::string& m) { throw UserError(loc, m); }

// Reads one schedule function's statements into steps.
class ScheduleReader {
 public:
  ScheduleReader(const std::map<std::string, Value>& globals, UserSchedule& out) : globals_(globals), out_(out) {}

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
        if (st.kids[0]->kind == NodeKind::Call) return call(*st.kids[0], {}, st.loc);
        argument(st.kids[0]);
        return;
      case NodeKind::Assign: {
        const NodeP& t = st.kids[0];
        const NodeP& v = st.kids[1];
        std::vector<std::string> targets;
        if (t->kind == NodeKind::Name) targets.push_back(t->text);
        if (t->kind == NodeKind::Tuple)
          for (auto& k : t->kids) {
            if (k->kind != NodeKind::Name) fail(k->loc, "expected a name");
            targets.push_back(k->text);
          }
        if (targets.empty())
          fail(t->loc, "cannot assign this in a schedule (names, or as many names as the primitive returns)");
        if (v->kind == NodeKind::Call) return call(*v, targets, t->loc);
        // A label or number given a name: the name stands for it from here on.
        StepArg a = argument(v);
        if (targets.size() == 1) return bind(targets[0], a);
        if (a.kind != StepArg::Kind::List || a.items.size() != targets.size())
          fail(t->loc, "cannot assign this in a schedule (names, or as many names as the primitive returns)");
        for (size_t k = 0; k < targets.size(); ++k) bind(targets[k], a.items[k]);
        return;
      }
      default: fail(st.loc, "not supported in schedules: this statement (calls of primitives and assignments of their handles)");
    }
  }

  void bind(const std::string& name, const StepArg& a) {
    handles_.erase(name);
    aliases_[name] = a;
  }

  StepArg argument(const NodeP& e) {
    StepArg a;
    a.loc = e->loc;
    switch (e->kind) {
      case NodeKind::Str:
        a.kind = StepArg::Kind::Text;
        a.text = e->text;
        return a;
      case NodeKind::Int:
        a.kind = StepArg::Kind::Number;
        a.number = e->intValue;
        return a;
      case NodeKind::UnaryOp:
        if (e->text == "-" && e->kids[0]->kind == NodeKind::Int) {
          a.kind = StepArg::Kind::Number;
          a.number = -e->kids[0]->intValue;
          return a;
        }
        break;
      case NodeKind::Name: {
        a.written = e->text;
        if (handles_.count(e->text)) {
          a.kind = StepArg::Kind::Name;
          a.text = e->text;
          return a;
        }
        auto alias = aliases_.find(e->text);
        if (alias != aliases_.end()) {
          StepArg b = alias->second;
          b.loc = e->loc;
          return b;
        }
        auto g = globals_.find(e->text);
        if (g != globals_.end() && g->second.isNumber()) {
          a.kind = g->second.isInteger() ? StepArg::Kind::Number : StepArg::Kind::Other;
          a.number = g->second.i;
          a.what = "a number";
          return a;
        }
        fail(e->loc, "unknown name '" + e->text + "' in the schedule");
      }
      case NodeKind::List:
      case NodeKind::Tuple:
        a.kind = StepArg::Kind::List;
        for (auto& k : e->kids) a.items.push_back(argument(k));
        return a;
      case NodeKind::Call: {  // a primitive's handles used at once: a step of its own
        std::string name = "%" + std::to_string(++hidden_);
        call(*e, {name}, e->loc);
        a.kind = StepArg::Kind::Name;
        a.text = name;
        return a;
      }
      default: break;
    }
    fail(e->loc, "not supported in schedules: this expression");
  }

  void call(const Node& c, const std::vector<std::string>& results, SourceLoc resultsLoc) {
    const NodeP& callee = c.kids[0];
    if (callee->kind != NodeKind::Attribute || callee->kids[0]->kind != NodeKind::Name || callee->kids[0]->text != self_)
      fail(c.loc, "a schedule calls primitives on its parameter: " + self_ + ".split(...), " + self_ + ".reorder(...), ...");
    UserStep step;
    step.primitive = callee->text;
    step.loc = c.loc;
    step.primitiveLoc = callee->loc;
    step.resultsLoc = resultsLoc;
    step.results = results;
    size_t positional = c.kids.size() - 1 - c.keywords.size();
    for (size_t k = 1; k < c.kids.size(); ++k) {
      StepArg v = argument(c.kids[k]);
      if (k - 1 < positional) step.args.push_back(v);
      else step.keywords.emplace_back(c.keywords[k - 1 - positional], v);
    }
    for (auto& r : results) {
      aliases_.erase(r);
      handles_.insert(r);
    }
    out_.steps.push_back(std::move(step));
  }

  const std::map<std::string, Value>& globals_;
  UserSchedule& out_;
  std::string self_;
  std::set<std::string> handles_;           // names of what primitives returned
  std::map<std::string, StepArg> aliases_;  // names given to labels and numbers
  int hidden_ = 0;
};

}  // namespace

void Builder::readSchedules(const std::string& entry, FreeformProgram* out) {
  for (auto& s : module_->kids) {
    if (s->kind != NodeKind::FunctionDef || !options_.applySchedules) continue;
    for (auto& d : s->decorators) {
      if (!isDecorator(d, "schedule")) continue;
      if (d->kind != NodeKind::Call || d->kids.size() != 2 + d->keywords.size() || d->kids[1]->kind != NodeKind::Name)
        fail(d->loc, "write @teml.schedule(entry) with the entry function itself");
      if (!functions_.count(d->kids[1]->text)) fail(d->kids[1]->loc, "unknown function '" + d->kids[1]->text + "'");
      std::string target;
      for (size_t k = 0; k < d->keywords.size(); ++k) {
        const NodeP& v = d->kids[2 + k];
        if (d->keywords[k] != "target" || v->kind != NodeKind::Str || !target::kindNamed(v->text))
          fail(v->loc, "@teml.schedule takes (entry) or (entry, target=\"cpu\" or \"cuda\")");
        target = v->text;
      }
      if (d->kids[1]->text != entry) continue;  // the schedule of another entry
      ir::UserSchedule* into = &out->schedule;
      for (auto& t : out->targetSchedules)
        if (t.target == target) into = &t;
      if (!target.empty() && into == &out->schedule) into = &out->targetSchedules.emplace_back();
      ScheduleReader(globals_, *into).run(*s);
      into->given = true;
      into->target = target;
    }
  }
}

}  // namespace teml::freeform
