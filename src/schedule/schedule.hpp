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
  // Tensors whose contents come from outside (TeML's --input): the others
  // start as zeros unless the program initializes them.
  std::set<std::string> givenContents;
};

struct ScheduleStats {
  double analysisSeconds = 0;  // time spent in dependence analysis
  int checks = 0;              // reorderings checked
  // Steps applied without the dependence check they would have had
  // (--no-check), e.g. "interchange"; races are checked all the same.
  std::vector<std::string> unchecked;
};

class Schedule {
 public:
  // `program`: its tensors and initial values (it may grow while scheduling).
  Schedule(const ir::Program& program, ScheduleOptions options) : program_(program), options_(std::move(options)) {}
  const ir::Program& program() const { return program_; }

  // Loops addressed by level, 1 the outermost loop of `l`.
  ir::StmtP interchangeN(const ir::StmtP& l, int r, int64_t n);
  ir::StmtP fuseOuter(const ir::StmtP& a, const ir::StmtP& b, int r);
  ir::StmtP fuseInner(const ir::StmtP& l, int r);
  ir::StmtP tile(const ir::StmtP& l, int64_t factor);
  ir::StmtP swap(const ir::StmtP& l, int r, int a, int b);
  ir::StmtP asLib(const ir::StmtP& l);
  ir::StmtP prefetch(const ir::StmtP& l, const std::string& copy, int64_t distance);
  ir::StmtP varReorder(const ir::StmtP& l, const std::string& tensor, const std::vector<int>& order);
  ir::StmtP varSplit(const ir::StmtP& l, const std::string& tensor, int dim, int64_t factor);
  ir::StmtP varMerge(const ir::StmtP& l, const std::string& tensor, int dim);
  ir::StmtP replaceArray(const ir::StmtP& l, int r, const std::string& old, const ir::TensorDecl& replacement,
                         const std::vector<int>& sigma, bool physical);

  // Loops named by id (a free-form program's labels, a TeML level's loop)
  // anywhere in `top`, a whole statement: the primitive rewrites the perfect
  // nest the loop belongs to in place, and the checks run on all of `top`. Each returns the new
  // statement and the ids of the loops it made.
  struct Applied {
    ir::StmtP result;
    std::vector<std::string> created;
  };
  Applied split(const ir::StmtP& top, const std::string& loop, int64_t factor);  // created: the outer loop
  Applied splitN(const ir::StmtP& top, const std::string& loop, int64_t blocks);
  Applied splitParts(const ir::StmtP& top, const std::string& loop, int64_t parts);  // created: the outer loop
  Applied distribute(const ir::StmtP& top, const std::string& loop);
  Applied interchange(const ir::StmtP& top, const std::string& a, const std::string& b);
  // Tiles the perfect nest below `loop` (the loop and every loop perfectly nested in it).
  Applied tile(const ir::StmtP& top, const std::string& loop, int64_t factor);
  // The loops of one perfect nest, outermost first afterwards.
  Applied reorder(const ir::StmtP& top, const std::vector<std::string>& order);
  Applied merge(const ir::StmtP& top, const std::string& outer, const std::string& inner);
  Applied fuse(const ir::StmtP& top, const std::string& first, const std::string& second);
  Applied fission(const ir::StmtP& top, const std::string& loop, int k);
  Applied swap(const ir::StmtP& top, const std::string& loop, int a, int b);
  Applied unroll(const ir::StmtP& top, const std::string& loop);  // completely
  Applied unroll(const ir::StmtP& top, const std::string& loop, int64_t factor);
  Applied unrollAndJam(const ir::StmtP& top, const std::string& loop, int64_t factor);
  Applied blend(const ir::StmtP& top, const std::string& loop);
  Applied separateTail(const ir::StmtP& top, const std::string& loop);
  Applied separateInterior(const ir::StmtP& top, const std::string& loop);
  Applied parallelize(const ir::StmtP& top, const std::string& loop, ir::ThreadSchedule schedule);
  Applied parallelize(const ir::StmtP& top, const std::string& loop, ir::ParallelScope gpuScope);
  Applied vectorize(const ir::StmtP& top, const std::string& loop);
  Applied setMemType(const ir::StmtP& top, const std::string& tensor, ir::MemKind kind);
  Applied hoistProduct(const ir::StmtP& top, const std::string& loop);
  Applied factorSum(const ir::StmtP& top, const std::string& loop);
  Applied skew(const ir::StmtP& top, const std::string& outer, const std::string& inner, int64_t factor);
  Applied interchangeSkewed(const ir::StmtP& top, const std::string& outer, const std::string& inner);
  Applied asLib(const ir::StmtP& top, const std::string& loop);
  Applied makeLocal(const ir::StmtP& top, const std::string& loop, const std::string& tensor, int line);
  Applied makeDefinedLocal(const ir::StmtP& top, const std::string& loop, const std::string& tensor, int line);
  Applied cache(const ir::StmtP& top, const std::string& loop, const std::string& tensor, bool reduce, int line);
  // cache whose copy starts as zeros instead of reading the tensor: `loop`
  // is `top`'s outermost loop, the tensor still holds its starting zeros
  // (no contents given, no init, no nest before writes it) and the
  // iterations touch disjoint blocks of it.
  Applied cacheZeroed(const ir::StmtP& top, const std::string& loop, const std::string& tensor, int line);

