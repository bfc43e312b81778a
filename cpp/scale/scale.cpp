#include "scale/scale.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "bench/core_bench.hpp"
#include "response/tensor_names.hpp"
#include "scale/presets.hpp"
#include "support/budget.hpp"
#include "text/format.hpp"

namespace qkv::api {
namespace {

std::string three_digits(double value) { return format_significant(value, 3); }

// three_digits with the page's minus sign (U+2212), as prose shows numbers: "−3.21", "4.1e−5".
std::string prose_digits(double value) { return with_minus_sign(three_digits(value)); }

std::string duration_text(double seconds) {
  if (seconds >= 1.0) return three_digits(seconds) + " s";
  if (seconds >= 1e-3) return three_digits(seconds * 1e3) + " ms";
  return three_digits(seconds * 1e6) + " µs";
}

ScaleSummaryView summary(const std::string& name, const Tensor& tensor) {
  double sum = 0.0, squares = 0.0;
  double low = tensor.values().empty() ? 0.0 : tensor.values()[0], high = low;
  for (double value : tensor.values()) {
    sum += value;
    squares += value * value;
    low = std::min(low, value);
    high = std::max(high, value);
  }
  const double count = static_cast<double>(tensor.values().size());
  return {name,
          shape_text(tensor.shape()),
          prose_digits(count > 0 ? sum / count : 0.0),
          prose_digits(count > 0 ? std::sqrt(squares / count) : 0.0),
          prose_digits(low),
          prose_digits(high)};
}

LessonError scale_error(const BenchError& error) {
  return {error.kind == BenchErrorKind::Layer ? ErrorKind::Qkv : ErrorKind::Tensor, error.message()};
}

struct ScaleRun {
  double seconds = 0.0;
  std::uint64_t runs = 0;
  std::optional<BenchData> data;
  std::optional<QkvOutputs> outputs;
};

// Builds the benchmark's seeded layer and data, runs its forward and backward once untimed (a warm-up: the
// first touches of memory, and WebAssembly's baseline tier, would make a slow first run the whole measurement
// at large sizes), then timed until 200 ms have passed (at most 1000 runs, at least one), each from empty
// gradients.
Result<ScaleRun, LessonError> run_scale(Extent batch, Extent tokens, Extent model_width, Extent head_width) {
  BenchConfig config;
  config.batch = batch;
  config.tokens = tokens;
  config.model_width = model_width;
  config.head_width = head_width;
  auto data = bench_data(config, "scale");
  if (!data) return fail(scale_error(data.error()));
  ScaleRun run;
  auto pass = [&]() -> Result<QkvOutputs, LessonError> {
    zero_gradients(*data);
    auto outputs = forward_backward(*data);
    if (!outputs) return fail(LessonError{ErrorKind::Tensor, outputs.error().message()});
    return std::move(*outputs);
  };
  if (auto warm_up = pass(); !warm_up) return fail(warm_up.error());
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0.0;
  while (run.runs == 0 || (elapsed < 0.2 && run.runs < 1000)) {
    auto outputs = pass();
    if (!outputs) return fail(outputs.error());
    ++run.runs;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run.outputs = std::move(*outputs);
  }
  run.seconds = elapsed / static_cast<double>(run.runs);
  run.data = std::move(*data);
  return run;
}

ScaleRunView run_view(const Shape& input, Extent head_width, const ScaleRun& run) {
  const double macs = 9.0 * static_cast<double>(input[0]) * input[1] * input[2] * head_width;
  return {shape_text(input) + " → " + std::to_string(head_width), format_operations(macs),
          duration_text(run.seconds), three_digits(run.seconds > 0 ? 2.0 * macs / run.seconds / 1e9 : 0.0),
          std::to_string(run.runs)};
}

}  // namespace

ScaleResponse scale(const ScaleRequest& request) {
  const ScalePreset* preset = nullptr;
  for (std::size_t i = 0; i < kScalePresetCount; ++i)
    if (request.preset == kScalePresets[i].name) preset = &kScalePresets[i];
  if (!preset)
    return refusal<ScaleResponse>(
        {ErrorKind::Arguments, "unknown scale preset \"" + shortened(request.preset) + "\"", "preset"});
  const Extent B = preset->batch, T = preset->tokens, D = preset->model_width, H = preset->head_width;
  auto run = run_scale(B, T, D, H);
  if (!run) return refusal<ScaleResponse>(run.error());
  const Extent half = T / 2 > 0 ? T / 2 : 1;
  auto smaller = run_scale(B, half, D, H);
  if (!smaller) return refusal<ScaleResponse>(smaller.error());
  ScaleResponse out;
  out.ok = true;
  out.preset = preset->name;
  out.label = preset->label;
  out.input_shape = shape_text({B, T, D});
  out.weight_shape = shape_text({D, H});
  out.output_shape = shape_text({B, T, H});
  out.parameters = std::to_string(3 * D * H);
  out.run = run_view({B, T, D}, H, *run);
  out.smaller = run_view({B, half, D}, H, *smaller);
  const double work_ratio = static_cast<double>(T) / static_cast<double>(half);
  const double time_ratio = smaller->seconds > 0 ? run->seconds / smaller->seconds : 0.0;
  out.linear =
      "Each forward product pairs every entry of X (B·T·D of them) with each of the H columns of its "
      "weight: B·T·D·H multiply-adds. Backward does two products of the same size per branch (U Wᵀ for X̄, "
      "Xᵀ U for the weight's gradient), so the work is 9·B·T·D·H in all: doubling any one of B, T, D or H "
      "doubles it. Here T = " +
      std::to_string(T) + " has " + three_digits(work_ratio) +
      "× the multiply-adds of T = " + std::to_string(half) + ", and took " + three_digits(time_ratio) +
      "× the time on this machine" + proportion_remark(work_ratio, time_ratio, run->runs, smaller->runs) +
      ".";
  // Q, K and V by the tensors' labels (response/tensor_names.hpp); the gradients as written here ("dL/d" +
  // label at run time cost this module 250 bytes of gzip).
  constexpr const char* q = tensor_name<TensorRole::Output>(0).label;
  constexpr const char* k = tensor_name<TensorRole::Output>(1).label;
  constexpr const char* v = tensor_name<TensorRole::Output>(2).label;
  out.summaries = {summary(q, run->outputs->query.value()), summary(k, run->outputs->key.value()),
                   summary(v, run->outputs->value.value()), summary("dL/dX", *run->data->input.gradient())};
  const char* names[3] = {"dL/dW_Q", "dL/dW_K", "dL/dW_V"};
  for (std::size_t i = 0; i < 3; ++i)
    out.summaries.push_back(
        summary(names[i], *TensorValue(run->data->layer.parameters()[i].value()).gradient()));
  return out;
}

}  // namespace qkv::api
