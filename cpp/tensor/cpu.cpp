#include "tensor/cpu.hpp"

#include <cstring>
#include <fstream>
#include <string>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#define QKV_CPU_HAS_CPUID 1
#else
#define QKV_CPU_HAS_CPUID 0
#endif

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <unistd.h>
#define QKV_CPU_HAS_SYSFS 1
#else
#define QKV_CPU_HAS_SYSFS 0
#endif

namespace qkv {
namespace {

#if QKV_CPU_HAS_CPUID
void read_identity(CpuInfo& cpu) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  cpu.vendor = vendor;
  if (__get_cpuid(1, &a, &b, &c, &d) != 0) {
    const unsigned base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
    cpu.stepping = a & 0xf;
    cpu.family = base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family;
    cpu.model = base_family == 0x6 || base_family == 0xf ? base_model + (((a >> 16) & 0xf) << 4) : base_model;
  }
  unsigned brand[12] = {};
  if (__get_cpuid(0x80000000, &a, &b, &c, &d) != 0 && a >= 0x80000004) {
    for (unsigned leaf = 0; leaf < 3; ++leaf)
      __get_cpuid(0x80000002 + leaf, &brand[4 * leaf], &brand[4 * leaf + 1], &brand[4 * leaf + 2],
                  &brand[4 * leaf + 3]);
    char text[49] = {};
    std::memcpy(text, brand, 48);
    std::string name = text;
    const auto first = name.find_first_not_of(' ');
    const auto last = name.find_last_not_of(' ');
    cpu.model_name = first == std::string::npos ? "" : name.substr(first, last - first + 1);
  }
  // __builtin_cpu_supports also asks the OS (xgetbv) whether it saves the wide registers.
  cpu.avx2 = __builtin_cpu_supports("avx2");
  cpu.avx512f = __builtin_cpu_supports("avx512f");
  cpu.fma = __builtin_cpu_supports("fma");
}
#else
void read_identity(CpuInfo&) {}
#endif

#if QKV_CPU_HAS_SYSFS
// "48K" -> 49152, "1280K" -> 1310720, "48M"; 0 when unreadable.
std::size_t parse_size(const std::string& text) {
  std::size_t value = 0, i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') value = value * 10 + (text[i++] - '0');
  if (i < text.size() && text[i] == 'K') value <<= 10;
  if (i < text.size() && text[i] == 'M') value <<= 20;
  return value;
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The size of cpu0's cache at `level` of `type` ("Data" or "Unified"), from /sys; 0 when absent.
std::size_t sysfs_cache(int level, const char* type) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string found_level = read_line(dir + "level");
    if (found_level.empty()) break;
    if (found_level == std::to_string(level) && read_line(dir + "type") == type)
      return parse_size(read_line(dir + "size"));
  }
  return 0;
}

// sysconf first (glibc reads cpuid's cache leaves); /sys where it says nothing.
std::size_t cache_bytes(int level, int name, const char* type) {
  const long value = name >= 0 ? sysconf(name) : -1;
  return value > 0 ? static_cast<std::size_t>(value) : sysfs_cache(level, type);
}

void read_caches(CpuInfo& cpu) {
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  cpu.l1d_bytes = cache_bytes(1, _SC_LEVEL1_DCACHE_SIZE, "Data");
  cpu.l2_bytes = cache_bytes(2, _SC_LEVEL2_CACHE_SIZE, "Unified");
  cpu.l3_bytes = cache_bytes(3, _SC_LEVEL3_CACHE_SIZE, "Unified");
#else
  cpu.l1d_bytes = cache_bytes(1, -1, "Data");
  cpu.l2_bytes = cache_bytes(2, -1, "Unified");
  cpu.l3_bytes = cache_bytes(3, -1, "Unified");
#endif
}
#else
void read_caches(CpuInfo&) {}
#endif

CpuInfo read_cpu() {
  CpuInfo cpu;
  read_identity(cpu);
  read_caches(cpu);
  return cpu;
}

}  // namespace

const CpuInfo& cpu_info() {
  static const CpuInfo cpu = read_cpu();
  return cpu;
}

}  // namespace qkv
