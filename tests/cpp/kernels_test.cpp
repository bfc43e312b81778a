// The blocked matmul kernel against the naive loop, bit for bit: every layout, both accumulate modes, every
// instruction-set path the CPU has (SSE2 or simd128, AVX2, AVX-512F), shapes from empty to 2 KiB strides,
// and values chosen to expose any reordering (mixed magnitudes, negatives, signed zeros, subnormals, overflow
// to infinity and NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/ops.hpp"
#include "nn/init.hpp"
#include "tensor/cpu.hpp"
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
// `blocking` {} is the plan's (derived from this machine's caches, or QKV_GEMM_L1D / _L2 / _BLOCKING).
void expect_same_bits(GemmPath path, Dims dims, Transpose a_layout, Transpose b_layout, Accumulate accumulate,
                      Values kind, SplitMix64& rng, const GemmBlocking& blocking = {}) {
  const std::vector<double> a = draws(rng, dims.n * dims.k, kind);
  const std::vector<double> b = draws(rng, dims.k * dims.m, kind);
  const std::vector<double> start = draws(rng, dims.n * dims.m, kind);
  std::vector<double> expected = start;
  std::vector<double> actual = start;
  GemmArgs args{dims.n, dims.m, dims.k, a.data(), a_layout, b.data(), b_layout, nullptr, accumulate};
  args.c = expected.data();
  reference::gemm(args);
  args.c = actual.data();
  gemm_blocked(path, blocking, args);
  const std::string difference = first_difference(actual, expected);
  EXPECT_EQ(difference, "") << "n=" << dims.n << " m=" << dims.m << " k=" << dims.k
                            << " a transposed=" << (a_layout == Transpose::Yes)
                            << " b transposed=" << (b_layout == Transpose::Yes)
                            << " accumulate=" << (accumulate == Accumulate::Yes)
                            << " values=" << static_cast<int>(kind) << " blocking=" << blocking.depth << ","
                            << blocking.block_rows << "," << blocking.block_cols;
}

void expect_path_matches_reference(GemmPath path, const GemmBlocking& blocking = {}) {
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
              expect_same_bits(path, {n, m, k}, ta, tb, mode, Values::Special, rng, blocking);
  // Larger shapes: several k-blocks, partial row and column blocks, and widths that are multiples of 256
  // doubles (2 KiB strides, the case where a naive column walk thrashes L1).
  // {600, 260, 3} and {9000, 1, 2} span two groups of rows whose running sums share one bounded scratch
  // (512 rows of 256 columns; 8192 rows of one 16-column tile on the AVX-512F path).
  const Dims large[] = {{1, 256, 256},  {256, 1, 512},   {3, 768, 257}, {65, 512, 9},
                        {33, 17, 768},  {100, 256, 300}, {64, 64, 768}, {257, 263, 255},
                        {128, 768, 64}, {768, 64, 129},  {600, 260, 3}, {9000, 1, 2}};
  const Values kinds[] = {Values::Mixed, Values::Special, Values::Overflow};
  std::size_t which = 0;
  for (const Dims& dims : large)
    for (Transpose ta : layouts)
      for (Transpose tb : layouts)
        for (Accumulate mode : modes)
          expect_same_bits(path, dims, ta, tb, mode, kinds[which++ % 3], rng, blocking);
}

const GemmPath kPaths[] = {GemmPath::Portable, GemmPath::Wide, GemmPath::Widest};

TEST(GemmTest, PortablePathMatchesReferenceBitForBit) { expect_path_matches_reference(GemmPath::Portable); }

TEST(GemmTest, WidePathMatchesReferenceBitForBit) {
  if (!gemm_path_supported(GemmPath::Wide)) GTEST_SKIP() << "this CPU has no AVX2";
  expect_path_matches_reference(GemmPath::Wide);
}

