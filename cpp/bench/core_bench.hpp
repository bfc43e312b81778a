// Core benchmark: the Q/K/V layer's forward and backward on seeded data, timed, with its peak heap use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention/qkv.hpp"
#include "tensor/tensor.hpp"

namespace qkv {

struct BenchConfig {
  Extent batch = 1;
  Extent tokens = 1024;
  Extent model_width = 768;
  Extent head_width = 64;
  std::uint64_t repeat = 5;
  std::uint64_t seed = 26;  // SplitMix64: weights (Xavier), then input, then upstream gradients
};

struct BenchResult {
  double median_seconds = 0.0;      // one forward + backward
  double gflops = 0.0;              // 18·B·T·D·H / median: three branches of X·W, U·Wᵀ and Xᵀ·U
  std::uint64_t peak_bytes = 0;     // heap bytes live at the worst moment, data included (0: not measured)
  std::uint64_t minimum_bytes = 0;  // what the tensors must hold: X, dX, 3 W, 3 dW, Q, K, V, 3 upstreams
};

enum class BenchErrorKind {
  Repeat,  // repeat is zero
  Layer,   // the layer rejected the widths
  Tensor,  // a tensor was too large, or an operation failed
};

struct BenchError {
  BenchErrorKind kind;
  std::string detail;  // the library's own message, for Layer and Tensor

  std::string message() const;
};

// The benchmark's layer and data, seeded: SplitMix64(seed) draws the weights (Xavier), then X, then the
// upstream gradients of Q, K and V, uniform in [-1, 1). The scale section (cpp/scale) runs the same.
struct BenchData {
  QkvProjections layer;
  TensorValue input;
  std::vector<TensorValue> upstreams;  // query, key, value
};
// Checks the layer's widths, then the input's size. `prefix` names the weights ("bench.query.weight", ...).
Result<BenchData, BenchError> bench_data(const BenchConfig& config, const std::string& prefix = "bench");
// Empties the gradients of X and the three weights, so that each pass does the same work.
void zero_gradients(BenchData& data);
// One forward and backward pass through L = Σ Q⊙U_Q + Σ K⊙U_K + Σ V⊙U_V; the outputs, for their values.
Result<QkvOutputs, TensorError> forward_backward(const BenchData& data);

// Checks, in order: repeat, then the layer's widths, then the input's size. Gradients of X and the three
// weights are computed, as in the lesson, through L = Σ Q⊙U_Q + Σ K⊙U_K + Σ V⊙U_V (summed by
// sum_of_products: the chapter's bits, without materialising the products).
Result<BenchResult, BenchError> run_qkv_bench(const BenchConfig& config);

// The field lists the front ends convert (see api/lesson_api.hpp): a request's sizes, and the result.
template <class V>
void describe(V& v, const BenchConfig& t) {
  v("batch", t.batch);
  v("tokens", t.tokens);
  v("model_width", t.model_width);
  v("head_width", t.head_width);
  v("repeat", t.repeat);
}
template <class V>
void describe(V& v, const BenchResult& t) {
  v("median_seconds", t.median_seconds);
  v("gflops", t.gflops);
  v("peak_bytes", t.peak_bytes);
  v("minimum_bytes", t.minimum_bytes);
}

}  // namespace qkv
