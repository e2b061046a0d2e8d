#include "autoschedule/cut_into_nests.hpp"

#include "autoschedule/loop_queries.hpp"

namespace teml::autoschedule {

using namespace ir;

std::optional<std::vector<std::string>> cutIntoNests(
    AutoState& state, const std::string& block,
    const std::function<bool(const StmtP&, const std::string&)>& wanted) {
  std::vector<std::string> blocks, pending{block};
  while (!pending.empty()) {
    std::string cur = pending.back();
    pending.pop_back();
    for (;;) {
      const For* f = loopWithId(state.body, cur);
      auto items = bodyItems(*f);
      int first = -1;
      for (size_t k = 0; k < items.size() && first < 0; ++k)
        if (wanted(items[k], f->var)) first = static_cast<int>(k);
      if (first < 0) break;
      if (first > 0) {  // the statements before it stay behind
        if (!state.tryStep({"fission", {cur}, {first}})) return std::nullopt;
        cur = state.made().at(0);
        continue;
      }
      if (items.size() == 1) {
        if (items[0]->kind != StmtKind::For) return std::nullopt;
        blocks.push_back(cur);
        break;
      }
      if (!state.tryStep({"fission", {cur}, {1}})) return std::nullopt;
      std::string rest = state.made().at(0);
      if (items[0]->kind == StmtKind::For) {
        blocks.push_back(cur);
        cur = rest;
      } else {  // a tensor defined around loops: its loops are cut next
        pending.push_back(rest);
      }
    }
  }
  return blocks;
}

}  // namespace teml::autoschedule
