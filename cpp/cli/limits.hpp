// The command line's own limits: the bytes a request may hold, the work of the seeded initialisation
// (`qkv-lesson init`) and of the whole self-score experiment written out (`qkv-lesson self-score`), counted
// before they run (units and message: support/budget.hpp).
#pragma once

#include <cstddef>

#include "self_score/self_score.hpp"
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

// `qkv-lesson self-score` writes every number of the experiment (api::SelfScoreView), where the page shows a
// corner of the scores (api::self_score_summary): the sizes the page accepts (1 to kSelfScoreMaxSize) are not
// enough here. Measured on the development machine under load (load average 13, user CPU time): 6.5 µs a
// number at 64 × 64 and at 128 × 128 (24,704 and 98,560 numbers: 0.16 s and 0.64 s), 5.7 µs at 1 × 512 and
// 6.2 µs at 512 × 1; formatting dominates (each number is written exact, as its shortest round-trip text and
// rounded to two decimals). At the evidence's slowest rate (0.16 G operations per second,
// chapter26/evidence_cost.hpp) that is about 1000 operations a number.
inline constexpr double kSelfScoreNumberOperations = 1000;
// The experiment's work (self_score_cost) and its numbers written, within 2e8 as the evidence and init are:
// about 200,000 numbers. The largest accepted, 168 x 168, 1 x 308 and 257 x 1, took 1.0-1.1 s of CPU, 80-100
// MB and wrote 8-10 MB (load average 8.5). n = d = 512 (1,573,888 numbers, 77.6 MB) had taken 9.5 s and 661
// MB.
inline constexpr double kMaxSelfScoreOperations = 2e8;

// The numbers api::SelfScoreView holds for n tokens of width d: X (n·d), W_q and W_k (d·d each), the two
// lists of lengths (n each) and the three n × n score matrices.
inline double self_score_numbers(double tokens, double dim) {
  return tokens * dim + 2 * dim * dim + 2 * tokens + 3 * tokens * tokens;
}

// The experiment for validated sizes, written out: its work, each number written, and its lists of rows
// (argmax, diagonal and guaranteed rows: at most 8 n whole numbers).
inline double self_score_output_cost(std::int64_t tokens, std::int64_t dim) {
  const double n = static_cast<double>(tokens), d = static_cast<double>(dim);
  return static_cast<double>(self_score_cost(tokens, dim)) +
         self_score_numbers(n, d) * kSelfScoreNumberOperations + 8 * n * kOutputValueOperations;
}

}  // namespace qkv
