#include "frontend/freeform/row_order_checks.hpp"

#include <set>

#include "ir/csr_rows.hpp"
#include "ir/mutator.hpp"

namespace teml::freeform {

using namespace ir;

namespace {

// Each loop over a row of a read-only one-dimensional program tensor, by
// an iterator of a loop around it, inside its row order check.
class CheckRows : public Mutator {
 public:
  CheckRows(const std::vector<TensorDecl>& tensors, std::set<std::string> written)
      : tensors_(tensors), written_(std::move(written)) {}

 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = static_cast<const For&>(*s);
    loops_.push_back(f.var);
    StmtP out = Mutator::mutateFor(s);
    loops_.pop_back();
    auto row = csrRowOf(f);
    bool byOuterLoop = false;
    for (auto& i : loops_) byOuterLoop = byOuterLoop || (row && usesVar(row->row, i));
    if (!byOuterLoop || written_.count(row->rows)) return out;
    for (auto& t : tensors_)
      if (t.name == row->rows && t.shape.size() == 1) return rowOrderCheck(t.name, t.dtype, row->row, f.made.loc, out);
    return out;
  }

 private:
  const std::vector<TensorDecl>& tensors_;
  std::set<std::string> written_;
  std::vector<std::string> loops_;
};

}  // namespace

StmtP withRowOrderChecks(const StmtP& nest, const std::vector<TensorDecl>& tensors) {
  return CheckRows(tensors, tensorsWritten(nest)).mutate(nest);
}

}  // namespace teml::freeform
