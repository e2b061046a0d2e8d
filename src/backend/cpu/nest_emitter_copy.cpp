// Copy nests as the lowering stage planned them (lowering/copy_plans): one
// whose inner loops run, in order, over whole trailing dimensions of both
// tensors (a cache's copy-out of whole rows, say) moves one contiguous block
// of memory: one flat copy, memcpy, or non-temporal vector stores. One that
// transposes runs in dst's order with whole vectors gathered from src's
// stride.
#include <algorithm>

#include "codegen/c_text.hpp"
#include "backend/cpu/nest_emitter.hpp"
#include "diag/diagnostics.hpp"

namespace teml::codegen {

using namespace ir;

void NestEmitter::emitFlatCopy(const For& f, int indent) {
  const CopyPlan& plan = f.loopKind.cpu.copy;
  const TensorDecl* to = view_.find(plan.to);
  bool single = to->dtype == DType::F32;
  std::string type = cType(to->dtype);
  std::string t = names_.claim("to"), fr = names_.claim("from"), n = names_.claim("n");
  line(indent, "{");
  line(indent + 1, type + " *restrict " + t + " = &" + access(plan.to, plan.toFirst) + ";");
  line(indent + 1, "const " + type + " *restrict " + fr + " = &" + access(plan.from, plan.fromFirst) + ";");
  line(indent + 1, "long " + n + " = " + expr(plan.elements, 0, false, false) + ";");
  if (plan.form == CopyForm::FlatStreaming) {
    // Scalars up to a vector boundary of dst, whole vectors past the caches, scalars for the rest.
    std::string i = names_.claim("f"), w = std::to_string(target_.vectorBytes / (single ? 4 : 8));
    std::string vec = single ? "teml_vf" : "teml_vd";
    line(indent + 1, "long " + i + " = 0;");
    line(indent + 1, "for (; " + i + " < " + n + " && ((unsigned long)(" + t + " + " + i + ")) % " +
                         std::to_string(target_.vectorBytes) + " != 0; " + i + "++) " + t + "[" + i + "] = " + fr + "[" + i + "];");
    line(indent + 1, "for (; " + i + " + " + w + " <= " + n + "; " + i + " += " + w + ") teml_stream_" + vec.substr(5) +
                         "(" + t + " + " + i + ", (" + vec + "_aligned)*(const " + vec + " *)(" + fr + " + " + i + "));");
    line(indent + 1, "for (; " + i + " < " + n + "; " + i + "++) " + t + "[" + i + "] = " + fr + "[" + i + "];");
    streamed_ = true;
    names_.release(i);
  } else {
    line(indent + 1, "if (" + n + " > 0) memcpy(" + t + ", " + fr + ", " + n + " * sizeof(" + type + "));");
  }
  line(indent, "}");
  names_.release(n);
  names_.release(fr);
  names_.release(t);
}

int64_t NestEmitter::prefetchPlan(const std::string& copy, const std::string& source, const std::string& from,
                                  int indent, std::string* base) {
  auto p = prefetching_.find(copy);
  if (p == prefetching_.end()) return 0;
  const TensorDecl* t = program_.find(source);
  if (!t) throw InternalError("code generation: prefetch from '" + source + "', which is no program tensor");
  // The box `ahead` iterations later starts prefetchDistance elements further.
  int64_t size = bytes(t->dtype), delta = p->second->prefetchDistance, bytes = p->second->prefetchBytes;
  *base = names_.claim("ahead");
  // Fetch only what lies inside the tensor: the last iterations have no next box.
  line(indent, "unsigned long " + *base + " = (unsigned long)" + from + " + " + std::to_string(delta * size) + ";");
  line(indent, "if (" + *base + " + " + std::to_string(bytes) + " > (unsigned long)" + tensorNames_.at(source) + " + " +
                   std::to_string(t->elementCount() * size) + "UL) " + *base + " = 0;");
  return bytes;
}

void NestEmitter::emitGatheredCopy(const For& f, int indent) {
  const CopyPlan& plan = f.loopKind.cpu.copy;
  const TensorDecl* to = view_.find(plan.to);
  int width = plan.width;
  const std::vector<CopyLoop>& merged = plan.loops;
  const CopyLoop& last = merged.back();
  std::string type = cType(to->dtype), vec = to->dtype == DType::F64 ? "teml_vd" : "teml_vf";
  std::string t = names_.claim("to"), fr = names_.claim("from");
  line(indent, "{");
  line(indent + 1, type + " *restrict " + t + " = &" + access(plan.to, plan.toFirst) + ";");
  line(indent + 1, "const " + type + " *restrict " + fr + " = &" + access(plan.from, plan.fromFirst) + ";");
  std::string ahead;
  int64_t lines = (prefetchPlan(plan.to, plan.from, fr, indent + 1, &ahead) + 63) / 64;
  std::string q = lines > 0 ? names_.claim("q") : "";
  auto fetch = [&](int at, const std::string& first, const std::string& end) {
    line(at, "if (" + ahead + ") for (long " + q + " = " + first + "; " + q + " < " + end + "; " + q +
                 "++) __builtin_prefetch((const void *)(" + ahead + " + 64 * " + q + "), 0, 1);");
  };
  std::vector<std::string> vars;
  std::string toOffset, fromOffset;
  for (size_t k = 0; k < merged.size(); ++k) {
    vars.push_back(names_.claim(merged[k].var));
    if (k + 1 < merged.size()) {
      toOffset += vars[k] + " * " + std::to_string(merged[k].to) + " + ";
      fromOffset += vars[k] + " * " + std::to_string(merged[k].from) + " + ";
      line(indent + 1 + static_cast<int>(k), "for (long " + vars[k] + " = 0; " + vars[k] + " < " +
                                                 std::to_string(merged[k].span) + "; " + vars[k] + "++) {");
      if (k == 0 && lines > 0) {
        // The lines of the next box, spread evenly over the outermost loop.
        std::string l = std::to_string(lines), n = std::to_string(merged[0].span);
        fetch(indent + 2, vars[0] + " * " + l + " / " + n, "(" + vars[0] + " + 1) * " + l + " / " + n);
      }
    }
  }
  int in = indent + static_cast<int>(merged.size());
  const std::string& m = vars.back();
  std::string lanes;
  for (int l = 0; l < width; ++l)
    lanes += std::string(l ? ", " : "") + fr + "[" + fromOffset + "(" + m + " + " + std::to_string(l) + ") * " +
             std::to_string(last.from) + "]";
  // Whole vectors gathered from the source's stride, then the rest.
  line(in, "long " + m + " = 0;");
  std::string store = "*(" + vec + " *)&" + t + "[" + toOffset + m + "] = (" + vec + "){" + lanes + "};";
  std::string header = "for (; " + m + " + " + std::to_string(width) + " <= " + std::to_string(last.span) + "; " + m +
                       " += " + std::to_string(width) + ")";
  if (lines > 0 && merged.size() == 1) {
    // One flat loop: the lines of the next box spread over its vectors.
    std::string l = std::to_string(lines), n = std::to_string(last.span);
    line(in, header + " {");
    fetch(in + 1, m + " * " + l + " / " + n, "(" + m + " + " + std::to_string(width) + ") * " + l + " / " + n);
    line(in + 1, store);
    line(in, "}");
  } else {
    line(in, header + " " + store);
  }
  line(in, "for (; " + m + " < " + std::to_string(last.span) + "; " + m + "++) " + t + "[" + toOffset + m + "] = " + fr +
               "[" + fromOffset + m + " * " + std::to_string(last.from) + "];");
  for (size_t k = merged.size() - 1; k-- > 0;) line(indent + 1 + static_cast<int>(k), "}");
  line(indent, "}");
  for (auto it = vars.rbegin(); it != vars.rend(); ++it) names_.release(*it);
  if (!q.empty()) names_.release(q);
  if (!ahead.empty()) names_.release(ahead);
  names_.release(fr);
  names_.release(t);
}

}  // namespace teml::codegen
