#include "schedule/primitives.hpp"

#include "schedule/nest_path.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

namespace {

using Applied = Schedule::Applied;
using ir::StmtP;

ir::ThreadSchedule threads(const std::string& word) {
  if (word == "dynamic") return ir::ThreadSchedule::Dynamic;
  if (word == "guided") return ir::ThreadSchedule::Guided;
  return ir::ThreadSchedule::Static;
}

int number(const Step& p, size_t k) { return static_cast<int>(p.numbers.at(k)); }

// A primitive that rewrites the whole nest it is given (TeML's level-based ones).
Applied whole(StmtP result) { return Applied{std::move(result), {}}; }

std::vector<Primitive> table() {
  using P = Param;
  return {
      {"split", "split", "stripmine", {P::Loop, P::Integer}, 0, "split(loop, factor) or split(loop, nparts=n)",
       "stripmine(l, level, factor)", Returns::LoopAndInner,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.split(t, p.loops.at(0), p.numbers.at(0)); }, 2},
      {"split_n", "", "stripmine_n", {P::Loop, P::Integer}, 0, "", "stripmine_n(l, n, factor)", Returns::LoopAndInner,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.splitN(t, p.loops.at(0), p.numbers.at(0)); }, 2},
      {"split_parts", "split", "", {P::Loop, P::Integer}, 0, "split(loop, nparts=n)", "", Returns::LoopAndInner,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.splitParts(t, p.loops.at(0), p.numbers.at(0)); }, 2,
       "nparts"},
      {"interchange", "interchange", "interchange", {P::Loop, P::Loop}, 0,
       "interchange(a, b): two loops of one perfect nest trade places", "interchange(l, level1, level2)",
       Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.interchange(t, p.loops.at(0), p.loops.at(1)); }},
      {"reorder", "reorder", "reorder", {P::Loops}, 0, "reorder([loops, outermost first])",
       "reorder(l, [levels, outermost first])", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.reorder(t, p.loops); }},
      {"interchange_n", "", "interchange_n", {P::Level, P::Integer}, 0, "", "interchange_n(l, level, n)",
       Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return whole(s.interchangeN(t, number(p, 0), p.numbers.at(1))); }},
      {"fuse_outer", "", "fuse_outer", {P::Nest, P::Level}, 0, "", "fuse_outer(l1, l2, level)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return whole(s.fuseOuter(t, p.nests.at(0), number(p, 0))); }},
      {"fuse_inner", "", "fuse_inner", {P::Level}, 0, "", "fuse_inner(l, level)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return whole(s.fuseInner(t, number(p, 0))); }},
      {"fuse", "fuse", "", {P::Loop, P::Loop}, 0, "fuse(first, second)", "", Returns::FirstLoop,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.fuse(t, p.loops.at(0), p.loops.at(1)); }, 1},
      {"unroll", "unroll", "unroll", {P::Loop, P::Integer}, 1, "unroll(loop) or unroll(loop, factor)",
       "unroll(l, level) or unroll(l, level, factor)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) {
         return p.numbers.empty() ? s.unroll(t, p.loops.at(0)) : s.unroll(t, p.loops.at(0), p.numbers.at(0));
       }},
      {"unroll_and_jam", "unroll_and_jam", "unroll_and_jam", {P::Loop, P::Integer}, 0, "unroll_and_jam(loop, factor)",
       "unroll_and_jam(l, level, factor)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.unrollAndJam(t, p.loops.at(0), p.numbers.at(0)); }},
      {"tile", "tile", "", {P::Loop, P::Integer}, 0,
       "tile(loop, factor): every loop of the perfect nest below it, in blocks", "", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.tile(t, p.loops.at(0), p.numbers.at(0)); }},
      {"tile_nest", "", "tile", {P::Integer}, 0, "", "tile(l, factor)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return whole(s.tile(t, p.numbers.at(0))); }},
      {"skew", "skew", "skew", {P::Loop, P::Loop, P::Integer}, 0, "skew(outer, inner, factor)",
       "skew(l, level1, level2, factor)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) {
         return s.skew(t, p.loops.at(0), p.loops.at(1), p.numbers.at(0));
       }},
      {"interchange_skewed", "interchange_skewed", "interchange_skewed", {P::Loop, P::Loop}, 0,
       "interchange_skewed(outer, inner): the inner loop, whose bounds move with the outer iterator, goes outside",
       "interchange_skewed(l, level1, level2)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) {
         return s.interchangeSkewed(t, p.loops.at(0), p.loops.at(1));
       }},
      {"fission", "fission", "fission", {P::Loop, P::Integer}, 0,
       "fission(loop, k): the first k statements of its body stay, the rest go to a second loop",
       "fission(l, level, k)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.fission(t, p.loops.at(0), number(p, 0)); }, 1},
      {"swap", "swap", "", {P::Loop, P::Integer, P::Integer}, 0,
       "swap(loop, a, b): statements a and b of its body trade places", "", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.swap(t, p.loops.at(0), number(p, 0), number(p, 1)); }},
      {"swap_level", "", "swap", {P::Depth, P::Integer, P::Integer}, 0, "", "swap(l, level, a, b)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) {
         return whole(s.swap(t, number(p, 0), number(p, 1), number(p, 2)));
       }},
      {"merge", "merge", "", {P::Loop, P::Loop}, 0, "merge(outer, inner)", "", Returns::FirstLoop,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.merge(t, p.loops.at(0), p.loops.at(1)); }, 1},
      {"merge_level", "", "merge", {P::Level}, 0, "", "merge(l, level)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) {
         int r = number(p, 0);
         auto chain = loopsToLevel(t, r + 1, "merge");
         return s.merge(t, chain[r - 1]->id, chain[r]->id);
       }},
      {"blend", "blend", "blend", {P::Loop}, 0, "blend(loop)", "blend(l, level)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.blend(t, p.loops.at(0)); }},
      {"local", "local", "local", {P::Loop, P::Tensor}, 0, "local(loop, tensor)", "local(l, level, tensor)",
       Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.makeLocal(t, p.loops.at(0), p.word, p.line); }},
      {"cache_zeroed", "cache_zeroed", "cache_zeroed", {P::Loop, P::Tensor}, 0, "cache_zeroed(loop, tensor)",
       "cache_zeroed(l, level, tensor)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.cacheZeroed(t, p.loops.at(0), p.word, p.line); }},
      {"cache", "cache", "cache", {P::Loop, P::Tensor, P::MemType}, 1,
       "cache(loop, tensor) or cache(loop, tensor, \"gpu/shared\"|\"gpu/local\")",
       "cache(l, level, tensor) or cache(l, level, tensor, \"gpu/shared\"|\"gpu/local\")", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) {
         auto before = localTensors(t);
         Applied r = s.cache(t, p.loops.at(0), p.word, false, p.line);
         if (p.mem.empty()) return r;
         for (auto& name : localTensors(r.result))  // the copy the cache made
           if (!before.count(name)) r.result = s.setMemType(r.result, name, *ir::memKindNamed(p.mem)).result;
         return r;
       }},
      {"set_mem_type", "set_mem_type", "", {P::Tensor, P::MemType}, 0,
       "set_mem_type(tensor, \"gpu/shared\"|\"gpu/local\"|\"gpu/global\"|\"cpu\")", "", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.setMemType(t, p.word, *ir::memKindNamed(p.mem)); }},
      {"cache_reduce", "cache_reduce", "cache_reduce", {P::Loop, P::Tensor}, 0, "cache_reduce(loop, tensor)",
       "cache_reduce(l, level, tensor)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.cache(t, p.loops.at(0), p.word, true, p.line); }},
      {"prefetch", "prefetch", "prefetch", {P::Copy, P::Integer}, 1, "prefetch(copy) or prefetch(copy, distance)",
       "prefetch(l, copy) or prefetch(l, copy, distance)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) {
         return whole(s.prefetch(t, p.word, p.numbers.empty() ? 1 : p.numbers[0]));
       }},
      {"var_reorder", "var_reorder", "var_reorder", {P::Copy, P::Dimensions}, 0,
       "var_reorder(tensor, [dimensions in their new order])",
       "var_reorder(l, tensor, [dimensions in their new order])", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) {
         return whole(s.varReorder(t, p.word, std::vector<int>(p.numbers.begin(), p.numbers.end())));
       }},
      {"var_split", "", "var_split", {P::Copy, P::Dimension, P::Integer}, 0, "",
       "var_split(l, tensor, dimension, factor)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return whole(s.varSplit(t, p.word, number(p, 0), p.numbers.at(1))); }},
      {"var_merge", "", "var_merge", {P::Copy, P::Dimension}, 0, "", "var_merge(l, tensor, dimension)",
       Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return whole(s.varMerge(t, p.word, number(p, 0))); }},
      {"as_lib", "as_lib", "", {P::Loop}, 0, "as_lib(loop)", "", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.asLib(t, p.loops.at(0)); }},
      {"as_lib_nest", "", "as_lib", {}, 0, "", "as_lib(l)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step&) { return whole(s.asLib(t)); }},
      {"separate_tail", "separate_tail", "separate_tail", {P::Loop}, 0, "separate_tail(loop)",
       "separate_tail(l, level)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.separateTail(t, p.loops.at(0)); }},
      {"separate_interior", "separate_interior", "separate_interior", {P::Loop}, 0, "separate_interior(loop)",
       "separate_interior(l, level)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.separateInterior(t, p.loops.at(0)); }},
      {"parallelize", "parallelize", "parallelize", {P::Loop, P::ThreadSchedule}, 1,
       "parallelize(loop) or parallelize(loop, \"static\"|\"dynamic\"|\"guided\"|\"openmp\"|\"blockIdx.x\"|...|\"threadIdx.z\")",
       "parallelize(l, level) or parallelize(l, level, static|dynamic|guided|openmp|\"blockIdx.x\"|...|\"threadIdx.z\")",
       Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) {
         if (auto gpu = ir::gpuScopeNamed(p.word)) return s.parallelize(t, p.loops.at(0), *gpu);
         return s.parallelize(t, p.loops.at(0), threads(p.word));
       }},
      {"distribute", "distribute", "distribute", {P::Loop}, 0, "distribute(loop)", "distribute(l, level)",
       Returns::Created, [](Schedule& s, const StmtP& t, const Step& p) { return s.distribute(t, p.loops.at(0)); }},
      {"vectorize", "vectorize", "vectorize", {P::Loop}, 0, "vectorize(loop)", "vectorize(l, level)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.vectorize(t, p.loops.at(0)); }},
      {"hoist_product", "hoist_product", "hoist_product", {P::Loop}, 0, "hoist_product(loop)",
       "hoist_product(l, level)", Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.hoistProduct(t, p.loops.at(0)); }},
      {"factor_sum", "factor_sum", "factor_sum", {P::Loop}, 0, "factor_sum(loop)", "factor_sum(l, level)",
       Returns::Created,
       [](Schedule& s, const StmtP& t, const Step& p) { return s.factorSum(t, p.loops.at(0)); }},
  };
}

