// The tape's operations. Each forward sits directly above its backward in ops.cpp.
#pragma once

#include "autograd/tensor_value.hpp"

namespace qkv {

// [..., n, k] · [..., k, m] -> [..., n, m], leading axes broadcast.
Result<TensorValue, TensorError> matmul(const TensorValue& left, const TensorValue& right);
// Elementwise, trailing-aligned broadcasting.
Result<TensorValue, TensorError> add(const TensorValue& left, const TensorValue& right);
Result<TensorValue, TensorError> mul(const TensorValue& left, const TensorValue& right);
// Removes `axis` by summing along it (an empty axis gives +0.0).
Result<TensorValue, TensorError> sum_axis(const TensorValue& input, std::size_t axis);
// Same values, new shape of the same element count.
Result<TensorValue, TensorError> reshape(const TensorValue& input, Shape shape);

}  // namespace qkv
