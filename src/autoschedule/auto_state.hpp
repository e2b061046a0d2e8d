// A schedule under search, as a value: the nest so far, the Schedule whose
// primitives the passes try (each step legality-checked like a user's; a
// refused step is not taken, and why is kept, typed, so that a search can
// tell "does not apply" from "illegal" from "too complex to decide"), and
// the steps taken, as data that replays and prints in each front end's
// language (autoschedule/step.hpp). fork() gives an independent copy to try
// a candidate on; queries find loops and statements by predicate.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autoschedule/step.hpp"
#include "autoschedule/tuner.hpp"
#include "target/target.hpp"

namespace teml::autoschedule {

class AutoState {
 public:
  // Steps go through `schedule` (the front end's: what they leave behind,
  // such as a cache's name, is the program's).
  AutoState(schedule::Schedule& schedule, ir::StmtP body, const target::Target& target, Tuner* tuner = nullptr,
            const ir::Program* context = nullptr)
      : body(std::move(body)), target(target), tuner(tuner), context(context), schedule_(&schedule) {}

  // The same state on a copy of the Schedule: steps taken on the fork leave
  // this state, and the front end's Schedule, as they are. `checked`: the
  // copy checks every step even where the front end's does not (--no-check).
  AutoState fork(bool checked = false) const;

  ir::StmtP body;
  const target::Target& target;
  Tuner* tuner;                  // null: choices by heuristics alone
  const ir::Program* context;    // the tensors a measured candidate runs over
  std::vector<Step> steps;
  // Vector loops auto_sums_in_registers put around the loops they keep sums
  // across: auto_vectorize leaves the loops inside them alone, and the rest
  // of their nest still its own to vectorize.
  std::vector<std::string> lanesAroundSums;

  // Takes `step` when the Schedule accepts it (filling in its iterators and
  // the loops it made); false, with nothing changed and the refusal kept,
  // when it is refused.
  bool tryStep(Step step);
  // Takes `steps` (made on the same nest) one after another; false, with
  // nothing changed, when one is refused.
  bool replay(const std::vector<Step>& steps);
  // Whether steps are checked for legality (not under --no-check).
  bool checks() const { return schedule_->checksLegality(); }
  // A tensor of the program (its shape and element type); null if none.
  const ir::TensorDecl* tensor(const std::string& name) const { return schedule_->program().find(name); }
  // The elements of a tensor of the program or one the nest defines (nullopt: neither).
  std::optional<int64_t> elementCount(const std::string& name) const;
  // The ids of the loops the last step made.
  const std::vector<std::string>& made() const { return steps.back().created; }

  // Why the last refused step was refused.
  struct Refused {
    schedule::Refusal kind;
    std::string message;
  };
  const std::optional<Refused>& lastRefusal() const { return lastRefusal_; }

  // Loops (ids) and statements of the nest that satisfy `pred`, in program order.
  std::vector<std::string> loops(const std::function<bool(const ir::For&)>& pred) const;
  std::vector<ir::StmtP> statements(const std::function<bool(const ir::Stmt&)>& pred) const;

  // The nest and steps so far, to go back to when a group of steps fails
  // half-way.
  struct Saved {
    ir::StmtP body;
    size_t steps;
  };
  Saved save() const { return {body, steps.size()}; }
  void restore(const Saved& s) {
    body = s.body;
    steps.resize(s.steps);
  }

 private:
  schedule::Schedule* schedule_;
  std::shared_ptr<schedule::Schedule> owned_;  // a fork's own Schedule
  std::optional<Refused> lastRefusal_;
};

}  // namespace teml::autoschedule