const Primitive* find(std::string Primitive::*field, const std::string& spelling) {
  if (spelling.empty()) return nullptr;
  for (auto& p : primitives())
    if (p.*field == spelling) return &p;
  return nullptr;
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

const Primitive& named(const std::string& name) {
  if (auto* p = primitiveNamed(name)) return *p;
  throw ScheduleError("no schedule primitive is called '" + name + "'");
}

}  // namespace

const std::vector<Primitive>& primitives() {
  static const std::vector<Primitive> all = table();
  return all;
}

const Primitive* primitiveNamed(const std::string& name) { return find(&Primitive::name, name); }
const Primitive* freeformPrimitive(const std::string& spelling) { return find(&Primitive::freeform, spelling); }
const Primitive* temlPrimitive(const std::string& spelling) { return find(&Primitive::teml, spelling); }
const Primitive* freeformPrimitive(const std::string& spelling, const std::string& keyword) {
  for (auto& p : primitives())
    if (p.freeform == spelling && p.keyword == keyword) return &p;
  return nullptr;
}

Schedule::Applied applyStep(Schedule& schedule, const ir::StmtP& top, const Step& step) {
  return named(step.primitive).apply(schedule, top, step);
}

std::string freeformText(const Step& step) {
  std::vector<std::string> args;
  if (step.primitive == "reorder") {
    std::string list;
    for (auto& l : step.loops) list += (list.empty() ? "" : ", ") + quoted(l);
    args.push_back("[" + list + "]");
  } else {
    for (auto& l : step.loops) args.push_back(quoted(l));
  }
  const std::string& keyword = named(step.primitive).keyword;  // s.split(L, nparts=n)
  for (auto n : step.numbers) args.push_back((keyword.empty() ? "" : keyword + "=") + std::to_string(n));
  if (!step.word.empty()) args.push_back(quoted(step.word));
  if (!step.mem.empty()) args.push_back(quoted(step.mem));
  std::string text = "s." + named(step.primitive).freeform + "(";
  for (size_t k = 0; k < args.size(); ++k) text += (k ? ", " : "") + args[k];
  return text + ")";
}

