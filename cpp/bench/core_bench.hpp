// Core benchmark: the Q/K/V layer's forward and backward on seeded data, timed, with its peak heap use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attention/qkv.hpp"
#include "response/response.hpp"
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
  Budget,  // repeat, or the work, over the limits in bench/bench_cost.hpp (the detail is the message)
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

// Checks, in order: repeat (at least 1, at most kMaxBenchRepeat), then the work (bench_cost of repeat + 1
// passes, at most kMaxBenchFlops), then the layer's widths, then the input's size; nothing is allocated
// before the work. Runs one untimed warm-up pass, then `repeat` timed passes, and reports their median.
// Gradients of X and the three weights are computed, as in the lesson, through
// L = Σ Q⊙U_Q + Σ K⊙U_K + Σ V⊙U_V (summed by sum_of_products: the chapter's bits, without materialising
// the products).
Result<BenchResult, BenchError> run_qkv_bench(const BenchConfig& config);

// What two timings of `work_ratio` times the work each say about the time, as a sentence's tail for the
// scale section: within three quarters to four thirds of the proportional time, that the time grew about in
// proportion; further off (a ratio below 1 among them), that the ratio is spread between timings, with how
// many runs each time averages, and no cause: the measurement shows none.
std::string proportion_remark(double work_ratio, double time_ratio, std::uint64_t larger_runs,
                              std::uint64_t smaller_runs);

namespace api {

// The benchmark as a call, for the tests' WebAssembly module: {batch, tokens, model_width, head_width[,
// repeat]} -> {ok, median_seconds, gflops, peak_bytes, minimum_bytes} or {ok: false, error}, converted
// through the field lists below like the lesson's calls (api/lesson_api.hpp). Every size is required (a
// missing one would silently bench the defaults); repeat is optional.
struct BenchRequest {
  std::optional<Extent> batch, tokens, model_width, head_width;
  std::uint64_t repeat = BenchConfig{}.repeat;
};
struct BenchResponse {
  bool ok = false;
  double median_seconds = 0.0, gflops = 0.0;
  std::uint64_t peak_bytes = 0, minimum_bytes = 0;
  std::optional<ErrorView> error;
};
BenchResponse bench(const BenchRequest& request);

// clang-format off
QKV_DESCRIBE(BenchRequest) {
  QKV_FIELD(batch); QKV_FIELD(tokens); QKV_FIELD(model_width); QKV_FIELD(head_width); QKV_FIELD(repeat);
}
QKV_DESCRIBE(BenchResponse) {
  QKV_FIELD(ok); QKV_FIELD(median_seconds); QKV_FIELD(gflops); QKV_FIELD(peak_bytes); QKV_FIELD(minimum_bytes);
  QKV_FIELD(error);
}
// clang-format on

}  // namespace api
}  // namespace qkv
