// The command line's own limits: the bytes a request may hold, and the work of the seeded initialisation
// (`qkv-lesson init`), counted before it runs (units and message: support/budget.hpp).
#pragma once

#include <cstddef>

#include "support/budget.hpp"

namespace qkv {

// The most bytes a request file (or standard input) may hold (about 2 million short numbers).
inline constexpr std::size_t kMaxRequestBytes = std::size_t{8} << 20;

// Seeded initialisation: measured 0.53 s for 3 x 1000 x 1000 weights (2.1e8 operations), so 2e8.
inline constexpr double kMaxInitOperations = 2e8;
// One Xavier-uniform weight: a SplitMix64 draw, then formatting it.
inline constexpr double kInitValueOperations = kOutputValueOperations + 10;

// QkvProjections::create with seeded weights, written out: three d × h weights.
inline double init_cost(double model_width, double head_width) {
  return 3 * model_width * head_width * kInitValueOperations;
}

}  // namespace qkv