TEST(GemmTest, WidestPathMatchesReferenceBitForBit) {
  if (!gemm_path_supported(GemmPath::Widest)) GTEST_SKIP() << "this CPU has no AVX-512F";
  expect_path_matches_reference(GemmPath::Widest);
}

// The blocking a smaller core gets (Zen 4: 32 KiB L1d, 1 MiB L2), on every path this CPU has, on the shapes
// that span several blocks (each layout and mode once across them): the speed changes, the bits must not.
TEST(GemmTest, EveryPathMatchesReferenceUnderSmallCacheBlocking) {
  const Dims shapes[] = {{1, 256, 256}, {3, 768, 257},   {33, 17, 768},  {100, 256, 300},
                         {64, 64, 768}, {257, 263, 255}, {768, 64, 129}, {600, 260, 3}};
  for (GemmPath path : kPaths) {
    if (!gemm_path_supported(path)) continue;
    const GemmBlocking blocking = gemm_blocking_for(path, 32 * 1024, 1024 * 1024);
    SplitMix64 rng(5);
    std::size_t which = 0;
    for (const Dims& dims : shapes) {
      const Transpose ta = which % 2 ? Transpose::Yes : Transpose::No;
      const Transpose tb = which / 2 % 2 ? Transpose::Yes : Transpose::No;
      const Accumulate mode = which / 4 % 2 ? Accumulate::Yes : Accumulate::No;
      expect_same_bits(path, dims, ta, tb, mode, Values::Special, rng, blocking);
      ++which;
    }
  }
}

// Blockings no cache would choose: one-step k-blocks, blocks of one tile, sizes that are not whole tiles
// (rounded up) and blocks larger than the shapes, on shapes several of those blocks wide.
TEST(GemmTest, OddBlockingsGiveTheReferenceBits) {
  const GemmBlocking blockings[] = {{1, 1, 1}, {3, 7, 5}, {17, 13, 40}, {100, 1, 1000}, {4096, 4096, 4096}};
  const Dims shapes[] = {{1, 40, 37}, {33, 17, 100}, {70, 50, 65}};
  for (GemmPath path : kPaths) {
    if (!gemm_path_supported(path)) continue;
    SplitMix64 rng(7);
    for (const GemmBlocking& blocking : blockings)
      for (const Dims& dims : shapes)
        for (Transpose ta : {Transpose::No, Transpose::Yes})
          expect_same_bits(path, dims, ta, Transpose::Yes, Accumulate::Yes, Values::Special, rng, blocking);
  }
}

// The derivation in gemm.hpp, by hand. AVX2's tile is 6 x 8. Ice Lake (48 KiB, 1.25 MiB): depth
// 49152 / (8·24) = 256; columns 0.4·1310720 / (8·256) = 256; rows 131072 / 2048 = 64 -> 60 (whole tiles of
// 6). Zen 4 (32 KiB, 1 MiB): 32768 / 192 = 170 -> 168; 419430 / 1344 = 312; 104857 / 1344 = 78.
TEST(GemmTest, BlockingComesFromTheCacheSizes) {
  if (!gemm_path_supported(GemmPath::Wide)) GTEST_SKIP() << "this CPU has no AVX2 (the tile sizes differ)";
  const GemmBlocking ice_lake = gemm_blocking_for(GemmPath::Wide, 48 * 1024, 1280 * 1024);
  EXPECT_EQ(ice_lake.depth, 256u);
  EXPECT_EQ(ice_lake.block_cols, 256u);
  EXPECT_EQ(ice_lake.block_rows, 60u);
  const GemmBlocking zen4 = gemm_blocking_for(GemmPath::Wide, 32 * 1024, 1024 * 1024);
  EXPECT_EQ(zen4.depth, 168u);
  EXPECT_EQ(zen4.block_cols, 312u);
  EXPECT_EQ(zen4.block_rows, 78u);
  // Unknown caches (WebAssembly): the fixed blocking of before.
  const GemmBlocking unknown = gemm_blocking_for(GemmPath::Wide, 0, 0);
  EXPECT_EQ(unknown.depth, 256u);
  EXPECT_EQ(unknown.block_rows, 72u);
  EXPECT_EQ(unknown.block_cols, 256u);
}

