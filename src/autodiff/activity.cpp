#include "autodiff/activity.hpp"

#include "ir/mutator.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

struct Flow {
  std::string written;
  std::set<std::string> from;  // float tensors its value loads
};

std::vector<Flow> flowsOf(const Program& p) {
  std::vector<Flow> flows;
  auto add = [&](const std::string& t, const ExprP& value) {
    if (!isFloat(value->dtype)) return;
    Flow f{t, {}};
    forEachExpr(value, [&](const ExprP& e) {
      if (e->kind == ExprKind::Load && isFloat(e->dtype)) f.from.insert(e->as<Load>().tensor);
    });
    flows.push_back(std::move(f));
  };
  for (auto& nest : p.nests)
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::Store) add(s->as<Store>().tensor, s->as<Store>().value);
      if (s->kind == StmtKind::Reduce) add(s->as<Reduce>().tensor, s->as<Reduce>().value);
    });
  return flows;
}

}  // namespace

std::set<std::string> activeTensors(const Program& p, const std::vector<std::string>& wrt,
                                    const std::vector<std::string>& of) {
  auto flows = flowsOf(p);
  std::set<std::string> fromWrt(wrt.begin(), wrt.end()), toOf(of.begin(), of.end());
  for (bool grew = true; grew;) {
    grew = false;
    for (auto& f : flows) {
      for (auto& t : f.from)
        if (fromWrt.count(t) && fromWrt.insert(f.written).second) grew = true;
      if (toOf.count(f.written))
        for (auto& t : f.from) grew = toOf.insert(t).second || grew;
    }
  }
  std::set<std::string> active(wrt.begin(), wrt.end());
  active.insert(of.begin(), of.end());
  for (auto& t : fromWrt)
    if (toOf.count(t)) active.insert(t);
  return active;
}

}  // namespace teml::autodiff
