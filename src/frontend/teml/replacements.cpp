#include "frontend/teml/replacements.hpp"

#include <algorithm>
#include <set>

#include "ir/mutator.hpp"

namespace teml::teml_lang {

using namespace ir;

bool transpositionOf(const ExprP& value, const std::vector<std::string>& targetVars, std::string* old,
                     std::vector<int>* sigma) {
  if (value->kind != ExprKind::Load) return false;
  auto& l = value->as<Load>();
  if (l.indices.size() != targetVars.size()) return false;
  std::vector<int> s;
  std::set<int> seen;
  for (auto& idx : l.indices) {
    if (idx->kind != ExprKind::Var) return false;
    auto at = std::find(targetVars.begin(), targetVars.end(), idx->as<Var>().name);
    if (at == targetVars.end() || !seen.insert(static_cast<int>(at - targetVars.begin())).second) return false;
    s.push_back(static_cast<int>(at - targetVars.begin()));
  }
  *old = l.tensor;
  *sigma = s;
  return true;
}

namespace {

bool writes(const StmtP& nest, const std::string& tensor) { return tensorsWritten(nest).count(tensor) > 0; }

std::string nestName(size_t k) { return "nest " + std::to_string(k + 1) + " of codegen"; }

void checkVirtual(const Replacement& r, const Program& p) {
  bool computed = false;
  for (size_t k = 0; k < p.nests.size(); ++k) {
    if (tensorsAccessed(p.nests[k]).count(r.old))
      throw UserError(r.loc, "replace_array: '" + r.old + "' was replaced by its virtual transposition '" +
                                 r.replacement + "', but " + nestName(k) + " still accesses '" + r.old +
                                 "'; a virtual transposition changes where the elements are stored, so every "
                                 "access (the producer's and each consumer's) must be replaced");
    computed |= writes(p.nests[k], r.replacement);
  }
  if (!computed)
    throw UserError(r.loc, "replace_array: no nest computes '" + r.old + "', so its layout is that of its data; "
                           "a virtual transposition cannot change it (use transpose(...) for a physical copy)");
}

void checkPhysical(const Replacement& r, const Program& p) {
  int lastOldWrite = -1, firstCopy = -1, lastCopy = -1;
  for (size_t k = 0; k < p.nests.size(); ++k) {
    bool w = writes(p.nests[k], r.replacement);
    if (writes(p.nests[k], r.old)) {
      if (w)
        throw UserError(r.loc, "replace_array: " + nestName(k) + " writes both '" + r.old + "' and its copy '" +
                                   r.replacement + "'; the copy must be made after '" + r.old + "' is final");
      lastOldWrite = static_cast<int>(k);
    }
    if (w) {
      if (firstCopy < 0) firstCopy = static_cast<int>(k);
      lastCopy = static_cast<int>(k);
    }
  }
  if (firstCopy < 0)
    throw UserError(r.loc, "replace_array: no nest of codegen computes the copy '" + r.replacement + "' (build it)");
  if (lastOldWrite > firstCopy)
    throw UserError(r.loc, "replace_array: " + nestName(lastOldWrite) + " writes '" + r.old + "' after " +
                               nestName(firstCopy) + " copies it into '" + r.replacement + "'");
  for (size_t k = 0; k < static_cast<size_t>(lastCopy); ++k)
    if (!writes(p.nests[k], r.replacement) && tensorsAccessed(p.nests[k]).count(r.replacement))
      throw UserError(r.loc, "replace_array: " + nestName(k) + " reads the copy '" + r.replacement + "' before " +
                                 nestName(lastCopy) + " computes it");
}

}  // namespace

void checkReplacements(const std::vector<Replacement>& replacements, const Program& program) {
  for (auto& r : replacements) {
    if (r.isVirtual) checkVirtual(r, program);
    else checkPhysical(r, program);
  }
}

}  // namespace teml::teml_lang
