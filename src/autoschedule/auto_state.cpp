#include "autoschedule/auto_state.hpp"

#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

std::optional<int64_t> AutoState::elementCount(const std::string& name) const {
  if (const ir::TensorDecl* decl = tensor(name)) return decl->elementCount();
  std::optional<int64_t> n;
  ir::forEachStmt(body, [&](const ir::StmtP& x) {
    if (x->kind == ir::StmtKind::VarDef && x->as<ir::VarDef>().decl.name == name) n = x->as<ir::VarDef>().decl.elementCount();
  });
  return n;
}

AutoState AutoState::fork(bool checked) const {
  AutoState copy = *this;
  copy.owned_ = std::make_shared<schedule::Schedule>(checked ? schedule_->checked() : *schedule_);
  copy.schedule_ = copy.owned_.get();
  return copy;
}

namespace {

// How TeML names the loop: its iterator, where it is the first loop over it
// (TeML's rule); a copy after it (an unroll-and-jam's remainder) by its id,
// quoted.
std::string temlLoopName(const ir::StmtP& body, const ir::For& f) {
  std::string first;
  ir::forEachStmt(body, [&](const ir::StmtP& s) {
    if (first.empty() && s->kind == ir::StmtKind::For && s->as<ir::For>().var == f.var) first = s->id;
  });
  return first == f.id ? f.var : "\"" + f.id + "\"";
}

}  // namespace

bool AutoState::tryStep(Step step) {
  step.iterators.clear();
  for (auto& id : step.loops) {
    const ir::For* f = loopWithId(body, id);
    if (!f) {
      lastRefusal_ = Refused{schedule::Refusal::NotApplicable, step.primitive + ": no loop '" + id + "'"};
      return false;
    }
    step.iterators.push_back(temlLoopName(body, *f));
  }
  try {
    auto applied = applyStep(*schedule_, body, step);
    body = applied.result;
    step.created = applied.created;
  } catch (const schedule::ScheduleError& e) {
    lastRefusal_ = Refused{e.kind(), e.what()};
    return false;
  }
  steps.push_back(std::move(step));
  return true;
}

bool AutoState::replay(const std::vector<Step>& taken) {
  Saved before = save();
  for (auto& step : taken)
    if (!tryStep(step)) {
      restore(before);
      return false;
    }
  return true;
}

std::vector<std::string> AutoState::loops(const std::function<bool(const ir::For&)>& pred) const {
  std::vector<std::string> out;
  ir::forEachStmt(body, [&](const ir::StmtP& s) {
    if (s->kind == ir::StmtKind::For && pred(s->as<ir::For>())) out.push_back(s->id);
  });
  return out;
}

std::vector<ir::StmtP> AutoState::statements(const std::function<bool(const ir::Stmt&)>& pred) const {
  std::vector<ir::StmtP> out;
  ir::forEachStmt(body, [&](const ir::StmtP& s) {
    if (pred(*s)) out.push_back(s);
  });
  return out;
}

}  // namespace teml::autoschedule
