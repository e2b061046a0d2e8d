#include "ir/csr_rows.hpp"

#include "ir/mutator.hpp"

namespace teml::ir {

namespace {

const char* const kOutOfOrder = "the rows of '";

ExprP uncast(ExprP e) {
  while (e->kind == ExprKind::Cast) e = static_cast<const Cast&>(*e).a;
  return e;
}

// e as base + offset, offset an integer constant.
std::pair<ExprP, int64_t> withOffset(const ExprP& e) {
  ExprP x = uncast(e);
  if (x->kind == ExprKind::Binary) {
    auto& b = static_cast<const Binary&>(*x);
    int64_t c;
    if (b.op == BinOp::Add && constValue(b.b, &c)) return {uncast(b.a), c};
    if (b.op == BinOp::Sub && constValue(b.b, &c)) return {uncast(b.a), -c};
  }
  return {x, 0};
}

// P[e] as (P, e); nothing for another expression.
std::optional<std::pair<std::string, ExprP>> rowBound(const ExprP& e) {
  ExprP x = uncast(e);
  if (x->kind != ExprKind::Load) return std::nullopt;
  auto& l = static_cast<const Load&>(*x);
  if (l.indices.size() != 1 || !isIntegral(l.dtype)) return std::nullopt;
  return std::pair{l.tensor, l.indices[0]};
}

}  // namespace

std::optional<CsrRow> csrRowOf(const For& k) {
  ExprP first = k.begin, last = k.end;  // the row's bounds, the end exclusive
  if (k.step == -1) {
    auto [b, bc] = withOffset(k.begin);
    auto [e, ec] = withOffset(k.end);
    if (bc != -1 || ec != -1) return std::nullopt;
    first = e;
    last = b;
  } else if (k.step != 1) {
    return std::nullopt;
  }
  auto start = rowBound(first), end = rowBound(last);
  if (!start || !end || start->first != end->first) return std::nullopt;
  // The end's index is the start's plus one.
  auto [a, ac] = withOffset(start->second);
  auto [b, bc] = withOffset(end->second);
  if (!equal(a, b) || bc != ac + 1) return std::nullopt;
  return CsrRow{start->first, start->second};
}

StmtP rowOrderCheck(const std::string& rows, DType dtype, const ExprP& row, SourceLoc loc, const StmtP& loop) {
  ExprP here = load(rows, {row}, dtype), next = load(rows, {add(row, intConst(1))}, dtype);
  return makeAssert(binary(BinOp::Le, here, next),
                    kOutOfOrder + rows + "' decrease after row {}: its loops over a row's entries (range(" + rows +
                        "[i], " + rows + "[i + 1])) must not overlap",
                    row, loc, loop);
}

StmtP wholeRowOrderCheck(const std::string& rows, DType dtype, int64_t length, SourceLoc loc) {
  std::string r = rows + ".row";
  StmtP check = rowOrderCheck(rows, dtype, var(r), loc, makeSeq({}));
  return makeFor(rows + ".rows", r, intConst(0), intConst(std::max<int64_t>(length - 1, 0)), 1, LoopKind{}, check);
}

std::optional<std::string> rowOrderChecked(const Assert& a) {
  if (a.message.rfind(kOutOfOrder, 0) != 0 || a.cond->kind != ExprKind::Binary) return std::nullopt;
  ExprP here = static_cast<const Binary&>(*a.cond).a;
  if (here->kind != ExprKind::Load) return std::nullopt;
  return static_cast<const Load&>(*here).tensor;
}

std::map<std::string, std::pair<const For*, CsrRow>> checkedRowLoops(const StmtP& s) {
  std::map<std::string, std::pair<const For*, CsrRow>> out;
  forEachStmt(s, [&](const StmtP& x) {
    if (x->kind != StmtKind::Assert) return;
    auto& a = static_cast<const Assert&>(*x);
    if (a.message.rfind(kOutOfOrder, 0) != 0) return;
    forEachStmt(a.body, [&](const StmtP& y) {
      if (y->kind != StmtKind::For) return;
      auto row = csrRowOf(static_cast<const For&>(*y));
      if (row && a.message.rfind(kOutOfOrder + row->rows + "' decrease", 0) == 0)
        out[y->id] = {static_cast<const For*>(y.get()), *row};
    });
  });
  return out;
}

}  // namespace teml::ir
