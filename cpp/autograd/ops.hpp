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
// Σ over every axis of left ⊙ right, as a rank-0 value, with the bits of mul(left, right) reduced by
// repeated sum_axis(0) (each axis in turn from the first, every sum from +0.0 in ascending order; rank 0
// gives the product itself). With equal shapes no product is stored: the forward keeps one running sum per
// element of the shape's axes 2.. and the backward adds g·right into d(left) and g·left into d(right), as
// mul's backward would. Other shapes (broadcasting) go through mul and sum_axis.
Result<TensorValue, TensorError> sum_of_products(const TensorValue& left, const TensorValue& right);

}  // namespace qkv
