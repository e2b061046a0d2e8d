#include "lowering/distributed/rows_by_index.hpp"

#include <optional>
#include <set>

#include "ir/csr_rows.hpp"
#include "ir/mutator.hpp"
#include "ir/scoped_visitor.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

const Expr* uncast(const ExprP& e) {
  const Expr* x = e.get();
  while (x->kind == ExprKind::Cast) x = x->as<Cast>().a.get();
  return x;
}

// Every access of the candidates, with the loops around it: a candidate
// stays while each of its accesses is a load whose first subscript is the
// iterator of a CSR loop inside a distributed loop over its rows.
class Reads : public ScopedVisitor {
 public:
  explicit Reads(std::set<std::string> candidates) : candidates_(std::move(candidates)) {}
  // tensor -> (ptr, the distributed loop): the first such loop found; the
  // others must have its iterator and bounds (the inspector's copy of a step).
  std::map<std::string, std::pair<std::string, const For*>> found;
  std::set<std::string> refused;

 protected:
  void visitLoad(const Load& l) override {
    Visitor::visitLoad(l);
    if (!candidates_.count(l.tensor) || refused.count(l.tensor)) return;
    auto use = csrUse(l);
    auto known = found.find(l.tensor);
    if (!use || (known != found.end() && !(known->second.first == use->first && sameLoop(*known->second.second, *use->second))))
      refuse(l.tensor);
    else if (known == found.end())
      found[l.tensor] = *use;
  }
  void visitStore(const Store& s) override {
    refuse(s.tensor);
    Visitor::visitStore(s);
  }
  void visitReduce(const Reduce& r) override {
    refuse(r.tensor);
    Visitor::visitReduce(r);
  }
  void visitLibCall(const LibCall& c) override {
    for (auto& t : c.tensors) refuse(t);
  }
  void visitExchange(const Exchange& x) override { refuse(x.tensor); }

 private:
  static bool sameLoop(const For& a, const For& b) {
    return a.var == b.var && equal(a.begin, b.begin) && equal(a.end, b.end) && a.step == b.step;
  }
  void refuse(const std::string& t) {
    refused.insert(t);
    found.erase(t);
  }
  std::optional<std::pair<std::string, const For*>> csrUse(const Load& l) const {
    if (l.indices.empty()) return std::nullopt;
    const Expr* p = uncast(l.indices[0]);
    if (p->kind != ExprKind::Var) return std::nullopt;
    for (auto k = loops().size(); k-- > 0;) {
      const For& f = *loops()[k];
      if (f.var != p->as<Var>().name) continue;
      auto row = csrRowOf(f);  // range(ptr[i], ptr[i + 1])
      const Expr* i = row && f.step == 1 ? uncast(row->row) : nullptr;
      if (!i || i->kind != ExprKind::Var) return std::nullopt;
      for (auto j = k; j-- > 0;)
        if (loops()[j]->var == i->as<Var>().name)
          return loops()[j]->loopKind.distributed ? std::optional(std::make_pair(row->rows, loops()[j])) : std::nullopt;
      return std::nullopt;
    }
    return std::nullopt;
  }
  std::set<std::string> candidates_;
};

}  // namespace

void findRowsByIndex(Program& planned) {
  Distribution& d = planned.distribution;
  if (d.onGrid()) return;
  std::set<std::string> written, candidates;
  for (auto& n : planned.nests)
    for (auto& t : tensorsWritten(n)) written.insert(t);
  for (auto& t : planned.tensors)
    if (!written.count(t.name) && !t.shape.empty()) candidates.insert(t.name);
  Reads reads(candidates);
  for (auto& n : planned.nests) reads.visit(n);
  for (auto& [tensor, use] : reads.found) {
    auto& [index, loop] = use;
    const TensorDecl* pointers = planned.find(index);
    // The pointers: an input the program leaves as it is, read before the tensor (driver/distributed_run).
    if (!pointers || written.count(index) || (pointers->dtype != DType::I32 && pointers->dtype != DType::I64)) continue;
    int64_t b = 0, e = 0;
    if (!constValue(loop->begin, &b) || !constValue(loop->end, &e)) continue;
    for (size_t k = 0; k < d.loops.size(); ++k)
      if (d.loops[k].var == loop->var && d.loops[k].begin == b && d.loops[k].end == std::max(b, e))
        d.rowsByIndex[tensor] = {index, k};
  }
}

}  // namespace teml::lowering
