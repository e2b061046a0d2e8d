// A tensor's storage: 64-byte aligned, C order, elements of any ir::DType.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/program.hpp"

namespace teml::runtime {

class Buffer {
 public:
  Buffer(ir::DType dtype, std::vector<int64_t> shape);
  Buffer(const Buffer& other);
  Buffer& operator=(const Buffer& other);
  Buffer(Buffer&&) noexcept = default;
  Buffer& operator=(Buffer&&) noexcept = default;

  ir::DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t size() const { return count_; }
  size_t bytes() const { return count_ * ir::bytes(dtype_); }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }

  // Element i as a double (exact for floats and integers up to 2^53).
  double get(int64_t i) const;
  void set(int64_t i, double v);  // converted as C converts (integers truncate)
  // Element i of an integer or bool tensor, exactly.
  int64_t getInt(int64_t i) const;
  void setInt(int64_t i, int64_t v);
  void fill(double v);
  double sum() const;
  double maxAbs() const;
  // Uniform values from a fixed generator, so runs are reproducible: floats
  // in [-1, 1), integers in [0, 8), bools 0 or 1.
  void fillRandom(uint64_t seed);

 private:
  struct Free {
    size_t bytes;
    void operator()(void* p) const;
  };
  ir::DType dtype_;
  std::vector<int64_t> shape_;
  int64_t count_;
  std::unique_ptr<void, Free> data_;
};

using BufferMap = std::map<std::string, Buffer>;

// One zero-filled buffer per declared tensor, then the program's initial values.
BufferMap allocateBuffers(const ir::Program& program);

// Largest |a - b| over elements, scaled: |a-b| / max(1, |b|).
double maxRelativeDifference(const Buffer& a, const Buffer& b);

}  // namespace teml::runtime
