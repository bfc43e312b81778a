// The blocked matmul kernel against the naive loop, bit for bit: every layout, both accumulate modes, both
// instruction-set paths, shapes from empty to 2 KiB strides, and values chosen to expose any reordering
// (mixed magnitudes, negatives, signed zeros, subnormals, overflow to infinity and NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "nn/init.hpp"
#include "tensor/gemm.hpp"

namespace qkv {
namespace {

// What a test case fills its operands with.
enum class Values {
  Mixed,    // signs and magnitudes from 2^-40 to 2^40: rounding depends on the order of every sum
  Special,  // Mixed plus +0.0, -0.0, subnormals and values near 1e150 (products near 1e300)
  Overflow  // Special plus values near 1e300: products overflow, sums reach inf and NaN
};

double draw(SplitMix64& rng, Values kind) {
  const double unit = 2.0 * rng.next_unit_f64() - 1.0;  // [-1, 1)
  const int exponent = static_cast<int>(rng.next_u64() % 81) - 40;
  const double mixed = std::ldexp(unit, exponent);
  if (kind == Values::Mixed) return mixed;
  switch (rng.next_u64() % 16) {
    case 0:
      return 0.0;
    case 1:
      return -0.0;
    case 2:
      return unit * 1e-310;  // subnormal (or zero)
    case 3:
      return unit * 1e150;
    case 4:
      return kind == Values::Overflow ? unit * 1e300 : mixed;
    default:
      return mixed;
  }
}

std::vector<double> draws(SplitMix64& rng, std::size_t count, Values kind) {
  std::vector<double> values(count);
  for (double& value : values) value = draw(rng, kind);
  return values;
}

// Index and bit patterns of the first difference, or "" when every bit matches.
std::string first_difference(const std::vector<double>& actual, const std::vector<double>& expected) {
  if (actual.size() != expected.size()) return "sizes differ";
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (std::memcmp(&actual[i], &expected[i], sizeof(double)) != 0) {
      char text[96];
      std::snprintf(text, sizeof text, "index %zu: got %.17g, expected %.17g", i, actual[i], expected[i]);
      return text;
    }
  }
  return "";
}

struct Dims {
  std::size_t n, m, k;
};

// Runs one product through `path` and through the reference, from the same starting C.
void expect_same_bits(GemmPath path, Dims dims, Transpose a_layout, Transpose b_layout, Accumulate accumulate,
                      Values kind, SplitMix64& rng) {
  const std::vector<double> a = draws(rng, dims.n * dims.k, kind);
  const std::vector<double> b = draws(rng, dims.k * dims.m, kind);
  const std::vector<double> start = draws(rng, dims.n * dims.m, kind);
  std::vector<double> expected = start;
  std::vector<double> actual = start;
  GemmArgs args{dims.n, dims.m, dims.k, a.data(), a_layout, b.data(), b_layout, nullptr, accumulate};
  args.c = expected.data();
  reference::gemm(args);
  args.c = actual.data();
  gemm_on(path, args);
  const std::string difference = first_difference(actual, expected);
  EXPECT_EQ(difference, "") << "n=" << dims.n << " m=" << dims.m << " k=" << dims.k
                            << " a transposed=" << (a_layout == Transpose::Yes)
                            << " b transposed=" << (b_layout == Transpose::Yes)
                            << " accumulate=" << (accumulate == Accumulate::Yes)
                            << " values=" << static_cast<int>(kind);
}

void expect_path_matches_reference(GemmPath path) {
  SplitMix64 rng(11);
  const Transpose layouts[] = {Transpose::No, Transpose::Yes};
  const Accumulate modes[] = {Accumulate::No, Accumulate::Yes};
  // Every small shape, including empty axes and sizes that leave partial register tiles.
  const std::size_t small[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 17};
  for (std::size_t n : small)
    for (std::size_t m : small)
      for (std::size_t k : small)
        for (Transpose ta : layouts)
          for (Transpose tb : layouts)
            for (Accumulate mode : modes)
              expect_same_bits(path, {n, m, k}, ta, tb, mode, Values::Special, rng);
  // Larger shapes: several k-blocks, partial row and column blocks, and widths that are multiples of 256
  // doubles (2 KiB strides, the case where a naive column walk thrashes L1).
  const Dims large[] = {{1, 256, 256},   {256, 1, 512}, {3, 768, 257},   {65, 512, 9},   {33, 17, 768},
                        {100, 256, 300}, {64, 64, 768}, {257, 263, 255}, {128, 768, 64}, {768, 64, 129}};
  const Values kinds[] = {Values::Mixed, Values::Special, Values::Overflow};
  std::size_t which = 0;
  for (const Dims& dims : large)
    for (Transpose ta : layouts)
      for (Transpose tb : layouts)
        for (Accumulate mode : modes) expect_same_bits(path, dims, ta, tb, mode, kinds[which++ % 3], rng);
}

TEST(GemmTest, PortablePathMatchesReferenceBitForBit) { expect_path_matches_reference(GemmPath::Portable); }

TEST(GemmTest, WidePathMatchesReferenceBitForBit) {
  if (widest_gemm_path() != GemmPath::Wide) GTEST_SKIP() << "this CPU has no AVX2";
  expect_path_matches_reference(GemmPath::Wide);
}

TEST(GemmTest, DefaultPathMatchesReferenceOnQkvShapes) {
  // The layer's three products at [1, 96, 768] -> 64: forward X·W, input gradient U·Wᵀ, weight gradient Xᵀ·U.
  SplitMix64 rng(26);
  const Dims forward{96, 64, 768}, input_gradient{96, 768, 64}, weight_gradient{768, 64, 96};
  for (Accumulate mode : {Accumulate::No, Accumulate::Yes}) {
    GemmArgs args;
    for (auto [dims, ta, tb] : {std::tuple{forward, Transpose::No, Transpose::No},
                                std::tuple{input_gradient, Transpose::No, Transpose::Yes},
                                std::tuple{weight_gradient, Transpose::Yes, Transpose::No}}) {
      const std::vector<double> a = draws(rng, dims.n * dims.k, Values::Mixed);
      const std::vector<double> b = draws(rng, dims.k * dims.m, Values::Mixed);
      std::vector<double> expected = draws(rng, dims.n * dims.m, Values::Mixed);
      std::vector<double> actual = expected;
      args = {dims.n, dims.m, dims.k, a.data(), ta, b.data(), tb, expected.data(), mode};
      reference::gemm(args);
      args.c = actual.data();
      gemm(args);
      EXPECT_EQ(first_difference(actual, expected), "") << "n=" << dims.n << " m=" << dims.m;
    }
  }
}

}  // namespace
}  // namespace qkv
