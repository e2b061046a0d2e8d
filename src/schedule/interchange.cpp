#include <algorithm>
#include <functional>

#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

void checkScoping(const StmtP& nest, const std::string& what) {
  std::vector<std::string> scope;
  std::function<void(const ExprP&)> checkExpr = [&](const ExprP& e) {
    forEachExpr(e, [&](const ExprP& x) {
      if (x->kind != ExprKind::Var) return;
      auto& name = static_cast<const Var&>(*x).name;
      if (std::find(scope.begin(), scope.end(), name) == scope.end())
        throw ScheduleError(what + ": iterator '" + name + "' would be used outside the loop that defines it");
    });
  };
  std::function<void(const StmtP&)> walk = [&](const StmtP& s) {
    switch (s->kind) {
      case StmtKind::For: {
        auto& f = static_cast<const For&>(*s);
        checkExpr(f.begin);
        checkExpr(f.end);
        scope.push_back(f.var);
        walk(f.body);
        scope.pop_back();
        break;
      }
      case StmtKind::Store: {
        auto& st = static_cast<const Store&>(*s);
        for (auto& i : st.indices) checkExpr(i);
        checkExpr(st.value);
        break;
      }
      case StmtKind::Reduce: {
        auto& r = static_cast<const Reduce&>(*s);
        for (auto& i : r.indices) checkExpr(i);
        checkExpr(r.value);
        break;
      }
      case StmtKind::Seq:
        for (auto& t : static_cast<const Seq&>(*s).stmts) walk(t);
        break;
      case StmtKind::LibCall: walk(static_cast<const LibCall&>(*s).reference); break;
      case StmtKind::If: {
        auto& i = static_cast<const If&>(*s);
        checkExpr(i.cond);
        walk(i.then);
        if (i.otherwise) walk(i.otherwise);
        break;
      }
    }
  };
  walk(nest);
}

StmtP interchange(const StmtP& nest, int r1, int r2) {
  if (r1 == r2) throw ScheduleError("interchange: both levels are " + std::to_string(r1));
  if (r1 > r2) std::swap(r1, r2);
  auto chain = loopsToLevel(nest, r2, "interchange");
  // Rebuild levels r1..r2 innermost first, with the headers of r1 and r2 swapped.
  StmtP body = chain[r2 - 1]->body;
  for (int l = r2; l >= r1; --l) {
    const For& header = *chain[(l == r1 ? r2 : l == r2 ? r1 : l) - 1];
    for (int inner = l + 1; inner <= r2; ++inner) {
      const For& below = *chain[(inner == r2 ? r1 : inner) - 1];
      if (usesVar(header.begin, below.var) || usesVar(header.end, below.var))
        throw ScheduleError("interchange: the bounds of loop '" + header.var + "' depend on iterator '" +
                            below.var + "', which would then be defined inside it");
    }
    body = withBody(header, body);
  }
  return replaceLevel(chain, r1, body);
}

}  // namespace teml::schedule
