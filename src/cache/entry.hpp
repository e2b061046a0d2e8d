// Checked cache entries. Every file teml keeps in its cache (compiled kernels,
// dependence-analysis answers) is its payload followed by a fixed trailer: a
// magic word, teml's version, the payload's length and a checksum. A file
// that was truncated, overwritten, left by another teml version or put there
// by something else fails the check and is never used. Entries are published
// by renaming a complete temporary file onto their name, so a reader sees the
// old entry, the new one, or none: never a partial file.
#pragma once
#include <string>

namespace teml::cache {

enum class EntryState { Valid, Missing, Damaged };

struct EntryCheck {
  EntryState state = EntryState::Missing;
  std::string why;      // for Damaged: what is wrong with it, for messages
  std::string payload;  // for Valid
};

// Reads `path` and verifies its trailer.
EntryCheck readEntry(const std::string& path);

// Appends the trailer to `tempFile`, a complete payload (written by teml or
// by the C compiler). "" on success, else the reason.
std::string seal(const std::string& tempFile);

// Renames the sealed `tempFile` onto `path`; on failure removes it and
// returns the reason ("" on success).
std::string publish(const std::string& tempFile, const std::string& path);

// Writes `payload` to a temporary file beside `path`, seals and publishes it.
std::string publishEntry(const std::string& path, const std::string& payload);

// Removes what stands at `path` (a file, or a directory tree); true when the
// name is free afterwards.
bool removeEntry(const std::string& path);

// A name for a temporary file beside `path`, unique across processes and threads.
std::string temporaryName(const std::string& path);

// The version of teml that writes the entries.
const char* version();

}  // namespace teml::cache
