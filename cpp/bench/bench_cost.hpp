// The benchmark's work budget (`qkv-lesson bench`, and the tests' module's bench call): what one run will
// cost for its sizes and passes (the timed ones and the warm-up), in flops, counted before anything is
// allocated, and its limits (message: support/budget.hpp).
#pragma once

#include <cstdint>

#include "support/budget.hpp"

namespace qkv {

// About 10 s of one core of the 2-core development machine (Release, AVX-512, a second job running), where
// the model overestimated every measured shape by up to 2x (one by 17x: B = 16384, d = h = 64).
inline constexpr double kMaxBenchFlops = 1e11;
// Passes timed: enough for a median; a pass of the smallest shapes takes some 40 µs.
inline constexpr std::uint64_t kMaxBenchRepeat = 1000;

// One forward and backward pass of the benchmark (cpp/bench) at X [B, T, d] and weights [d, h], in flops:
// the nine matrix products' 18·B·T·d·h (the rate the benchmark reports), and every other step converted at
// the rate those ran (about 10 flops per ns, measured one pass at a time on the development machine): per
// batch item about 2.7 µs (194 s for B = 2^26 with d = h = 1), per B·h 230 ns and per B·d·h 10 ns (the
// weight gradient's Xᵀ·U, one [d, h] product per batch item; measured when backward still built a [B, d, h]
// intermediate, kept as an upper bound), per token 300 ns, per B·T·h 100 ns and per B·T·d 40 ns (the
// elementwise steps of narrow matrices: 18.7 s for T = 2^26), per d·h 70 ns (the weights, their gradients:
// 1.1 s at d = h = 4096). Drawing the data, once: 40 ns per element.
inline double bench_pass_flops(double b, double t, double d, double h) {
  const double n = b * t;
  return 18 * n * d * h + 30000 * b + 2500 * b * h + 100 * b * d * h + 3000 * n + 1000 * n * h + 400 * n * d +
         800 * d * h;
}
inline double bench_cost(double b, double t, double d, double h, double passes) {
  return passes * bench_pass_flops(b, t, d, h) + 400 * (3 * d * h + b * t * d + 3 * b * t * h);
}

}  // namespace qkv
