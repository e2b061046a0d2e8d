// Rewrites every access of one tensor: its indices (a layout change) and,
// optionally, the tensor it names (replace_array). Shared by var_reorder /
// var_split / var_merge and replace_array.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/mutator.hpp"

namespace teml::schedule {

class AccessRewrite : public ir::Mutator {
 public:
  using IndexMap = std::function<std::vector<ir::ExprP>(const std::vector<ir::ExprP>&)>;
  // Accesses of `from` become accesses of `to` at map(indices); a loop that
  // holds `from` as a local tensor gets `shape` for it.
  AccessRewrite(std::string from, std::string to, IndexMap map, std::vector<int64_t> shape)
      : from_(std::move(from)), to_(std::move(to)), map_(std::move(map)), shape_(std::move(shape)) {}

  int reads = 0, writes = 0;  // accesses rewritten
  bool localFound = false;    // some loop holds `from` as a local tensor

 protected:
  ir::ExprP mutateLoad(const ir::ExprP& e) override;
  ir::StmtP mutateStore(const ir::StmtP& s) override;
  ir::StmtP mutateReduce(const ir::StmtP& s) override;
  ir::StmtP mutateVarDef(const ir::StmtP& s) override;

 private:
  std::string from_, to_;
  IndexMap map_;
  std::vector<int64_t> shape_;
};

}  // namespace teml::schedule
