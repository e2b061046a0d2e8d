#include "cache/entry.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>

namespace teml::cache {

namespace {

constexpr char kMagic[8] = {'T', 'E', 'M', 'L', 'E', 'N', 'T', '1'};
constexpr size_t kVersionBytes = 24;

struct Trailer {
  char magic[8];
  char version[kVersionBytes];
  uint64_t length;
  uint64_t checksum;
};
static_assert(sizeof(Trailer) == 48);

// 64-bit FNV-1a over 8-byte words: a damaged file is caught with certainty
// for truncation and with probability 1 - 2^-64 otherwise.
uint64_t checksum(const char* data, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    h = (h ^ w) * 1099511628211ULL;
    h ^= h >> 29;
  }
  for (; i < n; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ULL;
  return h;
}

Trailer trailerFor(const char* data, size_t n) {
  Trailer t{};
  std::memcpy(t.magic, kMagic, sizeof kMagic);
  std::strncpy(t.version, version(), kVersionBytes - 1);
  t.length = n;
  t.checksum = checksum(data, n) ^ checksum(t.version, kVersionBytes);
  return t;
}

std::string errnoText() { return std::strerror(errno); }

bool readAll(int fd, std::string& out) {
  char buf[1 << 16];
  while (true) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(buf, static_cast<size_t>(n));
  }
}

bool writeAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

const char* version() { return TEML_VERSION; }

EntryCheck readEntry(const std::string& path) {
  EntryCheck c;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return c;
    c.state = EntryState::Damaged;
    c.why = "cannot be read (" + errnoText() + ")";
    return c;
  }
  struct stat st;
  std::string data;
  bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  bool read = regular && readAll(fd, data);
  close(fd);
  c.state = EntryState::Damaged;
  if (!regular) {
    c.why = "is not a regular file";
    return c;
  }
  if (!read) {
    c.why = "cannot be read (" + errnoText() + ")";
    return c;
  }
  if (data.size() < sizeof(Trailer)) {
    c.why = data.empty() ? "is empty" : "is too short to be a teml cache entry";
    return c;
  }
  Trailer t;
  size_t n = data.size() - sizeof(Trailer);
  std::memcpy(&t, data.data() + n, sizeof t);
  Trailer want = trailerFor(data.data(), n);
  if (std::memcmp(t.magic, kMagic, sizeof kMagic) != 0) {
    c.why = "is not a teml cache entry";
  } else if (std::memcmp(t.version, want.version, kVersionBytes) != 0) {
    c.why = "was written by teml " + std::string(t.version, strnlen(t.version, kVersionBytes)) + ", not " + version();
  } else if (t.length != n) {
    c.why = "has the wrong length (truncated or extended)";
  } else if (t.checksum != want.checksum) {
    c.why = "fails its checksum (overwritten)";
  } else {
    c.state = EntryState::Valid;
    data.resize(n);
    c.payload = std::move(data);
  }
  return c;
}

std::string temporaryName(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp" + std::to_string(getpid()) + "." + std::to_string(counter++);
}

std::string seal(const std::string& tempFile) {
  std::string failure;
  int fd = open(tempFile.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return "cannot open " + tempFile + " (" + errnoText() + ")";
  std::string data;
  if (!readAll(fd, data)) {
    failure = "cannot read " + tempFile + " (" + errnoText() + ")";
  } else {
    Trailer t = trailerFor(data.data(), data.size());
    if (!writeAll(fd, reinterpret_cast<const char*>(&t), sizeof t))
      failure = "cannot write " + tempFile + " (" + errnoText() + ")";
  }
  close(fd);
  return failure;
}

std::string publish(const std::string& tempFile, const std::string& path) {
  if (rename(tempFile.c_str(), path.c_str()) == 0) return "";
  std::string failure = "cannot rename onto " + path + " (" + errnoText() + ")";
  unlink(tempFile.c_str());
  return failure;
}

std::string publishEntry(const std::string& path, const std::string& payload) {
  std::string temp = temporaryName(path);
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create " + temp + " (" + errnoText() + ")";
  bool ok = writeAll(fd, payload.data(), payload.size());
  std::string why = ok ? "" : "cannot write " + temp + " (" + errnoText() + ")";
  close(fd);
  if (ok) why = seal(temp);
  if (!why.empty()) {
    unlink(temp.c_str());
    return why;
  }
  return publish(temp, path);
}

bool removeEntry(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  return !std::filesystem::exists(std::filesystem::symlink_status(path, ec));
}

}  // namespace teml::cache
