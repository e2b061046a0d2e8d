#include "runtime/buffer.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <algorithm>

#include "diag/diagnostics.hpp"

namespace teml::runtime {

// Large buffers come from mmap: zero-filled by the kernel, 2 MiB pages where
// the system allows (far fewer page faults for gigabyte tensors).
constexpr size_t kMmapThreshold = size_t(1) << 20;

static size_t roundedSize(size_t bytes) { return bytes == 0 ? 64 : ((bytes + 63) / 64) * 64; }

static void* allocateAligned(size_t bytes) {
  size_t rounded = roundedSize(bytes);
  if (rounded >= kMmapThreshold) {
    void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw UsageError("out of memory allocating " + std::to_string(bytes) + " bytes");
    madvise(p, rounded, MADV_HUGEPAGE);
    return p;
  }
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw UsageError("out of memory allocating " + std::to_string(bytes) + " bytes");
  std::memset(p, 0, rounded);
  return p;
}

void Buffer::Free::operator()(void* p) const {
  if (roundedSize(bytes) >= kMmapThreshold) munmap(p, roundedSize(bytes));
  else std::free(p);
}

static int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

Buffer::Buffer(ir::DType dtype, std::vector<int64_t> shape)
    : dtype_(dtype),
      shape_(std::move(shape)),
      count_(elementCount(shape_)),
      data_(allocateAligned(bytes()), Free{bytes()}) {}

Buffer::Buffer(const Buffer& other) : Buffer(other.dtype_, other.shape_) {
  std::memcpy(data_.get(), other.data_.get(), bytes());
}

Buffer& Buffer::operator=(const Buffer& other) {
  if (this != &other) {
    if (bytes() != other.bytes()) data_ = std::unique_ptr<void, Free>(allocateAligned(other.bytes()), Free{other.bytes()});
    dtype_ = other.dtype_;
    shape_ = other.shape_;
    count_ = other.count_;
    std::memcpy(data_.get(), other.data_.get(), bytes());
  }
  return *this;
}

namespace {
template <typename T>
T* at(void* data, int64_t i) {
  return static_cast<T*>(data) + i;
}
template <typename T>
const T* at(const void* data, int64_t i) {
  return static_cast<const T*>(data) + i;
}
}  // namespace

double Buffer::get(int64_t i) const {
  switch (dtype_) {
    case ir::DType::F64: return *at<double>(data(), i);
    case ir::DType::F32: return *at<float>(data(), i);
    default: return static_cast<double>(getInt(i));
  }
}

void Buffer::set(int64_t i, double v) {
  switch (dtype_) {
    case ir::DType::F64: *at<double>(data(), i) = v; break;
    case ir::DType::F32: *at<float>(data(), i) = static_cast<float>(v); break;
    case ir::DType::Bool: *at<bool>(data(), i) = v != 0; break;
    default: setInt(i, std::isfinite(v) ? static_cast<int64_t>(v) : 0);
  }
}

int64_t Buffer::getInt(int64_t i) const {
  switch (dtype_) {
    case ir::DType::Bool: return *at<bool>(data(), i);
    case ir::DType::I32: return *at<int32_t>(data(), i);
    case ir::DType::I64: return *at<int64_t>(data(), i);
    default: return static_cast<int64_t>(get(i));
  }
}

void Buffer::setInt(int64_t i, int64_t v) {
  switch (dtype_) {
    case ir::DType::Bool: *at<bool>(data(), i) = v != 0; break;
    case ir::DType::I32: *at<int32_t>(data(), i) = static_cast<int32_t>(v); break;
    case ir::DType::I64: *at<int64_t>(data(), i) = v; break;
    default: set(i, static_cast<double>(v));
  }
}

double Buffer::sum() const {
  double acc = 0;
  for (int64_t i = 0; i < count_; ++i) acc += get(i);
  return acc;
}

double Buffer::maxAbs() const {
  double m = 0;
  for (int64_t i = 0; i < count_; ++i) m = std::max(m, std::fabs(get(i)));
  return m;
}

void Buffer::fill(double v) {
  for (int64_t i = 0; i < count_; ++i) set(i, v);
}

void Buffer::fillRandom(uint64_t seed) {
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int64_t i = 0; i < count_; ++i) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    uint64_t r = s * 2685821657736338717ULL;
    if (ir::isIntegral(dtype_)) setInt(i, static_cast<int64_t>(r >> 61) % (dtype_ == ir::DType::Bool ? 2 : 8));
    else set(i, static_cast<double>(r >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  }
}

BufferMap allocateBuffers(const ir::Program& program) {
  BufferMap out;
  for (auto& t : program.tensors) out.emplace(t.name, Buffer(t.dtype, t.shape));
  for (auto& [name, value] : program.initialValues) out.at(name).fill(value);
  return out;
}

double maxRelativeDifference(const Buffer& a, const Buffer& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.size() && i < b.size(); ++i) {
    double x = a.get(i), y = b.get(i);
    if (std::isnan(x) != std::isnan(y)) return INFINITY;
    double d = std::fabs(x - y) / std::max(1.0, std::fabs(y));
    if (d > worst) worst = d;
  }
  return a.size() == b.size() ? worst : INFINITY;
}

}  // namespace teml::runtime
