#include "autodiff/overwritten_reads.hpp"

#include <isl/map.h>
#include <isl/set.h>

#include "analysis/isl_model.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"

#include <map>

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
    auto& st = s->as<Store>();
    return std::make_shared<Store>(st.tensor, st.indices, st.value, st.loc, renamed(st.tag), st.id, st.made);
  }
  StmtP mutateReduce(const StmtP& s) override {
    auto& r = s->as<Reduce>();
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

// The program's nests as one sequence for isl, and the nest and own id of
// each (prefixed) statement tag.
struct WholeProgram {
  std::vector<StmtP> nests;
  std::map<std::string, std::pair<size_t, std::string>> origin;
  explicit WholeProgram(const Program& p) {
    for (size_t k = 0; k < p.nests.size(); ++k) nests.push_back(NestPrefixedTags(k).mutate(p.nests[k]));
    for (size_t k = 0; k < nests.size(); ++k)
      forEachStmt(nests[k], [&](const StmtP& s) {
        if (s->kind == StmtKind::Store) origin[s->as<Store>().tag.id] = {k, s->id};
        if (s->kind == StmtKind::Reduce) origin[s->as<Reduce>().tag.id] = {k, s->id};
      });
  }
};

// Each occurrence's write relation, made once (parsing it is most of the
// cost of comparing every pair).
std::vector<UMap> writeRelations(isl_ctx* ctx, const std::vector<Occurrence>& occ) {
  std::vector<UMap> out;
  out.reserve(occ.size());
  for (auto& o : occ) out.push_back(accessRelation(ctx, o, o.write));
  return out;
}

// Instance pairs of two occurrences whose times `order` relates (before,
// or not after), made for the pairs asked about only: ordering every pair
// of statements at once was most of the gradient stage's time.
class Ordered {
 public:
  using Order = isl_union_map* (*)(isl_union_map*, isl_union_map*);
  Ordered(isl_ctx* ctx, const std::vector<Occurrence>& occ, Order order) : times_(schedules(ctx, occ)), order_(order) {}
  const UMap& operator()(size_t a, size_t b) {
    auto known = pairs_.find({a, b});
    if (known != pairs_.end()) return known->second;
    return pairs_[{a, b}] = check(order_(times_[a].copy(), times_[b].copy()));
  }

 private:
  std::vector<UMap> times_;
  Order order_;
  std::map<std::pair<size_t, size_t>, UMap> pairs_;
};

const char* const kTooComplex =
    "gradient: the dependence analysis cannot tell whether the values the backward pass reads are overwritten (too "
    "complex for isl's budget)";

}  // namespace

std::vector<std::set<std::string>> metAsLeft(const Program& forward, const std::vector<std::set<std::string>>& candidates,
                                             const std::vector<std::set<std::string>>& restored) {
  std::vector<std::set<std::string>> out(forward.nests.size());
  WholeProgram whole(forward);
  if (whole.nests.empty()) return out;
  SourceLoc at;  // the statement being looked at (isl may give up there)
  Ctx ctx = boundedContext();
  try {
    std::vector<Occurrence> occ = occurrences(makeSeq(whole.nests));
    Ordered after(ctx.get(), occ, isl_union_map_lex_lt_union_map);
    std::vector<UMap> writes = writeRelations(ctx.get(), occ);
    auto among = [&](const std::vector<std::set<std::string>>& ids, const Occurrence& o) {
      auto& [nest, id] = whole.origin.at(o.tag.id);
      return ids[nest].count(id) > 0;
    };
    for (auto& w : occ) {
      if (!among(candidates, w)) continue;
      at = w.loc;
      bool met = true;
      for (size_t k = 0; k < occ.size() && met; ++k)
        if (occ[k].write.tensor == w.write.tensor && !among(restored, occ[k]))
          met = isEmpty(intersect(meet(writes[&w - occ.data()], writes[k]), after(&w - occ.data(), k)));
      if (met) out[whole.origin.at(w.tag.id).first].insert(whole.origin.at(w.tag.id).second);
    }
  } catch (const IslFailure&) {
    throw UserError(at, kTooComplex);
  }
  return out;
}

Overwrites findOverwrites(const Program& forward, const std::set<std::string>& needed) {
  Overwrites out;
  out.writers.resize(forward.nests.size());
  out.extremaWriters.resize(forward.nests.size());
  WholeProgram whole(forward);
  if (whole.nests.empty()) return out;
  auto& origin = whole.origin;
  SourceLoc at;  // the statement whose reads are being looked at (isl may give up there)
  Ctx ctx = boundedContext();
  try {
    std::vector<Occurrence> occ = occurrences(makeSeq(whole.nests));
    // Instance pairs (read, write) with the write at the read's time or later.
    Ordered notBefore(ctx.get(), occ, isl_union_map_lex_le_union_map);
    std::vector<UMap> writes = writeRelations(ctx.get(), occ);
    for (auto& reader : occ) {
      if (!needed.count(reader.write.tensor)) continue;
      at = reader.loc;
      std::vector<Access> reads = reader.reads;
      reads.insert(reads.end(), reader.controlReads.begin(), reader.controlReads.end());
      // A max= or min= reduction is differentiated against its target's
      // final value: only writes other than the reduction itself change it.
      // A *= reduction needs the value it multiplies.
      bool extremum = reader.isReduce && (reader.op == ReduceOp::Max || reader.op == ReduceOp::Min);
      bool product = reader.isReduce && reader.op == ReduceOp::Mul;
      if (extremum || product) reads.push_back(reader.write);
      for (auto& r : reads) {
        UMap readRel = accessRelation(ctx.get(), reader, r);
        for (size_t k = 0; k < occ.size(); ++k) {
          const Occurrence& writer = occ[k];
          if (writer.write.tensor != r.tensor) continue;
          if (extremum && writer.node == reader.node && &r == &reads.back()) continue;
          UMap later = intersect(meet(readRel, writes[k]), notBefore(&reader - occ.data(), k));
          if (isEmpty(later)) continue;
          auto [nest, id] = origin.at(writer.tag.id);
          if (writer.isReduce && (writer.op == ReduceOp::Max || writer.op == ReduceOp::Min)) {
            out.extremaWriters[nest].insert(id);
            if (out.extremumRefusal.empty())
              out.extremumRefusal = "gradient: the statement at " + where(reader) + " reads '" + r.tensor +
                                    "', which the max= or min= reduction at " + where(writer) +
                                    " changes afterwards; the backward pass would need the value from "
                                    "before (versions are kept for stores and sums, not for maxima)";
            continue;
          }
          out.writers[nest].insert(id);
          // Recomputing the reader's target replays its own overwrites, not others'.
          if (r.tensor != reader.write.tensor) out.readersWrite.insert(reader.write.tensor);
        }
      }
    }
  } catch (const IslFailure&) {
    throw UserError(at, kTooComplex);
  }
  return out;
}

}  // namespace teml::autodiff
