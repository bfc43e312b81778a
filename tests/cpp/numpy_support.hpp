// Helpers shared by the tests that compare with numpy (fixtures/numpy/, written by numpy/generate.py).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fixture.hpp"

namespace qkv::test {

// numpy's matmul and norm go through BLAS and pairwise sums, which add the same products in a different
// order than our ascending loops, so the last bits differ. Both orders are within about d * 2^-53 of the
// exact value relative to the largest |entry|; 1e-12 leaves ample room for d <= 16 while still catching any
// wrong product or index.
inline constexpr double kNumpyRelativeTolerance = 1e-12;

// fixtures/numpy/<name>, parsed.
inline json load_numpy_fixture(const std::string& name) {
  return json::parse(read_file(fixture_path("numpy/" + name)));
}

// The fixtures' hex is struct.pack('>d', v).hex(): the bit pattern, most significant byte first.
inline std::uint64_t bits_of_hex(const json& hex) { return bits_from_hex(hex.get<std::string>()); }

// numpy's gaussian calls libm's log(), and glibc picks one of two builds by CPU: one using fused
// multiply-add (most x86-64 machines) and one without (older CPUs; WebAssembly has no FMA either). They
// differ in the last bit for about one input in 10000, so numpy itself gives two answers. The fixture's
// log_probe is such an input: our std::log's answer to it says which answer we must match.
inline bool log_uses_fma(const json& probe) {
  const std::uint64_t got = bits_of(std::log(double_from_bits(bits_of_hex(probe.at("x")))));
  if (got == bits_of_hex(probe.at("log_fma"))) return true;
  EXPECT_EQ(got, bits_of_hex(probe.at("log_without_fma"))) << "log() matches neither of glibc's builds";
  return false;
}

// A JSON vector or matrix, row-major.
inline std::vector<double> flatten(const json& values) {
  std::vector<double> out;
  for (const json& v : values) {
    if (v.is_array()) {
      for (const json& inner : v) out.push_back(inner.get<double>());
    } else {
      out.push_back(v.get<double>());
    }
  }
  return out;
}

// Every entry within kNumpyRelativeTolerance of the largest |expected| entry; reports the worst difference.
inline void expect_close(const std::vector<double>& got, const std::vector<double>& want,
                         const std::string& name) {
  ASSERT_EQ(got.size(), want.size()) << name;
  double scale = 0.0;
  double worst = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, std::fabs(want[i]));
    worst = std::max(worst, std::fabs(got[i] - want[i]));
  }
  EXPECT_LE(worst, kNumpyRelativeTolerance * scale)
      << name << ": max difference " << worst << " at scale " << scale;
}

}  // namespace qkv::test
