#include "target/target.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "diag/diagnostics.hpp"

namespace teml::target {

namespace {

// AMD's Zen 4 (family 19h; Zen 3, the same family, has no AVX-512) runs
// AVX-512 on 256-bit units; Zen 5 (1Ah) and Intel's cores have 512-bit ones.
bool halvesWideVectors() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return false;
  char vendor[13] = {0};
  std::memcpy(vendor, &b, 4), std::memcpy(vendor + 4, &d, 4), std::memcpy(vendor + 8, &c, 4);
  if (std::strcmp(vendor, "AuthenticAMD") != 0 || !__get_cpuid(1, &a, &b, &c, &d)) return false;
  unsigned family = (a >> 8) & 0xf;
  if (family == 0xf) family += (a >> 20) & 0xff;
  return family == 0x19 && __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

}  // namespace

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
    t.halvesWideVectors = halvesWideVectors();
    if (const char* env = std::getenv("TEML_WIDE_VECTORS")) t.halvesWideVectors = std::string(env) == "halved";
    return t;
  }();
  Target t = host;
  t.threads = threads;
  return t;
}

const char* kindName(Kind k) { return k == Kind::Cuda ? "cuda" : "cpu"; }

std::optional<Kind> kindNamed(const std::string& name) {
  for (Kind k : {Kind::Cpu, Kind::Cuda})
    if (name == kindName(k)) return k;
  return std::nullopt;
}

Target cudaTarget(const std::string& arch) {
  Target t;
  t.kind = Kind::Cuda;
  std::string a = arch.empty() ? "sm_90" : arch;
  // Multiprocessors and the opt-in shared memory of each architecture's
  // largest data-centre part (A100, H100, B200) or its consumer part.
  struct Known { const char* arch; int sm, multiprocessors; int64_t optInKiB; };
  static const Known known[] = {{"sm_70", 70, 80, 96},   {"sm_75", 75, 40, 64},   {"sm_80", 80, 108, 163},
                                {"sm_86", 86, 84, 99},   {"sm_89", 89, 128, 99},  {"sm_90", 90, 132, 227},
                                {"sm_100", 100, 148, 227}, {"sm_120", 120, 170, 99}};
  for (auto& k : known)
    if (a == k.arch) {
      t.gpu.sm = k.sm;
      t.gpu.multiprocessors = k.multiprocessors;
      t.gpu.sharedBytesOptIn = k.optInKiB << 10;
      return t;
    }
  std::string choices;
  for (auto& k : known) choices += std::string(choices.empty() ? "" : ", ") + k.arch;
  throw UsageError("--arch: '" + a + "' is not a CUDA architecture teml knows (" + choices + ")");
}

}  // namespace teml::target
