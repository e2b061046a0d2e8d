#include "autodiff/overwritten_reads.hpp"

#include <isl/map.h>
#include <isl/set.h>

#include "analysis/isl_model.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"

namespace teml::autodiff {

using namespace ir;
using namespace analysis::isl_model;

namespace {

// Statement ids are unique within a nest only; isl sees the program as one
// sequence, so every statement gets the id of its nest too.
class NestPrefixedTags : public Mutator {
 public:
  explicit NestPrefixedTags(size_t nest) : prefix_("n" + std::to_string(nest) + "_") {}

 protected:
  StmtP mutateStore(const StmtP& s) override {
    auto& st = static_cast<const Store&>(*s);
    return std::make_shared<Store>(st.tensor, st.indices, st.value, st.loc, renamed(st.tag), st.id, st.made);
  }
  StmtP mutateReduce(const StmtP& s) override {
    auto& r = static_cast<const Reduce&>(*s);
    return std::make_shared<Reduce>(r.op, r.tensor, r.indices, r.value, r.loc, renamed(r.tag), r.atomic, r.id, r.made);
  }

 private:
  StmtTag renamed(StmtTag t) const {
    if (t.known()) t.id = prefix_ + t.id;
    return t;
  }
  std::string prefix_;
};

std::string where(const Occurrence& o) {
  return o.loc.line > 0 ? "line " + std::to_string(o.loc.line) : "statement " + o.tag.id;
}

}  // namespace

void refuseOverwrittenReads(const Program& forward, const std::set<std::string>& needed) {
  std::vector<StmtP> nests;
  for (size_t k = 0; k < forward.nests.size(); ++k) nests.push_back(NestPrefixedTags(k).mutate(forward.nests[k]));
  if (nests.empty()) return;
  Ctx ctx = boundedContext();
  try {
    std::vector<Occurrence> occ = occurrences(makeSeq(nests));
    UMap time = schedule(ctx.get(), occ);
    // Instance pairs (read, write) with the write at the read's time or later.
    UMap notBefore = check(isl_union_map_lex_le_union_map(time.copy(), time.copy()));
    for (auto& reader : occ) {
      if (!needed.count(reader.write.tensor)) continue;
      std::vector<Access> reads = reader.reads;
      reads.insert(reads.end(), reader.controlReads.begin(), reader.controlReads.end());
      // A max= or min= reduction is differentiated against its target's
      // final value: only writes other than the reduction itself change it.
      bool extremum = reader.isReduce && (reader.op == ReduceOp::Max || reader.op == ReduceOp::Min);
      if (extremum) reads.push_back(reader.write);
      for (auto& r : reads) {
        UMap readRel = accessRelation(ctx.get(), reader, r);
        for (auto& writer : occ) {
          if (writer.write.tensor != r.tensor) continue;
          if (extremum && writer.node == reader.node && &r == &reads.back()) continue;
          UMap later = intersect(meet(readRel, accessRelation(ctx.get(), writer, writer.write)), notBefore);
          if (isEmpty(later)) continue;
          throw UserError(SourceLoc{}, "gradient: the statement at " + where(reader) + " reads '" + r.tensor +
                                           "', which the statement at " + where(writer) +
                                           " overwrites afterwards; the backward pass would need the value from "
                                           "before (keeping versions of an overwritten tensor is not built yet)");
        }
      }
    }
  } catch (const IslFailure&) {
    throw UserError(SourceLoc{}, "gradient: the dependence analysis cannot tell whether the values the backward pass "
                                 "reads are overwritten (too complex for isl's budget)");
  }
}

}  // namespace teml::autodiff
