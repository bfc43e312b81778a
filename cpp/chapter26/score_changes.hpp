// What two changes the lesson asks about do to the query–key scores S = Q Kᵀ (raw, per batch item): W_K
// doubled, and a bias added to the keys or to the queries (the layer itself has none; this is why).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "chapter26/projection_evidence.hpp"

namespace qkv {

// The request again with every entry of W_K times 2, compared with the request as it is, bit for bit.
struct DoubledKeyWeight {
  Tensor key, scores;  // K and S with W_K doubled
  bool query_unchanged = false, value_unchanged = false;
  bool key_doubled = false, scores_doubled = false;  // each entry exactly twice the original's
};
Result<DoubledKeyWeight, LessonError> double_key_weight(const ProjectionRequest& request,
                                                        const ProjectionEvidence& primary);

// S again with a bias added to every key (k_j + b_K) or to every query (q_i + b_Q), and the shifts
// S_biased − S. A key bias shifts row i by q_i · b_K, the same for every key j, which softmax ignores; a
// query bias shifts S[b,i,j] by b_Q · k_j, which differs from key to key.
struct BiasShifts {
  std::vector<double> key_bias, query_bias;   // [d_head] each
  Tensor key_bias_scores, query_bias_scores;  // [B, T, T]
  Tensor key_bias_shift, query_bias_shift;    // [B, T, T]: S_biased − S
  // Every row of key_bias_shift holds one value (to within the rounding of the two sums it subtracts) ...
  bool key_shift_same_across_row = false;
  // ... and some row of query_bias_shift does not.
  bool query_shift_differs_across_row = false;
};
Result<BiasShifts, LessonError> bias_shifts(const ProjectionEvidence& primary, std::vector<double> key_bias,
                                            std::vector<double> query_bias);

// Where each row of batch item 0's scores peaks (np.argmax: the first largest), without projections and with
// them: without, a token's query and key would both be its x and the scores X Xᵀ; with, S = Q Kᵀ. The
// sentence the score figure shows says so with these numbers. None when an axis is empty.
struct OwnTokenPeaks {
  std::vector<std::vector<double>> input_scores;    // [T][T]: the rows of X Xᵀ for batch item 0
  std::vector<std::size_t> input_rows, score_rows;  // the rows whose largest score is the token's own
  std::string sentence;
};
Result<std::optional<OwnTokenPeaks>, LessonError> own_token_peaks(const Tensor& input, const Tensor& scores);

}  // namespace qkv
