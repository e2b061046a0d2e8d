// Vectors that several statements of an innermost loop load from the same
// address (jammed rows reading one input vector: a convolution's input, a
// matrix product's row of B, attention's row of V) are loaded once per
// iteration into a named register; where only their last index moves with
// the loop, through a pointer to their row taken before the loop.
//
// Why: GCC, left to itself, folds such a load into each FMA that uses it
// (four loads for one vector, and the loads bound the loop), or computes
// each of the seven-odd addresses of a row in a register of its own and
// spills them when the rows' stride is a variable (size-generic kernels).
// An empty asm that "changes" the register keeps the load in one place; the
// row pointer leaves one base address and constant displacements. conv1d
// (16 x 4096 -> 32, K = 7, AVX2): 0.54 -> 0.40 ms in C, where either change
// alone gains nothing or loses; attention's P V (one load of V folded into
// four FMAs before): 1.46 -> 1.35 ms.
#include "backend/cpu/nest_emitter.hpp"
#include "ir/accesses.hpp"
#include "ir/affine.hpp"
#include "ir/index_patterns.hpp"
#include "ir/mutator.hpp"

namespace teml::codegen {

using namespace ir;

namespace {

// Loads of the body in a form the emitter prints them: every vector read of
// a Store's or Reduce's value (a factored sum's varying part for its register).
void vectorReads(const ExprP& e, const std::string& vectorVar, std::vector<const Load*>* out) {
  forEachExpr(e, [&](const ExprP& x) {
    if (x->kind != ExprKind::Load) return;
    auto& l = x->as<Load>();
    if (variesWith(l.indices, vectorVar)) out->push_back(&l);
  });
}

}  // namespace

bool onlyStatements(const StmtP& body) {
  bool free = true;
  forEachStmt(body, [&](const StmtP& s) { free &= s->kind != StmtKind::For && s->kind != StmtKind::If; });
  return free;
}

std::vector<NestEmitter::SharedLoad> NestEmitter::planSharedLoads(const For& f) {
  std::vector<SharedLoad> shared;
  if (!onlyStatements(f.body)) return shared;
  std::set<std::string> written;
  std::vector<const Load*> reads;
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::Store) {
      written.insert(s->as<Store>().tensor);
      vectorReads(s->as<Store>().value, vectorVar_, &reads);
    } else if (s->kind == StmtKind::Reduce) {
      auto& r = s->as<Reduce>();
      written.insert(r.tensor);
      auto term = factoredTerms_.find(r.id);
      vectorReads(term != factoredTerms_.end() ? term->second : r.value, vectorVar_, &reads);
    }
  });
  std::map<std::string, int> uses;
  std::vector<std::tuple<std::string, const Load*, int>> order;  // (text, load, copy) at first use
  for (copy_ = 0; copy_ < vectorCopies_; ++copy_)
    for (auto* l : reads) {
      // Read at the top of the body, before the statements: nothing they write may move it.
      bool moves = written.count(l->tensor) > 0;
      for (auto& i : l->indices)
        for (auto& a : readsOf(i)) moves = moves || written.count(a.tensor) > 0;
      if (moves) continue;
      std::string text = loadAt(vectorAddress(l->tensor, l->indices), tailCopy());
      if (uses[text]++ == 0) order.push_back({text, l, copy_});
    }
  copy_ = 0;
  std::set<std::string> sums;
  for (auto& [key, name] : vectorRegs_) sums.insert(name);
  for (auto& [text, l, copy] : order) {
    if (uses[text] < 2) continue;
    // A row pointer needs f's iterator in the last index only, with a constant step.
    Affine last;
    bool rowWise = toAffine(l->indices.back(), &last) && last.coeff(f.var) != 0;
    for (size_t d = 0; d + 1 < l->indices.size(); ++d) rowWise &= !usesVar(l->indices[d], f.var);
    shared.push_back({l, copy, text, rowWise ? last.coeff(f.var) : 0, "", ""});
  }
  // Pinned loads and sums must fit in the registers, with one left for a broadcast.
  if (shared.size() + sums.size() + 1 > static_cast<size_t>(target_.vectorRegisters())) shared.clear();
  return shared;
}

void NestEmitter::declareSharedRows(const For& f, std::vector<SharedLoad>& shared, int indent) {
  for (auto& s : shared) {
    if (s.step == 0) continue;
    s.row = names_.claim("vrow");
    copy_ = s.copy;
    auto idx = shifted(s.load->indices);
    copy_ = 0;
    for (auto& i : idx) i = substitute(i, {{f.var, f.begin}});
    std::string at = access(s.load->tensor, idx);
    line(indent, "__typeof__(" + at + ") *" + s.row + " = &" + at + ";");
  }
}

void NestEmitter::loadSharedVectors(const For& f, std::vector<SharedLoad>& shared, int indent) {
  std::string from = iterName(f.var);
  int64_t begin = 0;
  std::string steps = constValue(f.begin, &begin) && begin == 0 ? from : "(" + from + " - " + expr(f.begin, 0, false, false) + ")";
  for (auto& s : shared) {
    s.name = names_.claim("vload");
    std::string at = "(" + s.row + " + " + (s.step == 1 ? steps : std::to_string(s.step) + " * " + steps) + ")";
    copy_ = s.copy;
    line(indent, std::string(vectorType_) + " " + s.name + " = " + (s.step ? loadAt(at, tailCopy()) : s.text) + ";");
    copy_ = 0;
    line(indent, "teml_keep(" + s.name + ");");
    sharedLoads_[s.text] = s.name;
  }
}

void NestEmitter::releaseSharedLoads(std::vector<SharedLoad>& shared) {
  for (auto& s : shared) {
    sharedLoads_.erase(s.text);
    names_.release(s.name);
    if (s.step) names_.release(s.row);
  }
}

}  // namespace teml::codegen