// On every path and cache size, the widest tile's micro-panels fit in L1d, the packed blocks in half of L2,
// and the blocks are whole tiles.
TEST(GemmTest, BlockingFitsTheCachesItWasDerivedFor) {
  for (GemmPath path : kPaths) {
    const GemmTile tile = gemm_tile(path);
    for (std::size_t l1 : {16u << 10, 32u << 10, 48u << 10, 64u << 10}) {
      for (std::size_t l2 : {256u << 10, 1u << 20, 1280u << 10, 2u << 20}) {
        const GemmBlocking k = gemm_blocking_for(path, l1, l2);
        EXPECT_LE(k.depth * (8 + 16) * sizeof(double), l1) << gemm_path_name(path) << " l1=" << l1;
        EXPECT_LE((k.block_rows + k.block_cols) * k.depth * sizeof(double), l2 / 2)
            << gemm_path_name(path) << " l1=" << l1 << " l2=" << l2;
        EXPECT_EQ(k.block_rows % tile.rows, 0u);
        EXPECT_EQ(k.block_cols % tile.cols, 0u);
      }
    }
  }
}

// The path rule is a function of the CPU's identity only, so every run on one machine takes one path. The
// identities are cpuid's: Zen 4 is AMD family 25 (0x19) model 97 (0x61, Ryzen 7000); Ice Lake SP is Intel
// family 6 model 106 (0x6A); Skylake-SP is model 85 (0x55), which the table leaves to the timing.
CpuInfo cpu_identity(const char* vendor, unsigned family, unsigned model, bool avx512f) {
  CpuInfo cpu;
  cpu.vendor = vendor;
  cpu.family = family;
  cpu.model = model;
  cpu.avx2 = cpu.fma = true;
  cpu.avx512f = avx512f;
  return cpu;
}

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(GemmTest, PathRuleDecidesByVendorFamilyAndModel) {
  const std::optional<GemmPathRule> zen4 = gemm_path_rule(cpu_identity("AuthenticAMD", 25, 97, true));
  ASSERT_TRUE(zen4.has_value());
  EXPECT_EQ(zen4->path, GemmPath::Wide);
  EXPECT_EQ(std::string(zen4->reason).rfind("avx2: ", 0), 0u) << zen4->reason;
  EXPECT_TRUE(ends_with(zen4->reason, "(rule)")) << zen4->reason;

  const std::optional<GemmPathRule> ice_lake = gemm_path_rule(cpu_identity("GenuineIntel", 6, 106, true));
  ASSERT_TRUE(ice_lake.has_value());
  EXPECT_EQ(ice_lake->path, GemmPath::Widest);
  EXPECT_EQ(std::string(ice_lake->reason).rfind("avx512f: ", 0), 0u) << ice_lake->reason;
  EXPECT_TRUE(ends_with(ice_lake->reason, "(rule)")) << ice_lake->reason;

  // No entry: the plan times both paths.
  EXPECT_FALSE(gemm_path_rule(cpu_identity("GenuineIntel", 6, 85, true)).has_value());    // Skylake-SP
  EXPECT_FALSE(gemm_path_rule(cpu_identity("AuthenticAMD", 26, 68, true)).has_value());   // Zen 5
  EXPECT_FALSE(gemm_path_rule(cpu_identity("HygonGenuine", 24, 1, true)).has_value());    // another vendor
  EXPECT_FALSE(gemm_path_rule(cpu_identity("GenuineIntel", 15, 106, true)).has_value());  // family, not model
  // Without AVX-512F there is nothing to decide: the widest path the CPU has.
  EXPECT_FALSE(gemm_path_rule(cpu_identity("GenuineIntel", 6, 106, false)).has_value());
  EXPECT_FALSE(gemm_path_rule(cpu_identity("AuthenticAMD", 25, 33, false)).has_value());  // Zen 3
}

