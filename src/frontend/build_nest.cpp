#include "frontend/assignment.hpp"

namespace teml::frontend {

ir::StmtP buildNest(const Assignment& a, const std::string& idPrefix, const std::string& statementId) {
  ir::StmtTag tag{statementId, a.order, {}};
  for (auto& v : a.order) tag.origin.push_back(ir::var(v));
  ir::StmtP s = a.reduce ? ir::makeReduce(*a.reduce, a.tensor, a.indices, a.value, a.loc, tag)
                         : ir::makeStore(a.tensor, a.indices, a.value, a.loc, tag);
  s = ir::withIdentity(s, statementId, ir::Provenance{a.loc});
  for (size_t k = a.order.size(); k-- > 0;) {
    const std::string& v = a.order[k];
    s = ir::makeFor(idPrefix + std::to_string(k + 1), v, ir::intConst(0), ir::intConst(a.extents.at(v)), 1,
                    ir::LoopKind{}, s, {}, ir::Provenance{a.loc});
  }
  return s;
}

}  // namespace teml::frontend
