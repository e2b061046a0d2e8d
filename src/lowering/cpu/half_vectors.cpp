#include "lowering/cpu/half_vectors.hpp"

#include <set>
#include <vector>

#include "ir/accesses.hpp"
#include "ir/affine.hpp"
#include "ir/printer.hpp"
#include "ir/visitor.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

// A tensor this large is not in a core's L2 cache: the loop streams it.
constexpr int64_t kStreamedBytes = int64_t(1) << 20;

// A division costs about four times an addition or a multiplication.
constexpr int64_t kDivisionCost = 4;

// Counts, per iteration of the innermost loops, the vectors the loop moves
// between registers and memory and the arithmetic it does on them, and
// whether each such access starts on a vector boundary wherever its tensor's
// base does.
class StreamCount : public Visitor {
 public:
  StreamCount(const For& loop, const std::vector<const For*>& around, const Program& program, int vectorBytes)
      : loop_(loop), around_(around), program_(program), vectorBytes_(vectorBytes) {
    visit(loop.body);
  }

  HalfWidthChoice choice() const {
    if (gathers_ || !streamsLargeTensor_ || operations_ >= 2 * int64_t(vectors_.size())) return {};
    if (misaligned_) return {HalfWidth::Always, {}};
    return {HalfWidth::WhereMisaligned, {tensors_.begin(), tensors_.end()}};
  }

 protected:
  void visitFor(const For& f) override {
    inner_.push_back(f.var);
    Visitor::visitFor(f);
    inner_.pop_back();
  }
  // Only values count as arithmetic, not the subscripts' integer operations.
  void visitStore(const Store& st) override {
    access(st.tensor, st.indices);
    visit(st.value);
  }
  void visitReduce(const Reduce& r) override {
    access(r.tensor, r.indices);
    ++operations_;
    visit(r.value);
  }
  void visitLoad(const Load& l) override {
    if (access(l.tensor, l.indices))
      for (auto& i : l.indices) gathers_ |= !readsOf(i).empty();
  }
  void visitBinary(const Binary& b) override {
    operations_ += b.op == BinOp::Div ? kDivisionCost : 1;
    Visitor::visitBinary(b);
  }

 private:
  bool moves(const std::vector<ExprP>& indices, const std::string& var) const {
    for (auto& i : indices)
      if (usesVar(i, var)) return true;
    return false;
  }

  // A vector access: it moves with the vector's iterator and, inside inner
  // loops, with the innermost one (otherwise it stays in a register there).
  bool access(const std::string& tensor, const std::vector<ExprP>& indices) {
    if (!moves(indices, loop_.var) || (!inner_.empty() && !moves(indices, inner_.back()))) return false;
    std::string key = tensor;
    for (auto& i : indices) key += "[" + toString(i) + "]";
    vectors_.insert(key);
    tensors_.insert(tensor);
    const TensorDecl* t = program_.find(tensor);
    if (!t) {
      misaligned_ = true;
      return true;
    }
    if (t->elementCount() * bytes(t->dtype) >= kStreamedBytes && movesWithEveryLoopAround(indices))
      streamsLargeTensor_ = true;
    misaligned_ |= !onBoundary(*t, indices);
    return true;
  }

  // An access moves with a loop around that its indices name, or that
  // bounds a loop inside it which they name (the outer loop of a split).
  bool movesWithEveryLoopAround(const std::vector<ExprP>& indices) const {
    std::vector<const For*> inside;  // the loops around the vector loop that f contains
    for (size_t k = around_.size(); k-- > 0;) {
      const For& f = *around_[k];
      bool follows = moves(indices, f.var);
      for (const For* m : inside) follows |= usesVar(m->begin, f.var) || usesVar(m->end, f.var);
      if (!follows) return false;
      inside.push_back(&f);
    }
    return true;
  }

  // Every vector of the access starts a multiple of the vector's bytes past
  // its tensor's base: each index's step times its dimension's stride is.
  bool onBoundary(const TensorDecl& t, const std::vector<ExprP>& indices) const {
    int64_t stride = bytes(t.dtype), begin;
    if (!constValue(loop_.begin, &begin)) return false;
    for (size_t d = indices.size(); d-- > 0;) {
      auto aligned = [&](int64_t elements) { return (elements * stride) % vectorBytes_ == 0; };
      Affine a;
      if (!toAffine(indices[d], &a)) {
        if (!aligned(1)) return false;  // any value (an index from data) must do
      } else {
        for (auto& [var, c] : a.coeffs)
          if (var == loop_.var ? !aligned(c * begin) : !aligned(c)) return false;
        if (!aligned(a.constant)) return false;
      }
      stride *= d < t.shape.size() ? t.shape[d] : 1;
    }
    return true;
  }

  const For& loop_;
  const std::vector<const For*>& around_;
  const Program& program_;
  int vectorBytes_;
  std::vector<std::string> inner_;
  std::set<std::string> vectors_, tensors_;
  int64_t operations_ = 0;
  bool gathers_ = false, streamsLargeTensor_ = false, misaligned_ = false;
};

}  // namespace

HalfWidthChoice halfWidthOf(const For& loop, const std::vector<const For*>& around, const Program& program,
                            const target::Target& target) {
  if (target.vectorBytes != 64 || !target.misalignedLoadsCost()) return {};
  return StreamCount(loop, around, program, target.vectorBytes).choice();
}

}  // namespace teml::lowering