// The plan on this machine: a CPU the table knows is never timed, and QKV_GEMM_PATH wins over both.
TEST(GemmTest, PlanTakesTheRuleWhereThereIsOne) {
  if (std::getenv("QKV_GEMM_PATH") != nullptr) GTEST_SKIP() << "QKV_GEMM_PATH decides the path";
  const GemmPlan& plan = gemm_plan();
  const std::optional<GemmPathRule> rule = gemm_path_rule(cpu_info());
  if (rule && gemm_path_supported(GemmPath::Widest)) {
    EXPECT_EQ(plan.path, rule->path);
    EXPECT_STREQ(plan.reason, rule->reason);
  } else {
    EXPECT_FALSE(ends_with(plan.reason, "(rule)")) << plan.reason;
  }
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

// ---- the tape: matmul's backward through the kernel, against the arithmetic the tape did before ---------

// Naive C [n, m] = A [n, k] · B [k, m] for plain row-major arrays (transposes made explicitly by the caller).
std::vector<double> naive_product(const double* a, const double* b, std::size_t n, std::size_t m,
                                  std::size_t k) {
  std::vector<double> c(n * m);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      double sum = 0.0;
      for (std::size_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * m + j];
      c[i * m + j] = sum;
    }
  return c;
}

std::vector<double> transposed(const double* a, std::size_t rows, std::size_t cols) {
  std::vector<double> t(rows * cols);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) t[j * rows + i] = a[i * cols + j];
  return t;
}

Tensor tensor_of(Shape shape, std::vector<double> values) {
  return Tensor::from_values(std::move(shape), std::move(values)).value();
}

// Y = X·W_a + X·W_b + X·W_a (W_a used twice), X [B, T, D], weights [D, H], seeded
// with U [B, T, H]; two backward passes. The expected gradients repeat the old tape step by step: every
// adjoint a zeros tensor, every term materialised (explicit transposes, sum_to_shape from +0.0 in batch
// order), added in reverse topological order, and committed as gradient + adjoint.
TEST(GemmTest, TapeGradientsMatchTheMaterialisingBackwardBitForBit) {
  const std::size_t B = 3, T = 5, D = 257, H = 7;
  SplitMix64 rng(2026);
  const std::vector<double> x = draws(rng, B * T * D, Values::Special);
  const std::vector<double> wa = draws(rng, D * H, Values::Special);
  const std::vector<double> wb = draws(rng, D * H, Values::Special);
  const std::vector<double> u = draws(rng, B * T * H, Values::Special);

  auto X = TensorValue::parameter(tensor_of({B, T, D}, x)).value();
  auto Wa = TensorValue::parameter(tensor_of({D, H}, wa)).value();
  auto Wb = TensorValue::parameter(tensor_of({D, H}, wb)).value();
  auto first = matmul(X, Wa).value();
  auto second = matmul(X, Wb).value();
  auto third = matmul(X, Wa).value();
  auto y = add(add(first, second).value(), third).value();

  // The old tape: d(first), d(second), d(third) are each 0 + (0 + U) through the two adds.
  std::vector<double> up(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) up[i] = 0.0 + (0.0 + u[i]);
  // Reverse topological order runs third, second, first; each adds into X's adjoint and its weight's.
  const auto input_term = [&](const std::vector<double>& w) {  // sum_to_shape(U · Wᵀ, [B, T, D])
    const std::vector<double> wt = transposed(w.data(), D, H);
    std::vector<double> term;
    for (std::size_t b = 0; b < B; ++b) {
      const std::vector<double> product = naive_product(up.data() + b * T * H, wt.data(), T, D, H);
      for (double value : product) term.push_back(0.0 + value);
    }
    return term;
  };
  const auto weight_term = [&]() {  // sum_to_shape(Xᵀ · U, [D, H]): batches summed from +0.0 in order
    std::vector<double> term(D * H, 0.0);
    for (std::size_t b = 0; b < B; ++b) {
      const std::vector<double> xt = transposed(x.data() + b * T * D, T, D);
      const std::vector<double> product = naive_product(xt.data(), up.data() + b * T * H, D, H, T);
      for (std::size_t i = 0; i < term.size(); ++i) term[i] += product[i];
    }
    return term;
  };
  std::vector<double> dx(B * T * D, 0.0), dwa(D * H, 0.0), dwb(D * H, 0.0);
  const auto add_into = [](std::vector<double>& into, const std::vector<double>& term) {
    for (std::size_t i = 0; i < into.size(); ++i) into[i] += term[i];
  };
  add_into(dx, input_term(wa));  // third
  add_into(dwa, weight_term());
  add_into(dx, input_term(wb));  // second
  add_into(dwb, weight_term());
  add_into(dx, input_term(wa));  // first
  add_into(dwa, weight_term());

  std::vector<double> gx(dx.size(), 0.0), gwa(dwa.size(), 0.0), gwb(dwb.size(), 0.0);
  for (int pass = 1; pass <= 2; ++pass) {
    ASSERT_TRUE(y.backward_with_seed(tensor_of({B, T, H}, u)).ok());
    add_into(gx, dx);
    add_into(gwa, dwa);
    add_into(gwb, dwb);
    EXPECT_EQ(first_difference(X.gradient()->values(), gx), "") << "input, pass " << pass;
    EXPECT_EQ(first_difference(Wa.gradient()->values(), gwa), "") << "shared weight, pass " << pass;
    EXPECT_EQ(first_difference(Wb.gradient()->values(), gwb), "") << "weight, pass " << pass;
  }
}

