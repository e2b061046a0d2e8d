// A program under transformation, and the rules that keep it computing the
// same values. Every front end's loop transformations go through a
// Schedule: each primitive rewrites the nests it is given, then the result
// is verified (ir::verify) and checked — dependences kept (the before/after
// comparison of analysis/legality) for primitives that reorder, every local
// tensor kept and still used within one iteration of its loop, no
// transformation but marking ones after a cache — and returned, or a
// ScheduleError says why not and nothing changes. Nests are values: a
// primitive returns a new nest and leaves its inputs as they were.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "schedule/schedule_error.hpp"

namespace teml::schedule {

struct ScheduleOptions {
  bool checkLegality = true;     // false: transformations unchecked (teml --no-check)
  std::string analysisCacheDir;  // where dependence-analysis answers are kept ("": nowhere)
};

struct ScheduleStats {
  double analysisSeconds = 0;  // time spent in dependence analysis
  int checks = 0;              // reorderings checked
};

class Schedule {
 public:
  // `program`: its tensors and initial values (it may grow while scheduling).
  Schedule(const ir::Program& program, ScheduleOptions options) : program_(program), options_(std::move(options)) {}

  // Loops are addressed by level, 1 the outermost (front ends translate their names).
  ir::StmtP stripmine(const ir::StmtP& l, int r, int64_t factor);
  ir::StmtP stripmineN(const ir::StmtP& l, int r, int64_t factor);
  ir::StmtP interchange(const ir::StmtP& l, int r1, int r2);
  ir::StmtP interchangeN(const ir::StmtP& l, int r, int64_t n);
  ir::StmtP fuseOuter(const ir::StmtP& a, const ir::StmtP& b, int r);
  ir::StmtP fuseInner(const ir::StmtP& l, int r);
  ir::StmtP unroll(const ir::StmtP& l, int r);
  ir::StmtP unrollPartial(const ir::StmtP& l, int r, int64_t factor);
  ir::StmtP unrollAndJam(const ir::StmtP& l, int r, int64_t factor);
  ir::StmtP tile(const ir::StmtP& l, int64_t factor);
  ir::StmtP skew(const ir::StmtP& l, int r1, int r2, int64_t factor);
  ir::StmtP fission(const ir::StmtP& l, int r, int k);
  ir::StmtP swap(const ir::StmtP& l, int r, int a, int b);
  ir::StmtP merge(const ir::StmtP& l, int r);
  ir::StmtP blend(const ir::StmtP& l, int r);
  ir::StmtP separateTail(const ir::StmtP& l, int r);
  ir::StmtP parallelize(const ir::StmtP& l, int r, ir::ThreadSchedule schedule);
  ir::StmtP vectorize(const ir::StmtP& l, int r);
  ir::StmtP asLib(const ir::StmtP& l);
  // `line`: where the front end asked for it, named by later refusals.
  ir::StmtP makeLocal(const ir::StmtP& l, int r, const std::string& tensor, int line);
  // The copy gets a fresh name: tensor_cache, tensor_cache2, ...
  ir::StmtP cache(const ir::StmtP& l, int r, const std::string& tensor, bool reduce, int line);
  ir::StmtP prefetch(const ir::StmtP& l, const std::string& copy, int64_t distance);
  ir::StmtP varReorder(const ir::StmtP& l, const std::string& tensor, const std::vector<int>& order);
  ir::StmtP varSplit(const ir::StmtP& l, const std::string& tensor, int dim, int64_t factor);
  ir::StmtP varMerge(const ir::StmtP& l, const std::string& tensor, int dim);
  ir::StmtP replaceArray(const ir::StmtP& l, int r, const std::string& old, const ir::TensorDecl& replacement,
                         const std::vector<int>& sigma, bool physical);

  // A nest the program will run (after those admitted before): its loops
  // marked parallel or vector are free of races, iterators in scope, and its
  // local tensors belong to it alone and start from their initial values.
  void admit(const ir::StmtP& nest);
  // Tensors local to loops of admitted nests: not program buffers.
  std::set<std::string> localTensors() const;
  const ScheduleStats& stats() const { return stats_; }

 private:
  // Runs the primitive `what` (`transform`) on `inputs`, then verifies and
  // checks its result; `reorders`: compare the order of its instances with
  // the inputs' (taken as one sequence).
  ir::StmtP apply(const std::string& what, const std::vector<ir::StmtP>& inputs, bool reorders,
                  const std::function<ir::StmtP()>& transform);
  void checkReordering(const std::string& what, const ir::StmtP& before, const ir::StmtP& after);
  void keepsLocals(const std::string& what, const std::vector<ir::StmtP>& inputs, const ir::StmtP& result);

  const ir::Program& program_;
  ScheduleOptions options_;
  ScheduleStats stats_;
  std::map<std::string, int> localLines_;       // local tensor (or cache copy) -> line that made it
  std::map<std::string, ir::StmtP> localNests_;  // local tensor -> the admitted nest it is local to
  std::vector<ir::StmtP> admitted_;
};

}  // namespace teml::schedule
