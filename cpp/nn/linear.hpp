// Linear: y = x · W (+ b), with W of shape [in, out] and an optional bias of shape [out].
#pragma once

#include <optional>

#include "nn/init.hpp"

namespace qkv {

enum class LinearErrorKind {
  WeightRank,
  ZeroInputWidth,
  ZeroOutputWidth,
  BiasRank,
  BiasWidthMismatch,
  InputRank,
  InputWidthMismatch,
  Initialization,  // prints the inner message
  Tensor,          // an operation on the tape failed (a non-finite result); prints the inner message
};

struct LinearError {
  LinearErrorKind kind;
  Extent expected = 0;
  Extent actual = 0;  // also the rank, for the rank errors
  std::optional<InitializationError> initialization;
  std::optional<TensorError> tensor;

  std::string message() const;
};

class Linear {
 public:
  // Checks, in order: weight rank, input width, output width, bias rank, bias width, unique names.
  static Result<Linear, LinearError> from_parameters(NamedParameter weight,
                                                     std::optional<NamedParameter> bias);
  // "{prefix}.weight" (Xavier) and, with bias, "{prefix}.bias" (zeros). `rng` moves only on success.
  static Result<Linear, LinearError> create(const std::string& prefix, Extent input_width,
                                            Extent output_width, bool bias, SplitMix64& rng);

  // Any rank >= 1 whose last axis is the input width; leading axes are kept.
  Result<TensorValue, LinearError> forward(const TensorValue& input) const;

  const NamedParameter& weight() const { return weight_; }
  const std::optional<NamedParameter>& bias() const { return bias_; }
  Extent input_width() const { return weight_.shape()[0]; }
  Extent output_width() const { return weight_.shape()[1]; }
  Extent parameter_count() const { return input_width() * output_width() + (bias_ ? output_width() : 0); }

 private:
  Linear(NamedParameter weight, std::optional<NamedParameter> bias)
      : weight_(std::move(weight)), bias_(std::move(bias)) {}
  NamedParameter weight_;
  std::optional<NamedParameter> bias_;
};

}  // namespace qkv
