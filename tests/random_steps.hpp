// A random schedule primitive on loops named by id, drawn from anywhere in
// a nest (inner loops of imperfect nests included), as free-form schedules
// name them; shared by the random tests of IR and free-form programs.
#pragma once
#include <random>

#include "schedule/loop_target.hpp"
#include "schedule/schedule.hpp"

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
    case 8: return s.skew(l, any(), any(), 1).result;
    case 9: return s.merge(l, any(), any()).result;
    case 10: return s.fission(l, any(), 1).result;
    case 11: return s.blend(l, any()).result;
    case 12: return s.reorder(l, {any(), any()}).result;
    default: return s.separateTail(l, any()).result;
  }
}

}  // namespace teml::testing
