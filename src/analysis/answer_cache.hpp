// Answers of the analysis kept on disk (the analysis cache, --cache-dir's
// analysis/), keyed by the full text of the question: an entry is believed
// only when it holds the same question, so a hash collision or a damaged
// file is recomputed, never trusted.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace teml::analysis {

uint64_t textHash(const std::string& text);

// The answer kept for `question` under `dir` (entries named `kind` + hash).
std::optional<std::string> keptAnswer(const std::string& dir, char kind, const std::string& question);
void keepAnswer(const std::string& dir, char kind, const std::string& question, const std::string& answer);

}  // namespace teml::analysis
