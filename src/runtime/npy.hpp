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

// Throws UsageError naming `path` on unreadable or unsupported files.
NpyArray readNpy(const std::string& path);
// Loads `path` into `buffer`, refusing a shape or element type other than the
// declared one (the message names `tensor`).
void loadNpyInto(const std::string& path, const std::string& tensor, Buffer& buffer);
void writeNpy(const std::string& path, const Buffer& buffer);

}  // namespace teml::runtime
