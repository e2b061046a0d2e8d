// Random schedule sequences, shared by the random tests of IR and
// free-form programs: primitives on loops named by id, drawn from anywhere
// in a nest (inner loops of imperfect nests included), as free-form
// schedules name them, and the check that an accepted sequence keeps the
// program's results.
#pragma once
#include <random>

#include "ir/printer.hpp"
#include "schedule/loop_target.hpp"
#include "schedule/schedule.hpp"
#include "test_util.hpp"

namespace teml::testing {

inline ir::StmtP randomStepById(std::mt19937& rng, schedule::Schedule& s, const ir::StmtP& l) {
  auto ids = schedule::loopIds(l);
  if (ids.empty()) throw schedule::ScheduleError("no loop left to transform");
  auto any = [&]() { return ids[rng() % ids.size()]; };
  auto factor = [&]() { return 2 + static_cast<int64_t>(rng() % 3); };
  switch (rng() % 14) {
    case 0:
    case 1: return s.interchange(l, any(), any()).result;
    case 2: return s.split(l, any(), factor()).result;
    case 3: return s.tile(l, factor());
    case 4: return s.unrollAndJam(l, any(), factor()).result;
    case 5: return s.unroll(l, any(), factor()).result;
    case 6: return s.parallelize(l, any(), ir::ThreadSchedule::Static).result;
    case 7: return s.vectorize(l, any()).result;
    case 8: {  // a skew, half the time with the skewed loop then outside
      std::string outer = any(), inner = any();
      ir::StmtP skewed = s.skew(l, outer, inner, 1).result;
      if (rng() % 2) return skewed;
      try {
        return s.interchangeSkewed(skewed, outer, inner).result;
      } catch (const schedule::ScheduleError&) {
        return skewed;
      }
    }
    case 9: return s.merge(l, any(), any()).result;
    case 10: return s.fission(l, any(), 1).result;
    case 11: return s.blend(l, any()).result;
    case 12: return s.reorder(l, {any(), any()}).result;
    default: return s.separateTail(l, any()).result;
  }
}

struct RandomCounts {
  int accepted = 0, refused = 0, compiled = 0;
  int threaded = 0;  // schedules with a parallel loop, run on 2, 4 and 8 threads
};

// Applies 1-4 random steps to `original`'s nest; when the result is
// admitted, it must compute what the original computes (interpreter; the
// compiled code too when `compile`, and always on 2, 4 and 8 threads when
// the schedule has a parallel loop), within `tolerance`.
inline void checkRandomSequence(std::mt19937& rng, const ir::Program& original, uint64_t seed, bool compile,
                                double tolerance, RandomCounts& counts) {
  auto inputs = randomInputs(original, seed);
  auto want = runInterpreter(original, inputs);
  schedule::Schedule sch(original, schedule::ScheduleOptions{});
  ir::StmtP nest = original.nests[0];
  int steps = 1 + static_cast<int>(rng() % 4);
  for (int k = 0; k < steps; ++k) {
    try {
      nest = randomStepById(rng, sch, nest);
      ++counts.accepted;
    } catch (const schedule::ScheduleError&) {
      ++counts.refused;
    }
  }
  ir::Program p = original;
  p.nests = {nest};
  try {
    schedule::Schedule(original, schedule::ScheduleOptions{}).admit(nest);
  } catch (const schedule::ScheduleError&) {
    ++counts.refused;
    return;
  }
  SCOPED_TRACE("original:\n" + ir::toString(original, true) + "transformed:\n" + ir::toString(p, true));
  auto got = runInterpreter(p, inputs);
  for (auto& t : p.tensors)
    EXPECT_LE(runtime::maxRelativeDifference(got.at(t.name), want.at(t.name)), tolerance) << "tensor " << t.name;
  expectDecisionsAreTheCodes(p);
  // Every parallel schedule runs on 2, 4 and 8 threads on data where a race shows.
  counts.threaded += expectSameOnEveryThreadCount(p, &original, seed);
  if (!compile) return;
  auto jit = runJit(p, inputs);
  for (auto& t : p.tensors)
    EXPECT_LE(runtime::maxRelativeDifference(jit.at(t.name), want.at(t.name)), 10 * tolerance) << "compiled, tensor " << t.name;
  ++counts.compiled;
}

}  // namespace teml::testing