std::string temlText(const Step& step, const std::string& in, const std::string& out) {
  std::string text = out + " = " + named(step.primitive).teml + "(" + in;
  if (step.primitive == "reorder") {
    std::string list;
    for (auto& l : step.iterators) list += (list.empty() ? "" : ", ") + l;
    text += ", [" + list + "]";
  } else if (step.primitive == "var_reorder") {
    std::string list;
    for (auto n : step.numbers) list += (list.empty() ? "" : ", ") + std::to_string(n);
    return text + ", " + step.word + ", [" + list + "])";
  } else {
    for (auto& l : step.iterators) text += ", " + l;
  }
  for (auto n : step.numbers) text += ", " + std::to_string(n);
  if (!step.word.empty()) text += ", " + (ir::gpuScopeNamed(step.word) ? "\"" + step.word + "\"" : step.word);
  return text + ")";
}

std::string parallelScopeProblem(const std::string& word, target::Kind kind) {
  const char* gpuChoices =
      "\"blockIdx.x\", \"blockIdx.y\", \"blockIdx.z\", \"threadIdx.x\", \"threadIdx.y\" or \"threadIdx.z\"";
  bool gpu = ir::gpuScopeNamed(word).has_value();
  bool cpu = word.empty() || word == "static" || word == "dynamic" || word == "guided" || word == "openmp";
  if (kind == target::Kind::Cuda) {
    if (gpu) return "";
    return "parallelize on the cuda target binds the loop to " + std::string(gpuChoices) +
           (word.empty() ? "; name one" : ", not '" + word + "'");
  }
  if (cpu) return "";
  if (gpu) return "parallelize: \"" + word + "\" binds the loop to a GPU, and the target is the CPU (run with --target cuda)";
  return "parallelize: the thread schedule is static, dynamic or guided (\"openmp\": static), or on the cuda target " +
         std::string(gpuChoices) + ", not '" + word + "'";
}

}  // namespace teml::schedule
