// The evidence's work budget: what compute_projection_evidence() will cost for a request's sizes, counted
// before any of it runs, and the limit it must stay under (units and message: support/budget.hpp).
#pragma once

#include <cstddef>

#include "support/budget.hpp"

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

// ---- the weights ------------------------------------------------------------------------------------

// Each of the B·d·h sums of the weight gradient Xᵀ·U: backward adds every batch item's [d, h] product into
// the gradient, one batch item at a time. The weight was measured (about 30 ns each) when backward still
// built a [B, d, h] intermediate and summed it over B; the kernel no longer builds it, and the weight is
// kept as an upper bound (re-measure before lowering it).
inline constexpr double kGradientRowOperations = 10;
// Each batch item of a batched matmul: [B, T, d] · [d, h] is B calls of the kernel, each with its setup
// (packing, a buffer allocated and freed). Negligible for a few large items, it is most of the time for
// many tiny ones: X [100000, 1, 1] took 1.6 s (about 60 such batched products, 6e6 calls) while its
// multiply-adds and elements counted 7.9e7 operations; a long T with d = h = 1 runs at 3.8 ns per counted
// operation, and these calls measured 60 to 90 operations each at that rate (issue 18: X [286720, 1, 1]
// was accepted and took 2.1 s).
inline constexpr double kMatmulCallOperations = 100;

// ---- the cost model -----------------------------------------------------------------------------------

// What compute_projection_evidence() will do for X [B, T, d] and weights [d, h] (shapes already checked to
// agree), counted from how the tape runs it: each projection is a matmul of n·d·h multiply-adds
// (n = B·T); backward does two more per projection, and the weight gradient adds B·d·h products into
// [d, h]; one gradcheck probe (no layer rebuilt, no tape: see objective_at) copies the request and runs the
// forward and the loss again. With the query–key scores (the chapter's look-ahead), K is transposed and
// each batch item's Q Kᵀ costs T·T·h multiply-adds. Every matmul over the batch also costs
// kMatmulCallOperations per batch item.
struct EvidenceCost {
  double forward = 0;    // the three projections, and writing Q, K, V (and the scores, when asked for)
  double backward = 0;   // the loss, backward, the rounding bound, and writing the four gradients
  double gradcheck = 0;  // three probes per checked coordinate
  std::size_t samples_per_tensor = 0;  // coordinates the gradcheck checks per tensor, at most
  double largest_elements = 0;  // the largest tensor any step allocates (and B·d·h, the sums of Xᵀ·U)

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
  // empty result at once): X·W [B, T, h], U·Wᵀ [B, T, d], Xᵀ·U (B products of [d, h]), Q·Kᵀ [B, T, T].
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
    cost.forward +=
        output + scores * head_width + calls_for(tokens, tokens) + scores + scores * kOutputValueOperations;
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

}  // namespace qkv
