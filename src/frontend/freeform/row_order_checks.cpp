#include "frontend/freeform/row_order_checks.hpp"

#include <map>
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
    auto& f = s->as<For>();
    loops_.push_back(f.var);
    StmtP out = Mutator::mutateFor(s);
    loops_.pop_back();
    auto row = csrRowOf(f);
    bool byOuterLoop = false;
    for (auto& i : loops_) byOuterLoop = byOuterLoop || (row && usesVar(row->row, i));
    if (!byOuterLoop || written_.count(row->rows)) return out;
    for (auto& t : tensors_)
      if (t.name == row->rows && t.shape.size() == 1) {
        checked_.emplace(t.name, f.made.loc);
        return rowOrderCheck(t.name, t.dtype, row->row, f.made.loc, out);
      }
    return out;
  }

 public:
  // The arrays whose rows were checked, with the first row loop of each.
  std::map<std::string, SourceLoc> checked_;

 private:
  const std::vector<TensorDecl>& tensors_;
  std::set<std::string> written_;
  std::vector<std::string> loops_;
};

}  // namespace

StmtP withRowOrderChecks(const StmtP& nest, const std::vector<TensorDecl>& tensors) {
  CheckRows rows(tensors, tensorsWritten(nest));
  StmtP checked = rows.mutate(nest);
  // A row check proves order only for the rows that run: a row loop under a
  // branch, or over every other row, could skip the row between two that
  // overlap. So the whole array is checked once before the nest as well.
  std::vector<StmtP> out;
  for (auto& t : tensors)
    if (rows.checked_.count(t.name)) out.push_back(wholeRowOrderCheck(t.name, t.dtype, t.shape[0], rows.checked_.at(t.name)));
  out.push_back(checked);
  return makeSeq(out);
}

}  // namespace teml::freeform
