#include "schedule/access_rewrite.hpp"

namespace teml::schedule {

using namespace ir;

ExprP AccessRewrite::mutateLoad(const ExprP& e) {
  ExprP m = Mutator::mutateLoad(e);
  auto& l = m->as<Load>();
  if (l.tensor != from_) return m;
  ++reads;
  return load(to_, map_(l.indices), l.dtype);
}

StmtP AccessRewrite::mutateStore(const StmtP& s) {
  StmtP m = Mutator::mutateStore(s);
  auto& st = m->as<Store>();
  if (st.tensor != from_) return m;
  ++writes;
  return makeStore(to_, map_(st.indices), st.value, st.loc, st.tag);
}

StmtP AccessRewrite::mutateReduce(const StmtP& s) {
  StmtP m = Mutator::mutateReduce(s);
  auto& r = m->as<Reduce>();
  if (r.tensor != from_) return m;
  ++writes;
  return makeReduce(r.op, to_, map_(r.indices), r.value, r.loc, r.tag);
}

StmtP AccessRewrite::mutateVarDef(const StmtP& s) {
  StmtP m = Mutator::mutateVarDef(s);
  auto& v = m->as<VarDef>();
  if (!v.loopLocal || v.decl.name != from_) return m;
  localFound = true;
  return std::make_shared<VarDef>(TensorDecl{to_, v.decl.dtype, shape_}, v.body, v.loopLocal);
}

}  // namespace teml::schedule
