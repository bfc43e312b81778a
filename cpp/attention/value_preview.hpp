// A preview of the next lesson: one query row of scaled dot-product attention worked from Q, K and V, with
// the unscaled softmax beside it so the effect of dividing by √d_head can be seen. Plain values, no tape.
#pragma once

#include <optional>
#include <vector>

#include "tensor/tensor.hpp"

namespace qkv {

struct ValuePreview {
  std::size_t row = 0;                   // the query token (in batch item 0)
  std::vector<double> scores;            // [T]: S[0,row,j] = q_row · k_j
  double scale = 0.0;                    // √d_head
  std::vector<double> scaled;            // [T]: scores / √d_head
  std::vector<double> weights;           // [T]: softmax(scaled)
  std::vector<double> unscaled_weights;  // [T]: softmax(scores), for comparison
  std::vector<double> output;            // [d_head]: Σ_j weights_j · v_j
};

// Numerically stable: e_j = exp(x_j − max x), each divided by Σ e (summed from +0.0 in ascending j).
// An empty row gives an empty result.
std::vector<double> stable_softmax(const std::vector<double>& row);

// The preview for query `row` of batch item 0 from Q, K and V ([B, T, d_head] each, as the layer computes
// them). None when an axis is empty, when `row` is not a token, or when the shapes disagree.
std::optional<ValuePreview> value_preview(const Tensor& query, const Tensor& key, const Tensor& value,
                                          std::size_t row);

}  // namespace qkv
