// Scalars that the vectors of a register block are multiplied by (a
// convolution's weights w[o + r][c][k] for rows r of the block, a matrix
// product's A[i + r][k]) are read through one pointer per tensor, taken at
// the top of the innermost loop's body, at constant displacements from it.
//
// Why: GCC gives each of the eight-odd addresses an induction variable of
// its own and, short of registers beside sixteen accumulators, keeps them in
// vector registers or on the stack, moving each back before its broadcast.
// One base and constant displacements need one register. And a short loop of
// constant trip count inside a register block is unrolled outright (`#pragma
// GCC unroll`): its iterations' displacements become constants too. conv1d
// (16 x 4096 -> 32, K = 7, Zen 4, the size-generic kernel): 357 -> 301 us
// with the pointer alone, 281 unrolled alone, 261 both (the FMA peak: 255).
#include "backend/cpu/nest_emitter.hpp"
#include "ir/accesses.hpp"
#include "ir/affine.hpp"
#include "ir/index_patterns.hpp"
#include "ir/mutator.hpp"

namespace teml::codegen {

using namespace ir;

namespace {

// The most iterations a loop in a register block is unrolled by: more copies
// of a body of sixteen-odd FMAs would outgrow the decoded-instruction cache.
constexpr int64_t kMostUnrolledIterations = 16;
constexpr int64_t kMostUnrolledStatements = 512;

// Elements between consecutive indices of each dimension.
std::vector<int64_t> stridesOf(const TensorDecl& decl) {
  std::vector<int64_t> strides(decl.shape.size(), 1);
  for (size_t d = decl.shape.size(); d-- > 1;) strides[d - 1] = strides[d] * decl.shape[d];
  return strides;
}

}  // namespace

void NestEmitter::unrollIfShort(const For& f, int indent) {
  int64_t span = 0;
  if (f.step <= 0 || !onlyStatements(f.body) || !constValue(sub(f.end, f.begin), &span)) return;
  int64_t trips = (span + f.step - 1) / f.step, statements = 0;
  forEachStmt(f.body, [&](const StmtP& s) { statements += s->kind == StmtKind::Store || s->kind == StmtKind::Reduce; });
  // A register block: two sums or more (one sum's chain of FMAs gains nothing from it).
  if (statements * vectorCopies_ >= 2 && trips >= 2 && trips <= kMostUnrolledIterations &&
      trips * statements * vectorCopies_ <= kMostUnrolledStatements)
    line(indent, "#pragma GCC unroll " + std::to_string(kMostUnrolledIterations));
}

std::vector<NestEmitter::ScalarRow> NestEmitter::planScalarRows(const For& f) {
  std::vector<ScalarRow> rows;
  if (!onlyStatements(f.body)) return rows;
  std::vector<const Load*> reads;
  auto collect = [&](const ExprP& e) {
    forEachExpr(e, [&](const ExprP& x) {
      if (x->kind == ExprKind::Load && !variesWith(x->as<Load>().indices, vectorVar_)) reads.push_back(&x->as<Load>());
    });
  };
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::Store) collect(s->as<Store>().value);
    if (s->kind != StmtKind::Reduce) return;
    auto term = factoredTerms_.find(s->id);
    collect(term != factoredTerms_.end() ? term->second : s->as<Reduce>().value);
  });
  // Loads of one tensor whose indices differ in constants only, each at its
  // offset in elements from the group's first; the base is the least.
  struct Member {
    std::string text;
    int64_t offset;
  };
  std::map<std::string, std::vector<Member>> groups;
  for (auto* l : reads) {
    const TensorDecl* decl = view_.find(l->tensor);
    if (!decl || registers_.count(l->tensor) || l->indices.size() != decl->shape.size()) continue;
    std::vector<int64_t> strides = stridesOf(*decl);
    std::string key = l->tensor;
    int64_t offset = 0;
    bool affine = true;
    for (size_t d = 0; d < l->indices.size() && affine; ++d) {
      Affine a;
      affine = toAffine(l->indices[d], &a);
      offset += a.constant * strides[d];
      a.constant = 0;
      key += "|";
      for (auto& [v, c] : a.coeffs) key += v + "*" + std::to_string(c) + " ";
    }
    std::string text = access(l->tensor, l->indices);
    if (!affine || text.find('[') == std::string::npos || text[0] == '(') continue;
    auto& g = groups[key];
    bool seen = false;
    for (auto& m : g) seen |= m.text == text;
    if (!seen) g.push_back({text, offset});
  }
  for (auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    const Member* base = &members[0];
    for (auto& m : members)
      if (m.offset < base->offset) base = &m;
    ScalarRow row{names_.claim("srow"), base->text, {}};
    for (auto& m : members) row.displaced[m.text] = row.name + "[" + std::to_string(m.offset - base->offset) + "]";
    rows.push_back(std::move(row));
  }
  return rows;
}

void NestEmitter::declareScalarRows(const std::vector<ScalarRow>& rows, int indent) {
  for (auto& r : rows) {
    line(indent, "__typeof__(" + r.base + ") *" + r.name + " = &" + r.base + ";");
    for (auto& [text, displaced] : r.displaced) scalarRows_[text] = displaced;
  }
}

void NestEmitter::releaseScalarRows(const std::vector<ScalarRow>& rows) {
  for (auto& r : rows) {
    for (auto& [text, displaced] : r.displaced) scalarRows_.erase(text);
    names_.release(r.name);
  }
}

}  // namespace teml::codegen
