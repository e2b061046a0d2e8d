#include "analysis/answer_cache.hpp"

#include <sys/stat.h>

#include <cstdio>

#include "cache/entry.hpp"

namespace teml::analysis {

namespace {

std::string entryPath(const std::string& dir, char kind, const std::string& question) {
  char name[32];
  std::snprintf(name, sizeof name, "/%c%016llx", kind, static_cast<unsigned long long>(textHash(question)));
  return dir + name;
}

}  // namespace

uint64_t textHash(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  return h;
}

// An entry: the answer's length, a newline, the answer, then the question.
std::optional<std::string> keptAnswer(const std::string& dir, char kind, const std::string& question) {
  std::string path = entryPath(dir, kind, question);
  cache::EntryCheck entry = cache::readEntry(path);
  if (entry.state == cache::EntryState::Damaged) cache::removeEntry(path);
  if (entry.state != cache::EntryState::Valid) return std::nullopt;
  const std::string& p = entry.payload;
  size_t newline = p.find('\n');
  if (newline == std::string::npos || newline == 0 || newline > 12) return std::nullopt;
  size_t length = 0;
  for (size_t k = 0; k < newline; ++k) {
    if (p[k] < '0' || p[k] > '9') return std::nullopt;
    length = length * 10 + static_cast<size_t>(p[k] - '0');
  }
  size_t start = newline + 1;
  if (start + length > p.size() || p.compare(start + length, std::string::npos, question) != 0) return std::nullopt;
  return p.substr(start, length);
}

void keepAnswer(const std::string& dir, char kind, const std::string& question, const std::string& answer) {
  mkdir(dir.c_str(), 0755);
  // An answer not kept is merely recomputed.
  cache::publishEntry(entryPath(dir, kind, question), std::to_string(answer.size()) + "\n" + answer + question);
}

}  // namespace teml::analysis