  // A nest the program will run (after those admitted before): its loops
  // marked parallel or vector are free of races, iterators in scope, and its
  // local tensors belong to it alone and start from their initial values.
  void admit(const ir::StmtP& nest);
  // Tensors local to loops of admitted nests: not program buffers.
  std::set<std::string> localTensors() const;
  static const ir::TensorDecl* localAround(const ir::StmtP& top, const std::string& loop, const std::string& tensor);
  const ScheduleStats& stats() const { return stats_; }
  // A copy that checks every step, whatever this one does (--no-check): the
  // automatic schedule decides on it.
  Schedule checked() const {
    Schedule copy = *this;
    copy.options_.checkLegality = true;
    return copy;
  }
  bool checksLegality() const { return options_.checkLegality; }
  // What a refused race adds under --no-check: that it does not lift race checks ("" otherwise).
  std::string raceNote() const;

 private:
  // Runs the primitive `what` (`transform`) on `inputs`, then verifies and
  // checks its result; `reorders`: compare the order of its instances with
  // the inputs' (taken as one sequence), or, with `reorderedFrom`, only
  // those of the part that changed: `*reorderedFrom` became `*reorderedTo`
  // (filled in by `transform`), everything around it kept.
  ir::StmtP apply(const std::string& what, const std::vector<ir::StmtP>& inputs, bool reorders,
                  const std::function<ir::StmtP()>& transform, const ir::StmtP* reorderedFrom = nullptr,
                  const ir::StmtP* reorderedTo = nullptr);
  // apply() to `nest`, a statement of `top`, replaced by what fn returns.
  Applied onNest(const std::string& what, const ir::StmtP& top, const ir::StmtP& nest, bool reorders,
                 const std::function<ir::StmtP()>& fn);
  std::string freshCopyName(const ir::StmtP& top, const std::string& tensor, int line);
  void checkReordering(const std::string& what, const ir::StmtP& before, const ir::StmtP& after);
  void keepsLocals(const std::string& what, const std::vector<ir::StmtP>& inputs, const ir::StmtP& result);
  // `changed`: the statements the step replaced and those it made.
  void localsStaySound(const std::string& what, const ir::StmtP& result, const std::vector<ir::StmtP>& changed);

  const ir::Program& program_;
  ScheduleOptions options_;
  ScheduleStats stats_;
  std::map<std::string, int> localLines_;       // local tensor (or cache copy) -> line that made it
  std::map<std::string, ir::StmtP> localNests_;  // local tensor -> the admitted nest it is local to
  std::vector<ir::StmtP> admitted_;
  std::map<std::string, std::string> zeroedCopies_;  // cache_zeroed copy -> its tensor, which must hold zeros
};

}  // namespace teml::schedule
