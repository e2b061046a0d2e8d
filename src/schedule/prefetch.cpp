// prefetch(l, copy, distance): the copy-in of a cache also fetches the box
// of its tensor that the iteration `distance` steps later will copy, so that
// memory works while the loop body computes (Halide's prefetch directive).
#include "analysis/local_box.hpp"
#include "ir/mutator.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

// The tensor a cache's copy-in reads, or "" when the copy has no copy-in.
std::string copiedFrom(const For& owner, const std::string& copy) {
  std::string source;
  forEachStmt(loopBody(owner), [&](const StmtP& s) {
    if (s->kind != StmtKind::Store) return;
    auto& st = s->as<Store>();
    const std::string suffix = ".in";
    bool copyIn = st.tag.id.size() > suffix.size() && st.tag.id.compare(st.tag.id.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (st.tensor == copy && copyIn && st.value->kind == ExprKind::Load) source = st.value->as<Load>().tensor;
  });
  return source;
}

class MarkPrefetch : public Mutator {
 public:
  MarkPrefetch(const Program& program, std::string copy, int distance)
      : program_(program), copy_(std::move(copy)), distance_(distance) {}
  bool found = false;

 protected:
  StmtP mutateFor(const StmtP& s) override {
    StmtP m = Mutator::mutateFor(s);
    auto& f = m->as<For>();
    auto locals = localsOf(f);
    for (size_t i = 0; i < locals.size(); ++i) {
      if (locals[i].decl.name != copy_) continue;
      found = true;
      std::string source = locals[i].isCopy ? copiedFrom(f, copy_) : "";
      if (source.empty())
        throw ScheduleError("prefetch: '" + copy_ + "' is not filled from a tensor (only the copy of cache(l, r, t) "
                            "that is copied in can be fetched ahead)");
      const TensorDecl* t = program_.find(source);
      analysis::LocalBox box;
      std::string why;
      if (!t || !analysis::localBox(f.body, source, &box, &why)) throw ScheduleError("prefetch: " + why);
      for (size_t d = 1; d < box.extent.size(); ++d) {
        int64_t offset;
        if (box.extent[d] != t->shape[d] || !constValue(box.offset[d], &offset) || offset != 0)
          throw ScheduleError("prefetch: the part of '" + source + "' one iteration of loop '" + f.var +
                              "' copies is not contiguous in memory (dimension " + std::to_string(d + 1) +
                              " is cut), so it cannot be fetched line by line");
      }
      locals[i].prefetchAhead = distance_;
      return makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, loopBody(f), locals);
    }
    return m;
  }

 private:
  const Program& program_;
  std::string copy_;
  int distance_;
};

}  // namespace

StmtP prefetch(const StmtP& nest, const Program& program, const std::string& copy, int distance) {
  if (distance < 1) throw ScheduleError("prefetch: the distance must be at least 1 iteration");
  MarkPrefetch mark(program, copy, distance);
  StmtP out = mark.mutate(nest);
  if (!mark.found) throw ScheduleError("prefetch: no loop of the nest holds a cache copy named '" + copy + "'");
  return out;
}

}  // namespace teml::schedule
