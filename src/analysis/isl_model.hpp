// The loop IR as isl sees it: small RAII holders for isl objects, index
// expressions as isl text, and every Store/Reduce of a nest as an
// "occurrence" with its domain, schedule and accesses. Shared by the
// analyses that ask isl about a nest (legality, local tensors).
#pragma once
#include <isl/ctx.h>
#include <isl/union_map.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::analysis::isl_model {

struct CtxDeleter {
  void operator()(isl_ctx* c) const { isl_ctx_free(c); }
};
using Ctx = std::unique_ptr<isl_ctx, CtxDeleter>;

// A context whose errors are reported, not fatal, with a budget on its work.
Ctx boundedContext();

class UMap {
 public:
  UMap() = default;
  explicit UMap(isl_union_map* m) : m_(m) {}
  UMap(const UMap& o) : m_(o.m_ ? isl_union_map_copy(o.m_) : nullptr) {}
  UMap& operator=(UMap o) {
    std::swap(m_, o.m_);
    return *this;
  }
  ~UMap() {
    if (m_) isl_union_map_free(m_);
  }
  isl_union_map* copy() const { return isl_union_map_copy(m_); }
  isl_union_map* get() const { return m_; }

 private:
  isl_union_map* m_ = nullptr;
};

// Thrown when isl fails, runs out of budget, or meets what it cannot express.
struct IslFailure {};

UMap check(isl_union_map* m);
UMap unite(const UMap& a, const UMap& b);
UMap intersect(const UMap& a, const UMap& b);
// {i1 -> i2 : a(i1) = b(i2)}
UMap meet(const UMap& a, const UMap& b);
UMap read(isl_ctx* ctx, const std::string& text);
UMap empty(isl_ctx* ctx);
// True when m is empty; throws IslFailure when isl cannot tell.
bool isEmpty(const UMap& m);
bool isEqual(const UMap& a, const UMap& b);

// A loaded value the text names as an unknown: which element of which tensor.
struct LoadedValue {
  std::string unknown;               // u3
  std::string tensor;
  std::vector<std::string> indices;  // isl text
};

// IR expressions as isl text; iterators are renamed x0, x1, ... by depth.
// A value isl cannot describe (a load in a subscript or a loop bound, a
// non-affine term) becomes an unknown u0, u1, ...: quantified in every
// relation, so an access through it may reach any element and a bound
// through it any value. That over-approximates what the program touches,
// which is what the legality and locality questions need (sound, "may
// depend"). Loads are also recorded (`loads`), so that the legality check
// can tell two loads of one element of an unwritten tensor equal.
// An iterator of no loop inside what is described (a loop around the
// statement asked about) is an isl parameter, P<name>: one value for every
// instance of a relation, as it has for one run of the statement.
class Texter {
 public:
  std::map<std::string, std::string> names;
  // The tensors the described nest writes, where loads are parameters
  // (occurrences): a load of any other tensor at parameters and constants
  // alone is the same value in every instance, a parameter too
  // (L<tensor[indices]>), so that `w[p - ptr[i]]` is told apart across p
  // (a CSR row's entries in chunks). Null: every load is an unknown.
  std::shared_ptr<const std::set<std::string>> written;
  mutable std::set<std::string> params;
  mutable std::vector<std::string> unknowns;
  mutable std::vector<LoadedValue> loads;
  std::string expr(const ir::ExprP& e) const;
  // The condition as isl constraints, or "" when it cannot be described
  // (a test of loaded values): both branches are then taken as possible.
  std::string cond(const ir::ExprP& e, bool positive) const;

 private:
  std::string condOrThrow(const ir::ExprP& e, bool positive) const;
};

struct Access {
  std::string tensor;
  std::vector<ir::ExprP> indices;
};

// One Store/Reduce node with everything needed to describe its instances.
struct Occurrence {
  const ir::Stmt* node = nullptr;
  ir::StmtTag tag;
  SourceLoc loc;
  Texter texter;
  std::vector<std::string> vars;          // x0, x1, ... of enclosing loops
  std::vector<std::string> constraints;   // domain
  std::vector<std::string> time;          // schedule vector
  bool slotFree = true;                   // time's last entry is the position a Seq here sets
  std::map<std::string, size_t> loopPos;  // loop id -> position of its iterator in `time`
  // Tensors defined by a VarDef around the statement: the isl tuple of that
  // definition and the iterators of the loops around it, which prefix its
  // elements (each iteration has its own copy, so no dependence crosses them).
  struct Scope {
    std::string tuple;
    std::vector<std::string> prefix;
  };
  std::map<std::string, Scope> scoped;
  // Reads that decide whether and how often the statement runs (loop bounds,
  // conditions around it): every instance depends on them.
  std::vector<Access> controlReads;
  // For each, how many of `constraints` held where it was read: a branch's
  // condition is read in every instance around the branch, not only in those
  // where it holds (what an MPI rank must have in memory: fuzz seed 11739).
  std::vector<size_t> controlDepth;
  Access write;
  bool isReduce = false;
  ir::ReduceOp op = ir::ReduceOp::Add;
  std::vector<Access> reads;
};

// Every tagged Store/Reduce of a nest (untagged ones are skipped).
// `loadsAsParameters`: loads of tensors the nest does not write, at
// parameters and constants alone, are isl parameters (Texter::written); for
// the questions about one loop's iterations (independence), where the
// parameters are the iterators around it.
std::vector<Occurrence> occurrences(const ir::StmtP& nest, bool loadsAsParameters = false);

std::string join(const std::vector<std::string>& v, const std::string& sep);
// A statement id as an isl tuple name (ids hold dots, which isl's names cannot).
std::string tupleName(const std::string& id);
// "[P...] -> " + map: a map's text with the parameters it uses.
std::string withParams(const std::set<std::string>& params, const std::string& map);
// { Sid[origin] -> <rhsTuple>[values] : the occurrence's domain }, as text.
std::string relation(const Occurrence& o, const std::string& rhsTuple, const std::vector<std::string>& values);
// The same relation read by isl. The groups of domain constraints that name
// only values loaded from data (index checks) are decided apart and left
// out: the same relation, without isl multiplying their disjunctions out
// (seven checks of a CSR row's ptr made 128 pieces of each instance's time).
UMap relationMap(isl_ctx* ctx, const Occurrence& o, const std::string& rhsTuple, const std::vector<std::string>& values);
// Instance -> element of `tensor` for access a of occurrence o (relationMap's way).
UMap accessRelation(isl_ctx* ctx, const Occurrence& o, const Access& a);
// The schedule of every instance: statement instance -> time vector (padded).
UMap schedule(isl_ctx* ctx, const std::vector<Occurrence>& occ);
// The same, one map per occurrence (to order two statements without
// ordering every pair).
std::vector<UMap> schedules(isl_ctx* ctx, const std::vector<Occurrence>& occ);

}  // namespace teml::analysis::isl_model
