#include "target/target.hpp"

#include <cstdlib>
#include <string>

namespace teml::target {

Target hostCpu(int threads) {
  static const Target host = [] {
    Target t;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) t = Target{Kind::Cpu, "avx512f", 64};
    else if (__builtin_cpu_supports("avx")) t = Target{Kind::Cpu, "avx", 32};
#endif
    if (const char* env = std::getenv("TEML_VECTOR_BYTES")) {
      std::string v = env;
      if (v == "16" || v == "32" || v == "64") t.vectorBytes = std::stoi(v);
    }
    return t;
  }();
  Target t = host;
  t.threads = threads;
  return t;
}

}  // namespace teml::target
