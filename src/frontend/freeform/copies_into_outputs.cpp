// `y[()] = teml.libop.matmul(a, b)` (FreeTensor's `y[...] = libop.f(...)`)
// makes the product in a tensor of its own, then copies it into the output
// y. Where that tensor is the call's own (made while the call ran, whole,
// named by nothing else) and y an output the entry has not touched before,
// the call computes into y itself: no copy, no second tensor, and nothing
// for the automatic schedule to fuse into the product's loops (the copy
// once kept libop's matmul from its tiles: 5.5 ms against 1.4 ms for
// `return teml.libop.matmul(a, b)`, which had always been written in place).
//
// The front end notes each such assignment as it lowers it; this pass then
// checks on the entry's IR that the rewrite keeps the program's meaning,
// and leaves the copy where it cannot show that:
// - the copy is the loops assign made, storing each element of the made
//   tensor into the same element of y, on the entry's straight path (only
//   sequences and tensor definitions around it: no loop, branch or check);
// - nothing before the copy touches y, and nothing after it the made
//   tensor: both start at zero (a tensor's definition, an output), so y
//   then holds at every step what the made tensor held;
// - same element type and shape, y an output (not an input or inout, whose
//   elements the caller gives).
#include "frontend/freeform/builder.hpp"
#include "ir/mutator.hpp"
#include "ir/rename_tensor.hpp"

namespace teml::freeform {

using namespace ir;

namespace {

// `copy` is `for e0 in [0, n0): ... output[e0, ...] = made[e0, ...]`.
bool isWholeCopy(const StmtP& copy, const std::string& made, const std::string& output,
                 const std::vector<int64_t>& shape) {
  StmtP s = copy;
  std::vector<std::string> vars;
  while (s->kind == StmtKind::For) {
    auto& f = s->as<For>();
    int64_t begin, end;
    if (f.step != 1 || !constValue(f.begin, &begin) || !constValue(f.end, &end) || begin != 0 ||
        vars.size() >= shape.size() || end != shape[vars.size()] || !localsOf(f).empty())
      return false;
    vars.push_back(f.var);
    s = f.body;
  }
  if (s->kind != StmtKind::Store || vars.size() != shape.size()) return false;
  auto& st = s->as<Store>();
  if (st.tensor != output || st.value->kind != ExprKind::Load || st.value->as<Load>().tensor != made) return false;
  auto& from = st.value->as<Load>().indices;
  for (size_t d = 0; d < vars.size(); ++d) {
    const ExprP& to = st.indices[d];
    if (to->kind != ExprKind::Var || to->as<Var>().name != vars[d] || from[d]->kind != ExprKind::Var ||
        from[d]->as<Var>().name != vars[d])
      return false;
  }
  return true;
}

bool contains(const StmtP& s, const StmtP& target) {
  bool found = false;
  forEachStmt(s, [&](const StmtP& x) { found = found || x == target; });
  return found;
}

// Checks the order of accesses around the copy and rewrites the entry: the
// made tensor's definition gone, its accesses made to the output, the copy
// dropped. Null where the copy is not on the straight path, the output is
// touched before it or the made tensor after it.
class Elision {
 public:
  Elision(const StmtP& copy, std::string made, std::string output)
      : copy_(copy), made_(std::move(made)), output_(std::move(output)) {}

  StmtP rewrite(const StmtP& s) {
    if (s == copy_) {
      passed_ = true;
      return makeSeq({});
    }
    if (s->kind == StmtKind::Seq) {
      std::vector<StmtP> items;
      for (auto& item : s->as<Seq>().stmts) {
        if (contains(item, copy_)) {
          StmtP r = rewrite(item);
          if (!r) return nullptr;
          items.push_back(r);
          continue;
        }
        auto touched = tensorsAccessed(item);
        if (!passed_ && touched.count(output_)) return nullptr;
        if (passed_ && touched.count(made_)) return nullptr;
        items.push_back(passed_ ? item : renameTensor(item, made_, output_));
      }
      return makeSeq(items);
    }
    if (s->kind == StmtKind::VarDef) {
      auto& v = s->as<VarDef>();
      StmtP body = rewrite(v.body);
      if (!body) return nullptr;
      if (v.decl.name == made_ && !v.loopLocal) {
        defined_ = true;
        return body;
      }
      return std::make_shared<VarDef>(v.decl, body, v.loopLocal, v.id, v.made);
    }
    return nullptr;  // a loop, a branch or a check around the copy
  }

  bool definedOnThePath() const { return defined_; }

 private:
  StmtP copy_;
  std::string made_, output_;
  bool passed_ = false, defined_ = false;
};

}  // namespace

void Builder::noteCopyIntoOutput(const Node& s, const TensorValue& target, const Value& v, size_t madeBefore,
                                 const std::vector<StmtP>& stmts) {
  if (frames_.size() != 1 || !iterators_.empty() || runtimeBranches_ > 0 || !statementLabel_.empty()) return;
  if (s.kids[1]->kind != NodeKind::Call || stmts.empty() || v.kind != Value::Kind::Tensor) return;
  const TensorValue& result = *v.tensor;
  auto made = madeAt_.find(result.tensor);
  auto access = access_.find(target.tensor);
  if (!result.isWhole() || !target.isWhole() || made == madeAt_.end() || made->second < madeBefore ||
      access == access_.end() || access->second != Access::Output || result.dtype != target.dtype ||
      result.fullShape != target.fullShape || result.mem != MemKind::Auto)
    return;
  copiesIntoOutputs_.push_back({result.tensor, target.tensor, stmts.back()});
}

StmtP Builder::elideCopiesIntoOutputs(StmtP body) {
  for (auto& c : copiesIntoOutputs_) {
    const TensorDecl* output = program_.find(c.output);
    if (!output || !isWholeCopy(c.copy, c.made, c.output, output->shape)) continue;
    Elision elision(c.copy, c.made, c.output);
    StmtP rewritten = elision.rewrite(body);
    if (rewritten && elision.definedOnThePath()) body = rewritten;
  }
  return body;
}

}  // namespace teml::freeform
