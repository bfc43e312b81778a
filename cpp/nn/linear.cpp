#include "nn/linear.hpp"

#include "autograd/ops.hpp"

namespace qkv {
namespace {

LinearError error_of(LinearErrorKind kind, Extent expected = 0, Extent actual = 0) {
  return LinearError{kind, expected, actual};
}

LinearError wrap(InitializationError error) {
  LinearError wrapped{LinearErrorKind::Initialization};
  wrapped.initialization = std::move(error);
  return wrapped;
}

LinearError wrap(TensorError error) {
  LinearError wrapped{LinearErrorKind::Tensor};
  wrapped.tensor = std::move(error);
  return wrapped;
}

}  // namespace

std::string LinearError::message() const {
  const std::string e = std::to_string(expected);
  const std::string a = std::to_string(actual);
  switch (kind) {
    case LinearErrorKind::WeightRank:
      return "linear weight must have rank two, got rank " + a;
    case LinearErrorKind::ZeroInputWidth:
      return "linear input width must be greater than zero";
    case LinearErrorKind::ZeroOutputWidth:
      return "linear output width must be greater than zero";
    case LinearErrorKind::BiasRank:
      return "linear bias must have rank one, got rank " + a;
    case LinearErrorKind::BiasWidthMismatch:
      return "linear bias width must equal output width " + e + ", got " + a;
    case LinearErrorKind::InputRank:
      return "linear input must have at least one feature axis, got rank " + a;
    case LinearErrorKind::InputWidthMismatch:
      return "linear input final width must equal " + e + ", got " + a;
    case LinearErrorKind::Initialization:
      return initialization->message();
    case LinearErrorKind::Tensor:
      return tensor->message();
  }
  return "unknown linear error";
}

Result<Linear, LinearError> Linear::from_parameters(NamedParameter weight,
                                                    std::optional<NamedParameter> bias) {
  const Shape& w = weight.shape();
  if (w.size() != 2) return fail(error_of(LinearErrorKind::WeightRank, 2, w.size()));
  if (w[0] == 0) return fail(error_of(LinearErrorKind::ZeroInputWidth));
  if (w[1] == 0) return fail(error_of(LinearErrorKind::ZeroOutputWidth));
  if (bias) {
    const Shape& b = bias->shape();
    if (b.size() != 1) return fail(error_of(LinearErrorKind::BiasRank, 1, b.size()));
    if (b[0] != w[1]) return fail(error_of(LinearErrorKind::BiasWidthMismatch, w[1], b[0]));
  }
  std::vector<NamedParameter> listed{weight};
  if (bias) listed.push_back(*bias);
  auto unique = NamedParameters::create(std::move(listed));
  if (!unique) return fail(wrap(unique.error()));
  return Linear(std::move(weight), std::move(bias));
}

Result<Linear, LinearError> Linear::create(const std::string& prefix, Extent input_width, Extent output_width,
                                           bool bias, SplitMix64& rng) {
  SplitMix64 trial = rng;
  auto weight = xavier_uniform(prefix + ".weight", input_width, output_width, trial);
  if (!weight) {
    // Xavier speaks of fans; a linear layer speaks of widths.
    switch (weight.error().kind) {
      case InitializationErrorKind::ZeroFanIn:
        return fail(error_of(LinearErrorKind::ZeroInputWidth));
      case InitializationErrorKind::ZeroFanOut:
        return fail(error_of(LinearErrorKind::ZeroOutputWidth));
      default:
        return fail(wrap(weight.error()));
    }
  }
  std::optional<NamedParameter> bias_parameter;
  if (bias) {
    auto zeros = Tensor::zeros({output_width});
    if (!zeros) return fail(wrap(zeros.error()));
    auto created = NamedParameter::create(prefix + ".bias", std::move(*zeros));
    if (!created) return fail(wrap(created.error()));
    bias_parameter = std::move(*created);
  }
  auto layer = from_parameters(std::move(*weight), std::move(bias_parameter));
  if (!layer) return layer;
  rng = trial;
  return layer;
}

Result<TensorValue, LinearError> Linear::forward(const TensorValue& input) const {
  const Shape& shape = input.shape();
  if (shape.empty()) return fail(error_of(LinearErrorKind::InputRank, 1, 0));
  if (shape.back() != input_width()) {
    return fail(error_of(LinearErrorKind::InputWidthMismatch, input_width(), shape.back()));
  }
  // A single vector goes through as a one-row matrix and comes back as a vector.
  const bool vector = shape.size() == 1;
  TensorValue rows = input;
  if (vector) {
    auto reshaped = reshape(input, {1, input_width()});
    if (!reshaped) return fail(wrap(reshaped.error()));
    rows = std::move(*reshaped);
  }
  auto out = matmul(rows, weight_.value());
  if (!out) return fail(wrap(out.error()));
  if (bias_) {
    out = add(*out, bias_->value());
    if (!out) return fail(wrap(out.error()));
  }
  if (vector) {
    out = reshape(*out, {output_width()});
    if (!out) return fail(wrap(out.error()));
  }
  return std::move(*out);
}

}  // namespace qkv
