#include "bench/core_bench.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "attention/qkv.hpp"
#include "autograd/ops.hpp"
#include "bench/allocation_counter.hpp"

namespace qkv {
namespace {

Result<Tensor, BenchError> uniform_tensor(Shape shape, SplitMix64& rng) {
  auto count = element_count(shape);
  if (!count) return fail(BenchError{BenchErrorKind::Tensor, count.error().message()});
  std::vector<double> values(*count);
  for (double& value : values) value = 2.0 * rng.next_unit_f64() - 1.0;  // [-1, 1)
  return std::move(Tensor::from_values(std::move(shape), std::move(values))).value();
}

// One forward and backward pass.
Result<Unit, TensorError> forward_backward(const QkvProjections& layer, const TensorValue& input,
                                           const TensorValue (&upstreams)[3]) {
  auto outputs = layer.forward(input);
  if (!outputs) return fail(*outputs.error().linear->tensor);  // widths were checked: only tensor errors
  const TensorValue branches[3] = {outputs->query, outputs->key, outputs->value};
  std::optional<TensorValue> loss;
  for (int i = 0; i < 3; ++i) {
    // Σ output ⊙ upstream without storing the products: the bits of the chapter's mul and repeated
    // sum_axis(0) (autograd/ops.hpp), in less memory.
    auto term = sum_of_products(branches[i], upstreams[i]);
    if (!term) return fail(term.error());
    if (!loss) {
      loss = std::move(*term);
      continue;
    }
    auto sum = add(*loss, *term);
    if (!sum) return fail(sum.error());
    loss = std::move(*sum);
  }
  return loss->backward();
}

}  // namespace

std::string BenchError::message() const {
  switch (kind) {
    case BenchErrorKind::Repeat:
      return "bench repeat must be at least 1, got 0";
    case BenchErrorKind::Layer:
    case BenchErrorKind::Tensor:
      return detail;
  }
  return "unknown bench error";
}

Result<BenchResult, BenchError> run_qkv_bench(const BenchConfig& config) {
  if (config.repeat == 0) return fail(BenchError{BenchErrorKind::Repeat, ""});
  const std::uint64_t live_before = allocation::live_bytes();
  allocation::reset_peak();

  SplitMix64 rng(config.seed);
  auto layer = QkvProjections::create("bench", config.model_width, config.head_width, rng);
  if (!layer) return fail(BenchError{BenchErrorKind::Layer, layer.error().message()});
  const Extent B = config.batch, T = config.tokens, D = config.model_width, H = config.head_width;
  auto x = uniform_tensor({B, T, D}, rng);
  if (!x) return fail(x.error());
  auto input = TensorValue::parameter(std::move(*x));
  if (!input) return fail(BenchError{BenchErrorKind::Tensor, input.error().message()});
  TensorValue upstreams[3] = {*input, *input, *input};  // placeholders, replaced below
  for (TensorValue& upstream : upstreams) {
    auto values = uniform_tensor({B, T, H}, rng);
    if (!values) return fail(values.error());
    auto constant = TensorValue::constant(std::move(*values));
    if (!constant) return fail(BenchError{BenchErrorKind::Tensor, constant.error().message()});
    upstream = std::move(*constant);
  }

  std::vector<double> seconds;
  for (std::uint64_t run = 0; run < config.repeat; ++run) {
    // Each run starts from empty gradients, so every run does the same work and holds the same memory.
    input->zero_gradient();
    for (const NamedParameter& parameter : layer->parameters())
      TensorValue(parameter.value()).zero_gradient();
    const auto start = std::chrono::steady_clock::now();
    auto done = forward_backward(*layer, *input, upstreams);
    const auto stop = std::chrono::steady_clock::now();
    if (!done) return fail(BenchError{BenchErrorKind::Tensor, done.error().message()});
    seconds.push_back(std::chrono::duration<double>(stop - start).count());
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

}  // namespace qkv
