// cpu: what the processor is and has (identity, vector instruction sets, cache sizes), read once; the matmul
// kernel chooses its path and blocking from it, and every benchmark records it.
#pragma once

#include <cstddef>
#include <string>

namespace qkv {

struct CpuInfo {
  std::string vendor;     // cpuid's vendor ("GenuineIntel", "AuthenticAMD"); "" where there is no cpuid
  unsigned family = 0;    // display family (base + extended): 6 for Intel Core/Xeon, 25 for Zen 3/4, 26 Zen 5
  unsigned model = 0;     // display model (base + extended << 4)
  unsigned stepping = 0;  //
  std::string model_name;                           // the brand string, as /proc/cpuinfo's "model name"
  bool avx2 = false, avx512f = false, fma = false;  // usable (the OS saves the registers), not just present
  // Per core for L1d and L2, per package for L3; 0 when the system does not say (WebAssembly).
  std::size_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;
};

// This processor, read on first call (cpuid, then sysconf or /sys/devices/system/cpu/cpu0/cache).
const CpuInfo& cpu_info();

}  // namespace qkv
