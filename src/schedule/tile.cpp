// Tiling as the TeML paper composes it (Section 4.1, Equations 27-29).
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP stripmineN(const StmtP& nest, int n, int64_t v) {
  StmtP cur = nest;
  for (int k = 1; k <= n; ++k) cur = stripmine(cur, 2 * k - 1, v);
  return cur;
}

StmtP interchangeN(const StmtP& nest, int r, int n) {
  StmtP cur = nest;
  for (int k = 0; k < n; ++k) cur = interchange(cur, r + k, r + k + 1);
  return cur;
}

StmtP tile(const StmtP& nest, int64_t v) {
  int d = perfectDepth(nest);
  if (d < 1) throw ScheduleError("tile: the nest has no loop");
  StmtP cur = stripmineN(nest, d, v);
  // Move each original iterator behind all the block loops: after this the
  // order is (blocks of 1..d) then (points of 1..d).
  for (int k = 2; k <= d; ++k) cur = interchangeN(cur, k, 2 * d - k);
  if (d >= 2) cur = interchangeN(cur, d + 1, d - 1);
  return cur;
}

}  // namespace teml::schedule
