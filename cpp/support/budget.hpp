// Work budgets: what a request will cost, estimated from its sizes before any of it runs, so that every
// accepted request finishes quickly and a too-large one is refused with a message naming the limit.
//
// The unit is one "operation": a multiply-add, or one element allocated, copied or visited. Other steps
// are counted in those units by the weight stated beside them. Costs are doubles: extents may be as large
// as 2^64 - 1, and their products must compare with a limit without overflowing (rounding is harmless at
// these magnitudes).
//
// The limits were measured on the 2-core development machine (GCC 12, Release, one core, the kernels as
// of this commit, before the planned ~10x faster kernels) so that every accepted request finishes in well
// under 2 s; each limit's measurement is beside it. When the kernels get faster, re-measure (time
// `qkv-lesson evidence` on requests just under the limit) and raise the limits: they are plain constants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace qkv {

// ---- the limits ---------------------------------------------------------------------------------------

// Evidence (forward, backward, gradcheck, and writing the result). Measured end to end through
// `qkv-lesson evidence` on requests near the limit of every shape family (cubes, long T with d = h = 1,
// wide h, huge B with T = 0, forward only): 0.26 to 0.48 s at 1.3e8 to 1.9e8 operations, with the
// machine's load average near 6; the slowest rate seen in any run was 0.16 G operations per second, so
// 2e8 stays near 1.25 s even then. Reading and parsing an 8 MiB request is included in those times.
inline constexpr double kMaxEvidenceOperations = 2e8;
// The gradcheck's share: it checks as many coordinates per tensor (up to 32) as fit in this.
inline constexpr double kMaxGradcheckOperations = kMaxEvidenceOperations / 2;
// The seed search has its own limit beside its cost model: kSearchBudget in selfscore/self_bias.hpp.
// Seeded initialisation: measured 0.53 s for 3 x 1000 x 1000 weights (2.1e8 operations), so 2e8.
inline constexpr double kMaxInitOperations = 2e8;
// The most bytes a request file (or standard input) may hold (about 2 million short numbers).
inline constexpr std::size_t kMaxRequestBytes = std::size_t{8} << 20;
// The benchmark (`qkv-lesson bench`, and the tests' module's bench call), in flops (see bench_cost below):
// about 10 s of one core of the 2-core development machine (Release, AVX-512, a second job running), where
// the model overestimated every measured shape by up to 2x (one by 17x: B = 16384, d = h = 64).
inline constexpr double kMaxBenchFlops = 1e11;
// Passes timed: enough for a median; a pass of the smallest shapes takes some 40 µs.
inline constexpr std::uint64_t kMaxBenchRepeat = 1000;

// ---- the weights ------------------------------------------------------------------------------------

// Every number handed back to the caller costs about this many operations to format (nlohmann's shortest
// round-trip, about 80 ns) or to copy into JavaScript.
inline constexpr double kOutputValueOperations = 60;
// Each element of the weight gradient's [B, d, h] intermediate: zeroed, written by a matmul, then summed
// over B by a general broadcast reduction (measured: about 30 ns each).
inline constexpr double kGradientRowOperations = 10;
// Each batch item of a batched matmul: [B, T, d] · [d, h] is B calls of the kernel, each with its setup
// (packing, a buffer allocated and freed). Negligible for a few large items, it is most of the time for
// many tiny ones: X [100000, 1, 1] took 1.6 s (about 60 such batched products, 6e6 calls) while its
// multiply-adds and elements counted 7.9e7 operations; a long T with d = h = 1 runs at 3.8 ns per counted
// operation, and these calls measured 60 to 90 operations each at that rate (issue 18: X [286720, 1, 1]
// was accepted and took 2.1 s).
inline constexpr double kMatmulCallOperations = 100;
// One Xavier-uniform weight: a SplitMix64 draw, then formatting it.
inline constexpr double kInitValueOperations = kOutputValueOperations + 10;

// ---- projection evidence ------------------------------------------------------------------------------

// What compute_projection_evidence() will do for X [B, T, d] and weights [d, h] (shapes already checked to
// agree), counted from how the tape runs it: each projection is a matmul of n·d·h multiply-adds
// (n = B·T); backward does two more per projection, and the weight gradient first builds a [B, d, h]
// intermediate that is then summed over B; one gradcheck probe (no layer rebuilt, no tape: see objective_at)
// copies the request and runs the forward and the loss again. With the query–key scores (the chapter's
// look-ahead), K is transposed and each batch item's Q Kᵀ costs T·T·h multiply-adds. Every matmul over the
// batch also costs kMatmulCallOperations per batch item.
struct EvidenceCost {
  double forward = 0;    // the three projections, and writing Q, K, V (and the scores, when asked for)
  double backward = 0;   // the loss, backward, the rounding bound, and writing the four gradients
  double gradcheck = 0;  // three probes per checked coordinate
  std::size_t samples_per_tensor = 0;  // coordinates the gradcheck checks per tensor, at most
  double largest_elements = 0;         // the largest tensor any step allocates

  double total() const { return forward + backward + gradcheck; }
};

