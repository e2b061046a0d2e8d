#include "interp/interpreter.hpp"

#include <cmath>
#include <unordered_map>

#include "diag/diagnostics.hpp"
#include "ir/printer.hpp"

namespace teml::interp {

using namespace ir;

namespace {

class Interpreter {
 public:
  Interpreter(const Program& p, runtime::BufferMap& b) : program_(p), buffers_(b) {}

  void exec(const StmtP& s) {
    switch (s->kind) {
      case StmtKind::For: {
        auto& f = static_cast<const For&>(*s);
        int64_t b = evalInt(f.begin), e = evalInt(f.end);
        auto saved = env_.find(f.var) != env_.end() ? std::optional<int64_t>(env_[f.var]) : std::nullopt;
        for (int64_t i = b; i < e; i += f.step) {
          env_[f.var] = i;
          exec(f.body);
        }
        if (saved) env_[f.var] = *saved; else env_.erase(f.var);
        break;
      }
      case StmtKind::Store: {
        auto& st = static_cast<const Store&>(*s);
        auto [buf, off] = locate(st.tensor, st.indices);
        buf->set(off, evalFloat(st.value));
        break;
      }
      case StmtKind::Reduce: {
        auto& r = static_cast<const Reduce&>(*s);
        auto [buf, off] = locate(r.tensor, r.indices);
        double v = evalFloat(r.value), old = buf->get(off);
        switch (r.op) {
          case ReduceOp::Add: buf->set(off, old + v); break;
          case ReduceOp::Mul: buf->set(off, old * v); break;
          case ReduceOp::Max: buf->set(off, std::fmax(old, v)); break;
          case ReduceOp::Min: buf->set(off, std::fmin(old, v)); break;
        }
        break;
      }
      case StmtKind::Seq:
        for (auto& t : static_cast<const Seq&>(*s).stmts) exec(t);
        break;
      case StmtKind::LibCall: exec(static_cast<const LibCall&>(*s).reference); break;
      case StmtKind::If: {
        auto& i = static_cast<const If&>(*s);
        if (evalInt(i.cond)) exec(i.then);
        else if (i.otherwise) exec(i.otherwise);
        break;
      }
    }
  }

 private:
  std::pair<runtime::Buffer*, int64_t> locate(const std::string& tensor,
                                             const std::vector<ExprP>& indices) {
    auto it = buffers_.find(tensor);
    if (it == buffers_.end()) throw InternalError("interpreter: unknown tensor '" + tensor + "'");
    runtime::Buffer& buf = it->second;
    if (indices.size() != buf.shape().size())
      throw InternalError("interpreter: tensor '" + tensor + "' indexed with " +
                          std::to_string(indices.size()) + " indices");
    int64_t off = 0;
    for (size_t d = 0; d < indices.size(); ++d) {
      int64_t i = evalInt(indices[d]);
      if (i < 0 || i >= buf.shape()[d])
        throw InternalError("interpreter: out-of-bounds access to '" + tensor + "': index " +
                            toString(indices[d]) + " = " + std::to_string(i) + " in dimension " +
                            std::to_string(d + 1) + " of extent " + std::to_string(buf.shape()[d]));
      off = off * buf.shape()[d] + i;
    }
    return {&buf, off};
  }

  int64_t evalInt(const ExprP& e) {
    switch (e->kind) {
      case ExprKind::IntConst: return static_cast<const IntConst&>(*e).value;
      case ExprKind::Var: {
        auto& name = static_cast<const Var&>(*e).name;
        auto it = env_.find(name);
        if (it == env_.end()) throw InternalError("interpreter: unbound iterator '" + name + "'");
        return it->second;
      }
      case ExprKind::Binary: {
        auto& b = static_cast<const Binary&>(*e);
        int64_t x = evalInt(b.a), y = evalInt(b.b);
        switch (b.op) {
          case BinOp::Add: return x + y;
          case BinOp::Sub: return x - y;
          case BinOp::Mul: return x * y;
          case BinOp::Div:
          case BinOp::FloorDiv:
          case BinOp::Mod: {
            if (y == 0) throw InternalError("interpreter: integer division by zero");
            int64_t q = x / y;
            if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
            return b.op == BinOp::Mod ? x - q * y : q;
          }
          case BinOp::Min: return std::min(x, y);
          case BinOp::Max: return std::max(x, y);
          case BinOp::Lt: return x < y;
          case BinOp::Le: return x <= y;
          case BinOp::Eq: return x == y;
          case BinOp::And: return x && y;
        }
        break;
      }
      default: break;
    }
    throw InternalError("interpreter: non-integer expression used as an index: " + toString(e));
  }

  double evalFloat(const ExprP& e) {
    switch (e->kind) {
      case ExprKind::IntConst: return static_cast<double>(static_cast<const IntConst&>(*e).value);
      case ExprKind::FloatConst: return static_cast<const FloatConst&>(*e).value;
      case ExprKind::Var: return static_cast<double>(evalInt(e));
      case ExprKind::Load: {
        auto& l = static_cast<const Load&>(*e);
        auto [buf, off] = locate(l.tensor, l.indices);
        return buf->get(off);
      }
      case ExprKind::Binary: {
        auto& b = static_cast<const Binary&>(*e);
        if (b.a->isInt() && b.b->isInt()) return static_cast<double>(evalInt(e));
        double x = evalFloat(b.a), y = evalFloat(b.b);
        switch (b.op) {
          case BinOp::Add: return x + y;
          case BinOp::Sub: return x - y;
          case BinOp::Mul: return x * y;
          case BinOp::Div: return x / y;
          case BinOp::Min: return std::fmin(x, y);
          case BinOp::Max: return std::fmax(x, y);
          default: break;
        }
        break;
      }
    }
    throw InternalError("interpreter: cannot evaluate " + toString(e));
  }

  const Program& program_;
  runtime::BufferMap& buffers_;
  std::unordered_map<std::string, int64_t> env_;
};

}  // namespace

void runNest(const StmtP& nest, const Program& program, runtime::BufferMap& buffers) {
  Interpreter in(program, buffers);
  in.exec(nest);
}

void run(const Program& program, runtime::BufferMap& buffers) {
  for (auto& n : program.nests) runNest(n, program, buffers);
}

}  // namespace teml::interp
