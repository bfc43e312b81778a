#include "attention/value_preview.hpp"

#include <algorithm>
#include <cmath>

namespace qkv {
namespace {

// Σ_c a[a_start + c] · b[b_start + c] over `width` terms, from +0.0 in ascending c (no FMA:
// -ffp-contract=off).
double dot(const std::vector<double>& a, std::size_t a_start, const std::vector<double>& b,
           std::size_t b_start, std::size_t width) {
  double sum = 0.0;
  for (std::size_t c = 0; c < width; ++c) sum += a[a_start + c] * b[b_start + c];
  return sum;
}

}  // namespace

std::vector<double> stable_softmax(const std::vector<double>& row) {
  if (row.empty()) return {};
  const double largest = *std::max_element(row.begin(), row.end());
  std::vector<double> out;
  out.reserve(row.size());
  double total = 0.0;
  for (double x : row) {
    out.push_back(std::exp(x - largest));
    total += out.back();
  }
  for (double& e : out) e /= total;
  return out;
}

std::optional<ValuePreview> value_preview(const Tensor& query, const Tensor& key, const Tensor& value,
                                          std::size_t row) {
  const Shape& shape = query.shape();
  if (shape.size() != 3 || key.shape() != shape || value.shape() != shape) return std::nullopt;
  const auto batches = static_cast<std::size_t>(shape[0]), tokens = static_cast<std::size_t>(shape[1]),
             width = static_cast<std::size_t>(shape[2]);
  if (batches == 0 || tokens == 0 || width == 0 || row >= tokens) return std::nullopt;

  ValuePreview preview;
  preview.row = row;
  preview.scale = std::sqrt(static_cast<double>(width));
  for (std::size_t j = 0; j < tokens; ++j) {
    preview.scores.push_back(dot(query.values(), row * width, key.values(), j * width, width));
    preview.scaled.push_back(preview.scores.back() / preview.scale);
  }
  preview.weights = stable_softmax(preview.scaled);
  preview.unscaled_weights = stable_softmax(preview.scores);
  for (std::size_t c = 0; c < width; ++c) {
    double sum = 0.0;
    for (std::size_t j = 0; j < tokens; ++j) sum += preview.weights[j] * value.values()[j * width + c];
    preview.output.push_back(sum);
  }
  return preview;
}

}  // namespace qkv