// `max_samples` caps the gradcheck's coordinates per tensor; fewer are taken when one probe is so costly
// that `max_samples` of them would pass kMaxGradcheckOperations (but always one, so a request is either
// checked or refused, never silently unchecked).
inline EvidenceCost evidence_cost(double batch, double tokens, double model_width, double head_width,
                                  bool with_backward, std::size_t max_samples, bool with_scores = false) {
  const double n = batch * tokens;
  const double input = n * model_width, weight = model_width * head_width, output = n * head_width;
  const double macs = n * model_width * head_width;  // one projection
  const double weight_gradient_rows = batch * model_width * head_width;
  // One matmul's kernel calls, one per batch item, made only when its result has elements (matmul returns an
  // empty result at once): X·W [B, T, h], U·Wᵀ [B, T, d], Xᵀ·U (the [B, d, h] intermediate), Q·Kᵀ [B, T, T].
  const auto calls_for = [batch](double rows, double cols) {
    return rows > 0 && cols > 0 ? batch * kMatmulCallOperations : 0;
  };
  const double calls = calls_for(tokens, head_width);
  const double backward_calls = calls_for(tokens, model_width) + calls_for(model_width, head_width);
  EvidenceCost cost;
  cost.forward = 3 * macs + 3 * calls + 3 * output + input + 3 * weight + 3 * output * kOutputValueOperations;
  cost.largest_elements = input > output ? input : output;
  if (weight > cost.largest_elements) cost.largest_elements = weight;
  if (with_scores) {
    const double scores = batch * tokens * tokens;  // [B, T, T]
    // Kᵀ copied, B·T·T·h multiply-adds, and every score written out.
    cost.forward += output + scores * head_width + calls_for(tokens, tokens) + scores + scores * kOutputValueOperations;
    if (scores > cost.largest_elements) cost.largest_elements = scores;
  }
  if (!with_backward) return cost;

  if (weight_gradient_rows > cost.largest_elements) cost.largest_elements = weight_gradient_rows;
  const double loss = 9 * output;  // copy the upstream, multiply, sum
  cost.backward = loss + 6 * macs + 3 * backward_calls +
                  3 * (3 * input + kGradientRowOperations * weight_gradient_rows + 5 * output + 2 * weight) +
                  3 * macs + 3 * calls +  // the rounding bound on the loss (a forward in absolute values)
                  (input + 3 * weight) * kOutputValueOperations;

  // One probe: the request copied, a fresh layer, the forward and the loss.
  const double probe = 3 * macs + 3 * calls + 2 * input + 12 * weight + 25 * output;
  const double per_sample = 3 * 4 * probe;  // three probes, four tensors
  double samples = static_cast<double>(max_samples);
  if (per_sample * samples > kMaxGradcheckOperations) {
    samples = static_cast<double>(static_cast<std::size_t>(kMaxGradcheckOperations / per_sample));
    if (samples < 1) samples = 1;
  }
  cost.samples_per_tensor = static_cast<std::size_t>(samples);
  const double input_samples = input < samples ? input : samples;
  const double weight_samples = weight < samples ? weight : samples;
  cost.gradcheck = 3 * (input_samples + 3 * weight_samples) * probe + 4 * (input + 3 * weight + 3 * output);
  return cost;
}

// ---- initialisation -------------------------------------------------------------------

// QkvProjections::create with seeded weights, written out: three d × h weights.
inline double init_cost(double model_width, double head_width) {
  return 3 * model_width * head_width * kInitValueOperations;
}

// ---- the benchmark -------------------------------------------------------------------------------------

// One forward and backward pass of the benchmark (cpp/bench) at X [B, T, d] and weights [d, h], in flops:
// the nine matrix products' 18·B·T·d·h (the rate the benchmark reports), and every other step converted at
// the rate those ran (about 10 flops per ns, measured one pass at a time on the development machine): per
// batch item about 2.7 µs (the weight gradient's reduction over B: 194 s for B = 2^26 with d = h = 1),
// per B·h 230 ns and per B·d·h 10 ns (the [B, d, h] intermediate), per token 300 ns, per B·T·h 100 ns and per
// B·T·d 40 ns (the elementwise steps of narrow matrices: 18.7 s for T = 2^26), per d·h 70 ns (the weights,
// their gradients: 1.1 s at d = h = 4096). Drawing the data, once: 40 ns per element.
inline double bench_pass_flops(double b, double t, double d, double h) {
  const double n = b * t;
  return 18 * n * d * h + 30000 * b + 2500 * b * h + 100 * b * d * h + 3000 * n + 1000 * n * h + 400 * n * d +
         800 * d * h;
}
inline double bench_cost(double b, double t, double d, double h, double repeat) {
  return repeat * bench_pass_flops(b, t, d, h) + 400 * (3 * d * h + b * t * d + 3 * b * t * h);
}

// ---- the message ------------------------------------------------------------------------------------

// Two significant digits in the style of a C literal without '+' or leading exponent zeros: "3.1e10",
// "4e8"; below a million as a whole number ("24000").
inline std::string format_operations(double count) {
  char text[32];
  if (count < 1e6) {
    std::snprintf(text, sizeof text, "%.0f", count);
    return text;
  }
  std::snprintf(text, sizeof text, "%.2g", count);  // "3.1e+10"
  std::string out = text;
  const std::size_t e = out.find('e');
  if (e == std::string::npos) return out;
  std::string exponent = out.substr(e + 1);
  if (!exponent.empty() && exponent[0] == '+') exponent.erase(0, 1);
  while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
  return out.substr(0, e) + "e" + exponent;
}

struct BudgetError {
  std::string what;  // "evidence request", "seed search", ...
  double cost = 0;
  double limit = 0;
  std::string detail;  // optional, e.g. "1000000 seeds of 4900 each"
  std::string unit = "operations";  // "flops" for the benchmark

  // e.g. "evidence request costs 3.1e10 operations, more than the limit of 4e8"
  std::string message() const {
    std::string text = what + " costs " + format_operations(cost) + " " + unit;
    if (!detail.empty()) text += " (" + detail + ")";
    return text + ", more than the limit of " + format_operations(limit);
  }
};

}  // namespace qkv
