#include "bench/core_bench.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "attention/qkv.hpp"
#include "autograd/ops.hpp"
#include "bench/allocation_counter.hpp"
#include "bench/bench_cost.hpp"
#include "tensor/gemm.hpp"

namespace qkv {
namespace {

Result<Tensor, BenchError> uniform_tensor(Shape shape, SplitMix64& rng) {
  auto count = element_count(shape);
  if (!count) return fail(BenchError{BenchErrorKind::Tensor, count.error().message()});
  std::vector<double> values(*count);
  for (double& value : values) value = 2.0 * rng.next_unit_f64() - 1.0;  // [-1, 1)
  return std::move(Tensor::from_values(std::move(shape), std::move(values))).value();
}

}  // namespace

Result<BenchData, BenchError> bench_data(const BenchConfig& config, const std::string& prefix) {
  SplitMix64 rng(config.seed);
  auto layer = QkvProjections::create(prefix, config.model_width, config.head_width, rng);
  if (!layer) return fail(BenchError{BenchErrorKind::Layer, layer.error().message()});
  auto x = uniform_tensor({config.batch, config.tokens, config.model_width}, rng);
  if (!x) return fail(x.error());
  auto input = TensorValue::parameter(std::move(*x));
  if (!input) return fail(BenchError{BenchErrorKind::Tensor, input.error().message()});
  std::vector<TensorValue> upstreams;
  for (int i = 0; i < 3; ++i) {
    auto values = uniform_tensor({config.batch, config.tokens, config.head_width}, rng);
    if (!values) return fail(values.error());
    auto constant = TensorValue::constant(std::move(*values));
    if (!constant) return fail(BenchError{BenchErrorKind::Tensor, constant.error().message()});
    upstreams.push_back(std::move(*constant));
  }
  return BenchData{std::move(*layer), std::move(*input), std::move(upstreams)};
}

void zero_gradients(BenchData& data) {
  data.input.zero_gradient();
  for (const NamedParameter& parameter : data.layer.parameters())
    TensorValue(parameter.value()).zero_gradient();
}

Result<QkvOutputs, TensorError> forward_backward(const BenchData& data) {
  auto outputs = data.layer.forward(data.input);
  if (!outputs) return fail(*outputs.error().linear->tensor);  // widths were checked: only tensor errors
  const TensorValue branches[3] = {outputs->query, outputs->key, outputs->value};
  std::optional<TensorValue> loss;
  for (std::size_t i = 0; i < 3; ++i) {
    // Σ output ⊙ upstream without storing the products: the bits of the chapter's mul and repeated
    // sum_axis(0) (autograd/ops.hpp), in less memory.
    auto term = sum_of_products(branches[i], data.upstreams[i]);
    if (!term) return fail(term.error());
    if (!loss) {
      loss = std::move(*term);
      continue;
    }
    auto sum = add(*loss, *term);
    if (!sum) return fail(sum.error());
    loss = std::move(*sum);
  }
  auto done = loss->backward();
  if (!done) return fail(done.error());
  return std::move(*outputs);
}

std::string BenchError::message() const {
  switch (kind) {
    case BenchErrorKind::Repeat:
      return "bench repeat must be at least 1, got 0";
    case BenchErrorKind::Budget:
    case BenchErrorKind::Layer:
    case BenchErrorKind::Tensor:
      return detail;
  }
  return "unknown bench error";
}

Result<BenchResult, BenchError> run_qkv_bench(const BenchConfig& config) {
  if (config.repeat == 0) return fail(BenchError{BenchErrorKind::Repeat, ""});
  if (config.repeat > kMaxBenchRepeat)
    return fail(BenchError{BenchErrorKind::Budget, "bench repeat must be at most " +
                                                       std::to_string(kMaxBenchRepeat) + ", got " +
                                                       std::to_string(config.repeat)});
  const auto as_double = [](std::uint64_t value) { return static_cast<double>(value); };
  // The untimed warm-up pass is work too.
  const double cost =
      bench_cost(as_double(config.batch), as_double(config.tokens), as_double(config.model_width),
                 as_double(config.head_width), as_double(config.repeat) + 1);
  if (cost > kMaxBenchFlops) {
    const std::string detail =
        std::to_string(config.repeat) + (config.repeat == 1 ? " timed pass" : " timed passes") +
        " and a warm-up at B " + std::to_string(config.batch) + ", T " + std::to_string(config.tokens) +
        ", d " + std::to_string(config.model_width) + ", h " + std::to_string(config.head_width);
    return fail(BenchError{BenchErrorKind::Budget,
                           BudgetError{"bench", cost, kMaxBenchFlops, detail, "flops"}.message()});
  }
  // The kernel's one-time choice of path (on an AVX-512F CPU its table does not know, it times a 1.6 MB
  // product) happens here, outside the counted heap and the timed passes.
  gemm_plan();
  const std::uint64_t live_before = allocation::live_bytes();
  allocation::reset_peak();

  auto data = bench_data(config);
  if (!data) return fail(data.error());
  const Extent B = config.batch, T = config.tokens, D = config.model_width, H = config.head_width;

  // Each pass starts from empty gradients, so every pass does the same work and holds the same memory.
  const auto pass = [&data]() -> Result<double, BenchError> {
    zero_gradients(*data);
    const auto start = std::chrono::steady_clock::now();
    auto done = forward_backward(*data);
    const auto stop = std::chrono::steady_clock::now();
    if (!done) return fail(BenchError{BenchErrorKind::Tensor, done.error().message()});
    return std::chrono::duration<double>(stop - start).count();
  };
  // An untimed warm-up, as in bench/core_numpy.py: it takes the first touches of the pages the passes use
  // (page faults that cost a virtual machine here as much as the arithmetic) and fills the caches, so that a
  // one-pass run compares warm with warm.
  if (auto warm_up = pass(); !warm_up) return fail(warm_up.error());
  std::vector<double> seconds;
  for (std::uint64_t run = 0; run < config.repeat; ++run) {
    auto timed = pass();
    if (!timed) return fail(timed.error());
    seconds.push_back(*timed);
  }

  std::sort(seconds.begin(), seconds.end());
  const std::size_t middle = seconds.size() / 2;
  BenchResult result;
  result.median_seconds =
      seconds.size() % 2 == 1 ? seconds[middle] : (seconds[middle - 1] + seconds[middle]) / 2.0;
  const double flops = 18.0 * static_cast<double>(B) * T * D * H;
  result.gflops = result.median_seconds > 0.0 ? flops / result.median_seconds / 1e9 : 0.0;
  const std::uint64_t peak = allocation::peak_bytes();
  result.peak_bytes = peak > live_before ? peak - live_before : 0;
  result.minimum_bytes = 8 * (2 * B * T * D + 6 * D * H + 6 * B * T * H);
  return result;
}

std::string proportion_remark(double work_ratio, double time_ratio, std::uint64_t larger_runs,
                              std::uint64_t smaller_runs) {
  if (!(work_ratio > 0.0) || !(time_ratio > 0.0)) return "";
  const double share = time_ratio / work_ratio;
  if (share < 0.75 || share > 4.0 / 3.0)
    return ": not in proportion to the work. A ratio this far off is spread between the timings (the larger "
           "size averaged over " +
           std::to_string(larger_runs) + (larger_runs == 1 ? " run" : " runs") + ", the smaller over " +
           std::to_string(smaller_runs) + (smaller_runs == 1 ? " run" : " runs") +
           ", each after an untimed first run), not a cost this measurement shows";
  return ": about in proportion to the work";
}

namespace api {

BenchResponse bench(const BenchRequest& request) {
  const std::pair<const char*, std::optional<Extent>> sizes[] = {{"batch", request.batch},
                                                                 {"tokens", request.tokens},
                                                                 {"model_width", request.model_width},
                                                                 {"head_width", request.head_width}};
  for (const auto& [name, size] : sizes) {
    if (!size)
      return refusal<BenchResponse>(
          {ErrorKind::Arguments, std::string("request.") + name + " is missing", name});
  }
  BenchConfig config;
  config.batch = *request.batch;
  config.tokens = *request.tokens;
  config.model_width = *request.model_width;
  config.head_width = *request.head_width;
  config.repeat = request.repeat;
  auto result = run_qkv_bench(config);
  if (!result) {
    const ErrorKind kind =
        result.error().kind == BenchErrorKind::Budget ? ErrorKind::Budget : ErrorKind::Arguments;
    return refusal<BenchResponse>({kind, result.error().message()});
  }
  BenchResponse out;
  out.ok = true;
  out.median_seconds = result->median_seconds;
  out.gflops = result->gflops;
  out.peak_bytes = result->peak_bytes;
  out.minimum_bytes = result->minimum_bytes;
  return out;
}

}  // namespace api
}  // namespace qkv
