// NumPy .npy files (format versions 1.0-3.0, C order, little-endian f8/f4).
#pragma once
#include <string>

#include "runtime/buffer.hpp"

namespace teml::runtime {

struct NpyArray {
  std::string descr;  // "<f8" or "<f4"
  std::vector<int64_t> shape;
  std::vector<char> data;
};

struct NpyHeader {
  std::string descr;
  ir::DType dtype = ir::DType::F64;
  std::vector<int64_t> shape;
  int64_t dataOffset = 0;  // bytes before the first element
};

// Throws UsageError naming `path` on unreadable or unsupported files.
NpyArray readNpy(const std::string& path);
NpyHeader readNpyHeader(const std::string& path);
// The header of `path`, refusing a shape or type other than `tensor`'s.
NpyHeader npyHeaderFor(const std::string& path, const std::string& tensor, ir::DType dtype,
                       const std::vector<int64_t>& shape);
// The bytes before the elements of a C-order .npy file of this type and shape.
std::string npyHeader(ir::DType dtype, const std::vector<int64_t>& shape);
// Loads `path` into `buffer`, refusing a shape or element type other than the
// declared one (the message names `tensor`).
void loadNpyInto(const std::string& path, const std::string& tensor, Buffer& buffer);
void writeNpy(const std::string& path, const Buffer& buffer);

}  // namespace teml::runtime
