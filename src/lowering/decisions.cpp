#include "lowering/decisions.hpp"

#include <map>
#include <set>

#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "ir/scoped_visitor.hpp"
#include "lowering/checks_by_range.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

std::string linesOf(const std::set<int>& lines) {
  std::string s;
  for (int l : lines) s += (s.empty() ? "" : ", ") + std::to_string(l);
  return lines.size() == 1 ? "line " + s : "lines " + s;
}

std::string where(const For& f) {
  return std::string(f.loopKind.threads() ? "parallel" : "vector") + " loop '" + f.id + "'";
}

class Decisions : public Visitor {
 public:
  Decisions(std::vector<std::string>& out, const StmtP& nest) : out_(out) {
    // An inner loop's accumulator may stand for an outer one's: each stands
    // for what the outermost stands for.
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::For)
        for (auto& r : s->as<For>().loopKind.reductions) of_[r.accumulator] = r.of;
    });
  }
  using Visitor::visit;
  void visit(const ExprP&) override {}

 protected:
  void visitVarDef(const VarDef& v) override {
    decls_.push_back(v.decl);
    Visitor::visitVarDef(v);
    decls_.pop_back();
  }
  void visitIf(const If& i) override {
    if (i.id != kChecksByRangeId) return Visitor::visitIf(i);
    visit(i.then);  // the checked copy decides the same again
  }
  void visitFor(const For& f) override {
    for (auto& r : f.loopKind.reductions) {
      std::set<int> lines;  // of the reductions into this accumulator or one standing for it
      forEachStmt(f.body, [&](const StmtP& s) {
        if (s->kind != StmtKind::Reduce) return;
        auto& red = s->as<Reduce>();
        for (std::string t = red.tensor;; t = of_.at(t)) {
          if (t == r.accumulator) lines.insert(red.loc.line);
          if (t == r.accumulator || !of_.count(t) || of_.at(t) == t) break;
        }
      });
      if (r.accumulator == r.of) {
        out_.push_back(where(f) + ": reduction into '" + user(r.of) + "' (" + linesOf(lines) +
                       ") in a copy per thread (heap; the first thread's is the tensor itself)");
        continue;
      }
      std::string shape;
      for (auto it = decls_.rbegin(); it != decls_.rend(); ++it)
        if (it->name == r.accumulator) {
          shape = dtypeName(it->dtype);
          if (!it->shape.empty()) {
            shape += "[";
            for (size_t d = 0; d < it->shape.size(); ++d) shape += (d ? ", " : "") + std::to_string(it->shape[d]);
            shape += "]";
          }
          shape += std::string(", ") + memKindName(it->mem);
          break;
        }
      out_.push_back(where(f) + ": reduction into '" + user(r.of) + "' (" + linesOf(lines) + ") in a private accumulator '" +
                     r.accumulator + "' (" + shape + ")");
    }
    if (!f.loopKind.cpu.prefetches.empty()) {
      std::string what;
      for (auto& p : f.loopKind.cpu.prefetches) what += (what.empty() ? "" : ", ") + toString(p.at) + (p.write ? " for writing" : "");
      out_.push_back("loop '" + f.id + "': prefetches " + std::to_string(f.loopKind.cpu.prefetchAhead) +
                     " iterations ahead what it reads or updates through indices from data: " + what);
    }
    const For* outer = threaded_;
    if (f.loopKind.threads()) threaded_ = &f;
    Visitor::visitFor(f);
    threaded_ = outer;
  }
  void visitReduce(const Reduce& r) override {
    if (r.atomic && threaded_)
      out_.push_back(where(*threaded_) + ": reduction into '" + user(r.tensor) + "' (line " + std::to_string(r.loc.line) +
                     ") by atomic updates");
  }

 private:
  std::string user(std::string t) const {
    while (of_.count(t) && of_.at(t) != t) t = of_.at(t);
    return t;
  }

  std::vector<std::string>& out_;
  std::map<std::string, std::string> of_;  // accumulator -> what it stands for
  std::vector<TensorDecl> decls_;
  const For* threaded_ = nullptr;
};

}  // namespace

std::vector<std::string> decisions(const Program& lowered) {
  std::vector<std::string> out;
  for (auto& n : lowered.nests) Decisions(out, n).visit(n);
  return out;
}

}  // namespace teml::lowering