// A weight with its own batch axis of 1 broadcast against [B, T, D]: the reduction over batches lands in a
// [1, D, H] adjoint, and a rank-2 input broadcast against a batched weight reduces the input's side.
TEST(GemmTest, BroadcastMatmulGradientsMatchTheMaterialisingBackwardBitForBit) {
  const std::size_t B = 4, T = 3, D = 9, H = 5;
  SplitMix64 rng(7);
  const std::vector<double> x = draws(rng, T * D, Values::Special);      // [T, D], broadcast over B
  const std::vector<double> w = draws(rng, B * D * H, Values::Special);  // [B, D, H]
  const std::vector<double> u = draws(rng, B * T * H, Values::Special);  // [B, T, H]
  auto X = TensorValue::parameter(tensor_of({T, D}, x)).value();
  auto W = TensorValue::parameter(tensor_of({B, D, H}, w)).value();
  auto y = matmul(X, W).value();
  ASSERT_TRUE(y.backward_with_seed(tensor_of({B, T, H}, u)).ok());

  std::vector<double> dx(T * D, 0.0), dw;
  for (std::size_t b = 0; b < B; ++b) {
    const std::vector<double> wt = transposed(w.data() + b * D * H, D, H);
    const std::vector<double> px = naive_product(u.data() + b * T * H, wt.data(), T, D, H);
    for (std::size_t i = 0; i < dx.size(); ++i) dx[i] += px[i];
    const std::vector<double> xt = transposed(x.data(), T, D);
    for (double value : naive_product(xt.data(), u.data() + b * T * H, D, H, T)) dw.push_back(0.0 + value);
  }
  for (double& value : dx) value = 0.0 + (0.0 + value);  // adjoint zeros + term, then gradient zeros + it
  for (double& value : dw) value = 0.0 + (0.0 + value);
  EXPECT_EQ(first_difference(X.gradient()->values(), dx), "");
  EXPECT_EQ(first_difference(W.gradient()->values(), dw), "");
}

}  // namespace
}  // namespace qkv
