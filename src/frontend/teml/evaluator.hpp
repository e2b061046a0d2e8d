// Evaluation of TeML meta-programs (the paper's valuation functions): the
// state maps identifiers to tensors, tensor expressions, assignments and loop
// nests; `codegen` statements collect the nests of the resulting program.
#pragma once
#include <map>
#include <string>

#include "ir/program.hpp"

namespace teml::teml_lang {

struct TemlOptions {
  std::map<std::string, int64_t> sizes;  // size parameters bound with --set
  bool checkLegality = true;             // false: --no-check, the paper's unchecked transformations
  std::string analysisCacheDir;          // where dependence-analysis answers are kept ("" : nowhere)
};

struct TemlStats {
  double analysisSeconds = 0;  // time spent in dependence analysis
  int checks = 0;
};

struct Script;

// Throws UserError (with the statement's position) for malformed programs.
ir::Program compileTeml(const std::string& source, const TemlOptions& options);
// The same in two steps, so that callers can time parsing and evaluation.
Script parseTeml(const std::string& source);
ir::Program evaluateTeml(const Script& script, const TemlOptions& options, TemlStats* stats = nullptr);

}  // namespace teml::teml_lang
