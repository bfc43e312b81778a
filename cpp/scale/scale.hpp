// The scale section's one call: the Q/K/V layer forward and backward at the size of real models, timed on
// the learner's machine, every number formatted here. It is built into its own small WebAssembly module
// (qkv-scale.mjs, CMake target qkv_wasm_scale) with the core and the benchmark's pass, and nothing of the
// lesson's other calls: the page fetches it only when a learner first runs a preset.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "response/response.hpp"

namespace qkv::api {

// Presets (scale/presets.hpp, from web/src/lesson/scale-presets.json): "lesson" [1,2,3]→2, "small"
// [1,128,64]→16, "gpt2-head" [1,1024,768]→64 (GPT-2 small, one head), "gpt2-heads" [1,1024,768]→768 (all
// 12 heads).
struct ScaleRequest {
  std::string preset = "lesson";
};
struct ScaleRunView {
  std::string shape;          // "[1, 1024, 768] → 64"
  std::string multiply_adds;  // forward + backward: 9·B·T·D·H, e.g. "5.4e8"
  std::string seconds;        // one forward + backward, e.g. "48 ms"
  std::string gflops;         // 18·B·T·D·H / seconds / 1e9, e.g. "22.4"
  std::string runs;           // how many runs the time is the mean of
};
struct ScaleSummaryView {
  std::string name, shape, mean, rms, min, max;  // three significant digits each, minus as U+2212
};
struct ScaleResponse {
  bool ok = false;
  std::string preset, label;
  std::string input_shape, weight_shape, output_shape;  // "[B, T, D]", "[D, H]" ×3, "[B, T, H]" ×3
  std::string parameters;                               // 3·D·H, e.g. "1769472"
  ScaleRunView run, smaller;                            // the preset, then T halved
  std::string linear;                                   // the sentence comparing the two runs
  std::vector<ScaleSummaryView> summaries;              // Q, K, V, dX, dW_Q, dW_K, dW_V
  std::optional<ErrorView> error;
};
// The benchmark's seeded data and pass (bench/core_bench.hpp: SplitMix64 26 draws Xavier weights, then X
// and the upstreams uniform in [-1, 1); L = Σ Q⊙U_Q + Σ K⊙U_K + Σ V⊙U_V with the chapter's bits), timed as
// the mean of enough runs to fill 200 ms (at most 1000), at the preset and with T halved; values
// summarised, never listed.
ScaleResponse scale(const ScaleRequest& request);

// The field lists, as in api/lesson_api.hpp: one per type, for the WebAssembly conversions.
// clang-format off
QKV_DESCRIBE(ScaleRequest) { QKV_FIELD(preset); }
QKV_DESCRIBE(ScaleRunView) {
  QKV_FIELD(shape); QKV_FIELD(multiply_adds); QKV_FIELD(seconds); QKV_FIELD(gflops); QKV_FIELD(runs);
}
QKV_DESCRIBE(ScaleSummaryView) {
  QKV_FIELD(name); QKV_FIELD(shape); QKV_FIELD(mean); QKV_FIELD(rms); QKV_FIELD(min); QKV_FIELD(max);
}
QKV_DESCRIBE(ScaleResponse) {
  QKV_FIELD(ok); QKV_FIELD(preset); QKV_FIELD(label); QKV_FIELD(input_shape); QKV_FIELD(weight_shape);
  QKV_FIELD(output_shape); QKV_FIELD(parameters); QKV_FIELD(run); QKV_FIELD(smaller); QKV_FIELD(linear);
  QKV_FIELD(summaries); QKV_FIELD(error);
}
// clang-format on

}  // namespace qkv::api
