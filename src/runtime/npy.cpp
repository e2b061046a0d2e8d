#include "runtime/npy.hpp"

#include <optional>

#include <cstring>
#include <fstream>
#include <sstream>

#include "diag/diagnostics.hpp"

namespace teml::runtime {

namespace {
// NumPy's type strings for the element types (little-endian).
const std::pair<const char*, ir::DType> kDescrs[] = {
    {"<f8", ir::DType::F64}, {"<f4", ir::DType::F32}, {"<i8", ir::DType::I64}, {"<i4", ir::DType::I32},
    {"|b1", ir::DType::Bool}};

std::optional<ir::DType> typeOfDescr(const std::string& descr) {
  for (auto& [d, t] : kDescrs)
    if (descr == d) return t;
  return std::nullopt;
}

const char* descrOf(ir::DType t) {
  for (auto& [d, type] : kDescrs)
    if (type == t) return d;
  return "?";
}
}  // namespace

static std::string shapeText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// The value after 'key': in the header dictionary.
static std::string dictValue(const std::string& header, const std::string& key,
                             const std::string& path) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw UsageError(path + ": .npy header has no '" + key + "'");
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) throw UsageError(path + ": malformed .npy header");
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos) throw UsageError(path + ": malformed .npy header");
  char open = header[start];
  size_t end;
  if (open == '\'') {
    end = header.find('\'', start + 1);
    if (end == std::string::npos) throw UsageError(path + ": malformed .npy header");
    return header.substr(start + 1, end - start - 1);
  }
  if (open == '(') {
    end = header.find(')', start);
    if (end == std::string::npos) throw UsageError(path + ": malformed .npy header");
    return header.substr(start, end - start + 1);
  }
  end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

NpyHeader readNpyHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open file");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw UsageError(path + ": not a .npy file");
  int major = static_cast<unsigned char>(magic[6]);
  uint32_t headerLen = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) throw UsageError(path + ": truncated .npy file");
    headerLen = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) throw UsageError(path + ": truncated .npy file");
    headerLen = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  } else {
    throw UsageError(path + ": unsupported .npy format version " + std::to_string(major));
  }
  if (headerLen > (1u << 20)) throw UsageError(path + ": .npy header too large");
  std::string header(headerLen, '\0');
  if (!in.read(header.data(), headerLen)) throw UsageError(path + ": truncated .npy header");

  NpyHeader arr;
  arr.dataOffset = (major == 1 ? 10 : 12) + headerLen;
  arr.descr = dictValue(header, "descr", path);
  // Byte order does not apply to one-byte types; '=' is native, little-endian here.
  if (arr.descr.size() == 3 && (arr.descr[0] == '|' || arr.descr[0] == '=')) arr.descr[0] = '<';
  if (arr.descr == "<b1") arr.descr = "|b1";
  if (!typeOfDescr(arr.descr))
    throw UsageError(path + ": unsupported element type '" + arr.descr +
                     "' (teml reads little-endian f8, f4, i8, i4 and b1)");
  if (dictValue(header, "fortran_order", path).find("True") != std::string::npos)
    throw UsageError(path + ": Fortran-ordered arrays are not supported; save in C order");
  std::string shape = dictValue(header, "shape", path);
  std::string digits;
  for (char c : shape + ",") {
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (c == ',' || c == ')') {
      if (!digits.empty()) {
        if (digits.size() > 15) throw UsageError(path + ": .npy shape too large");
        arr.shape.push_back(std::stoll(digits));
      }
      digits.clear();
    }
  }
  int64_t count = 1;
  for (auto d : arr.shape) {
    count *= d;
    if (count > (int64_t(1) << 40)) throw UsageError(path + ": .npy array too large");
  }
  arr.dtype = *typeOfDescr(arr.descr);
  return arr;
}

NpyArray readNpy(const std::string& path) {
  NpyHeader h = readNpyHeader(path);
  NpyArray arr;
  arr.descr = h.descr;
  arr.shape = h.shape;
  int64_t count = 1;
  for (auto d : h.shape) count *= d;
  size_t bytes = count * ir::bytes(h.dtype);
  arr.data.resize(bytes);
  std::ifstream in(path, std::ios::binary);
  in.seekg(h.dataOffset);
  if (bytes && !in.read(arr.data.data(), bytes))
    throw UsageError(path + ": truncated .npy data (expected " + std::to_string(bytes) + " bytes)");
  return arr;
}

NpyHeader npyHeaderFor(const std::string& path, const std::string& tensor, ir::DType dtype,
                       const std::vector<int64_t>& shape) {
  NpyHeader h = readNpyHeader(path);
  if (h.shape != shape || h.dtype != dtype)
    throw UsageError(path + ": tensor '" + tensor + "' is declared " + ir::dtypeName(dtype) + shapeText(shape) +
                     " but the file holds " + ir::dtypeName(h.dtype) + shapeText(h.shape));
  return h;
}

void loadNpyInto(const std::string& path, const std::string& tensor, Buffer& buffer) {
  NpyArray arr = readNpy(path);
  ir::DType held = *typeOfDescr(arr.descr);
  if (arr.shape != buffer.shape() || held != buffer.dtype())
    throw UsageError(path + ": tensor '" + tensor + "' is declared " + ir::dtypeName(buffer.dtype()) +
                     shapeText(buffer.shape()) + " but the file holds " + ir::dtypeName(held) + shapeText(arr.shape));
  std::memcpy(buffer.data(), arr.data.data(), arr.data.size());
}

std::string npyHeader(ir::DType dtype, const std::vector<int64_t>& shape) {
  std::ostringstream h;
  h << "{'descr': '" << descrOf(dtype) << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) h << shape[i] << ",";
  h << "), }";
  std::string header = h.str();
  size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                          static_cast<unsigned char>(header.size() >> 8)};
  return std::string("\x93NUMPY\x01\x00", 8) + std::string(reinterpret_cast<char*>(len), 2) + header;
}

void writeNpy(const std::string& path, const Buffer& buffer) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UsageError(path + ": cannot write file");
  out << npyHeader(buffer.dtype(), buffer.shape());
  out.write(static_cast<const char*>(buffer.data()), buffer.bytes());
  if (!out) throw UsageError(path + ": error writing file");
}

}  // namespace teml::runtime
