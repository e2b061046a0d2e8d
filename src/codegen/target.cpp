#include "codegen/target.hpp"

#include <cstdlib>
#include <string>

namespace teml::codegen {

int vectorBytes() {
  static const int bytes = [] {
    if (const char* env = std::getenv("TEML_VECTOR_BYTES")) {
      std::string v = env;
      if (v == "16" || v == "32" || v == "64") return std::stoi(v);
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 64;
    if (__builtin_cpu_supports("avx")) return 32;
#endif
    return 16;
  }();
  return bytes;
}

}  // namespace teml::codegen
