#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP fission(const StmtP& nest, int r, int k) {
  auto chain = loopsToLevel(nest, r, "fission");
  const For& f = *chain[r - 1];
  auto body = items(loopBody(f));
  if (body.size() < 2)
    throw ScheduleError("fission: the body of loop '" + f.var + "' holds a single statement");
  if (k < 1 || k >= static_cast<int>(body.size()))
    throw ScheduleError("fission: the split point " + std::to_string(k) + " must be between 1 and " +
                        std::to_string(body.size() - 1));
  std::vector<StmtP> first(body.begin(), body.begin() + k), second(body.begin() + k, body.end());
  StmtP a = withBody(f, makeSeq(first));
  StmtP b = makeFor(freshLoopId(nest, f.id + ".f"), f.var, f.begin, f.end, f.step, f.loopKind, makeSeq(second), localsOf(f));
  return replaceLevel(chain, r, makeSeq({a, b}));
}

StmtP swap(const StmtP& nest, int r, int a, int b) {
  StmtP container = r == 0 ? nest : loopBody(*loopsToLevel(nest, r, "swap")[r - 1]);
  auto list = items(container);
  int n = static_cast<int>(list.size());
  if (a < 1 || b < 1 || a > n || b > n || a == b)
    throw ScheduleError("swap: statements " + std::to_string(a) + " and " + std::to_string(b) +
                        " do not exist or are the same (the sequence holds " + std::to_string(n) + ")");
  std::swap(list[a - 1], list[b - 1]);
  if (r == 0) return makeSeq(list);
  auto chain = loopsToLevel(nest, r, "swap");
  return replaceLevel(chain, r, withBody(*chain[r - 1], makeSeq(list)));
}

}  // namespace teml::schedule
