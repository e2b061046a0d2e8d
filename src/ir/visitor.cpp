#include "ir/visitor.hpp"

namespace teml::ir {

void Visitor::visitIntConst(const IntConst&) {}
void Visitor::visitFloatConst(const FloatConst&) {}
void Visitor::visitVar(const Var&) {}
void Visitor::visitLoad(const Load& node) { visit(node.indices); }
void Visitor::visitBinary(const Binary& node) {
  visit(node.a);
  visit(node.b);
}

void Visitor::visitUnary(const Unary& node) { visit(node.a); }
void Visitor::visitCast(const Cast& node) { visit(node.a); }
void Visitor::visitSelect(const Select& node) {
  visit(node.cond);
  visit(node.a);
  visit(node.b);
}

void Visitor::visitFor(const For& node) {
  visit(node.begin);
  visit(node.end);
  visit(node.body);
}
void Visitor::visitStore(const Store& node) {
  visit(node.indices);
  visit(node.value);
}
void Visitor::visitReduce(const Reduce& node) {
  visit(node.indices);
  visit(node.value);
}
void Visitor::visitSeq(const Seq& node) {
  for (auto& s : node.stmts) visit(s);
}
void Visitor::visitIf(const If& node) {
  visit(node.cond);
  visit(node.then);
  if (node.otherwise) visit(node.otherwise);
}
void Visitor::visitLibCall(const LibCall& node) { visit(node.reference); }
void Visitor::visitVarDef(const VarDef& node) { visit(node.body); }
void Visitor::visitBarrier(const Barrier&) {}
void Visitor::visitExchange(const Exchange&) {}
void Visitor::visitAssert(const Assert& node) {
  visit(node.cond);
  if (node.shown) visit(node.shown);
  visit(node.body);
}

}  // namespace teml::ir
