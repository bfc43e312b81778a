// Fresh numbers for chapter 26 on demand: a seeded draw of a small instance a learner can work out by hand
// (the tokens named, integer X, weights in halves), as a state the page loads like a `state=` link's.
#pragma once

#include <cstdint>
#include <string_view>

#include "learner/editable_state.hpp"

namespace qkv {

// Seeds 0 to 2^53 - 1: each one is a whole JavaScript number, so a link and the page hold it exactly.
inline constexpr std::uint64_t kMaxVariantSeed = (std::uint64_t{1} << 53) - 1;

// What a draw holds, so that every sum is done by hand: one batch item, 2 or 3 tokens, d_model 2 or 3,
// d_head 2; X and the upstreams whole numbers, the weights halves.
struct VariantRules {
  Extent batch = 1, min_tokens = 2, max_tokens = 3, min_model_width = 2, max_model_width = 3, head_width = 2;
  int max_input = 3;        // X: integers in [−3, 3]
  double max_weight = 2.0;  // W_Q, W_K, W_V: multiples of 0.5 in [−2, 2]
  int max_upstream = 2;     // U_Q, U_K, U_V: integers in [−2, 2]
};
inline constexpr VariantRules kVariantRules{};

// The words the tokens are named by, each drawn at most once per variant.
inline constexpr const char* kVariantWords[] = {"cats", "sleep", "dogs", "run", "birds", "sing",
                                                "rain", "falls", "bees", "hum", "fish",  "swim"};

struct Variant {
  std::uint64_t seed = 0;
  LessonState state;
  std::vector<std::string> token_names;  // [T]
};

// The same seed gives the same variant, bit for bit, native and in WebAssembly (SplitMix64 from the seed,
// integer arithmetic only). A draw is kept only when the questions on it are graded and unambiguous: x₀ and
// q₀ are not zero, and token 0's scores have no tie and peak at k₀ or k₁ (the best-key question's options);
// otherwise the generator draws again, from where it stands. A seed past kMaxVariantSeed is refused.
Result<Variant, LessonError> draw_variant(std::uint64_t seed);

// A graded attempt's own problem: the seed an attempt key (opaque text a launcher makes from the LMS's
// learner and attempt, or a cmi5 registration) stands for. Stable across releases, since a relaunch may
// derive it again: the FNV-1a 64-bit hash of the key's bytes, fed to SplitMix64 as its state, whose first
// output's low 53 bits are the seed (0 to kMaxVariantSeed). The same text gives the same seed everywhere.
std::uint64_t attempt_seed(std::string_view attempt_key);

}  // namespace qkv
