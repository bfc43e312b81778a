#include "chapter26/score_changes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "chapter26/chapter26.hpp"
#include "text/format.hpp"

namespace qkv {
namespace {

constexpr const char* kKeyWeightKey = "key_weight";

// Q Kᵀ per batch item, each sum from +0.0 upwards (the kernels' order); a failure names `field`.
Result<Tensor, LessonError> scores_of(const Tensor& query, const Tensor& key,
                                      const char* field = kKeyWeightKey) {
  auto keys = transpose_last(key);
  if (!keys) return fail(lesson_error(keys.error(), field));
  auto scores = matmul(query, *keys);
  if (!scores) return fail(lesson_error(scores.error(), field));
  return std::move(*scores);
}

bool each_twice(const Tensor& doubled, const Tensor& original) {
  if (doubled.shape() != original.shape()) return false;
  for (std::size_t i = 0; i < original.size(); ++i)
    if (doubled[i] != 2.0 * original[i]) return false;
  return true;
}

// `tensor` + `bias` on its last axis.
Result<Tensor, LessonError> plus_bias(const Tensor& tensor, const std::vector<double>& bias) {
  auto row = Tensor::from_values({static_cast<Extent>(bias.size())}, bias);
  if (!row) return fail(lesson_error(row.error(), "bias"));
  auto sum = add(tensor, *row);
  if (!sum) return fail(lesson_error(sum.error(), "bias"));
  return std::move(*sum);
}

Tensor minus(const Tensor& left, const Tensor& right) {
  Tensor out = left;
  for (std::size_t i = 0; i < out.size(); ++i) out.mutable_values()[i] = left[i] - right[i];
  return out;
}

double largest_magnitude(const std::vector<double>& values) {
  double out = 0.0;
  for (double value : values) out = std::max(out, std::abs(value));
  return out;
}

// Whether every row (the last axis) of `shift` holds one value, allowing each entry the rounding of the
// two sums of `terms` products it is the difference of; `product_bound` bounds every |product| summed.
bool rows_constant(const Tensor& shift, std::size_t terms, double product_bound) {
  const std::size_t width = shift.shape().empty() ? 0 : shift.shape().back();
  const double n = static_cast<double>(terms);
  const double allowance = 4.0 * (n + 1.0) * std::numeric_limits<double>::epsilon() * n * product_bound;
  for (std::size_t start = 0; width > 0 && start < shift.size(); start += width)
    for (std::size_t j = 1; j < width; ++j)
      if (std::abs(shift[start + j] - shift[start]) > allowance) return false;
  return true;
}

// The rows i of `rows` (a [T][T] table) whose first largest entry is at column i.
std::vector<std::size_t> own_rows(const std::vector<std::vector<double>>& rows) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < rows[i].size(); ++j)
      if (rows[i][j] > rows[i][best]) best = j;
    if (best == i) out.push_back(i);
  }
  return out;
}

// Batch item 0 of a [B, T, T] tensor, as rows.
std::vector<std::vector<double>> first_item_rows(const Tensor& scores) {
  const std::size_t tokens = scores.shape()[1];
  std::vector<std::vector<double>> out(tokens, std::vector<double>(tokens));
  for (std::size_t i = 0; i < tokens; ++i)
    for (std::size_t j = 0; j < tokens; ++j) out[i][j] = scores[i * tokens + j];
  return out;
}

std::string row_list(const std::vector<std::vector<double>>& rows) {
  std::string out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += i + 1 == rows.size() ? " and " : ", ";
    out += "[";
    for (std::size_t j = 0; j < rows[i].size(); ++j) out += (j > 0 ? ", " : "") + format_prose(rows[i][j]);
    out += "]";
  }
  return out;
}

// The rows of X Xᵀ are listed while they are short enough to read in a sentence.
constexpr std::size_t kListedTokens = 4;

}  // namespace

Result<std::optional<OwnTokenPeaks>, LessonError> own_token_peaks(const Tensor& input, const Tensor& scores) {
  const Shape& shape = input.shape();
  if (shape.size() != 3 || shape[0] == 0 || shape[1] == 0) return std::optional<OwnTokenPeaks>{};
  auto input_scores = scores_of(input, input, "input");
  if (!input_scores) return fail(input_scores.error());
  OwnTokenPeaks out;
  out.input_scores = first_item_rows(*input_scores);
  out.input_rows = own_rows(out.input_scores);
  out.score_rows = own_rows(first_item_rows(scores));
  const std::size_t tokens = shape[1];
  out.sentence = std::string(shape[0] > 1 ? "In batch item 0, without" : "Without") +
                 " projections the scores would be X\u00a0Xᵀ" +
                 (tokens <= kListedTokens ? ", rows " + row_list(out.input_scores) : std::string()) +
                 ": the token's own score is the largest in " + rows_text(out.input_rows) +
                 ". In S = Q\u00a0Kᵀ above it is in " + rows_text(out.score_rows) + ".";
  return std::optional<OwnTokenPeaks>(std::move(out));
}

Result<DoubledKeyWeight, LessonError> double_key_weight(const ProjectionRequest& request,
                                                        const ProjectionEvidence& primary) {
  ProjectionRequest doubled = request;
  doubled.upstream.reset();
  for (double& value : doubled.key_weight.mutable_values()) value *= 2.0;
  auto evidence = compute_projection_evidence(doubled, EvidenceParts{false, true});
  if (!evidence) return fail(evidence.error());
  DoubledKeyWeight out;
  out.query_unchanged = same_bits(evidence->query, primary.query);
  out.value_unchanged = same_bits(evidence->value, primary.value);
  out.key_doubled = each_twice(evidence->key, primary.key);
  out.scores_doubled = each_twice(evidence->scores, primary.scores);
  out.key = std::move(evidence->key);
  out.scores = std::move(evidence->scores);
  return out;
}

Result<BiasShifts, LessonError> bias_shifts(const ProjectionEvidence& primary, std::vector<double> key_bias,
                                            std::vector<double> query_bias) {
  BiasShifts out;
  auto biased_keys = plus_bias(primary.key, key_bias);
  if (!biased_keys) return fail(biased_keys.error());
  auto biased_queries = plus_bias(primary.query, query_bias);
  if (!biased_queries) return fail(biased_queries.error());
  auto key_scores = scores_of(primary.query, *biased_keys);
  if (!key_scores) return fail(key_scores.error());
  auto query_scores = scores_of(*biased_queries, primary.key);
  if (!query_scores) return fail(query_scores.error());
  out.key_bias_shift = minus(*key_scores, primary.scores);
  out.query_bias_shift = minus(*query_scores, primary.scores);
  const double product_bound = (largest_magnitude(primary.query.values()) + largest_magnitude(query_bias)) *
                               (largest_magnitude(primary.key.values()) + largest_magnitude(key_bias));
  out.key_shift_same_across_row = rows_constant(out.key_bias_shift, key_bias.size(), product_bound);
  out.query_shift_differs_across_row = !rows_constant(out.query_bias_shift, query_bias.size(), product_bound);
  out.key_bias = std::move(key_bias);
  out.query_bias = std::move(query_bias);
  out.key_bias_scores = std::move(*key_scores);
  out.query_bias_scores = std::move(*query_scores);
  return out;
}

}  // namespace qkv
