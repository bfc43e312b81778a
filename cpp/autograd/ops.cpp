#include "autograd/ops.hpp"

namespace qkv {

// Kernels called from a backward get operands whose shapes the forward already checked.
template <class T>
static T checked(Result<T, TensorError> result) {
  return std::move(result).value();
}

// Backward closures capture operands as TensorValues: handles that share the parents' nodes, never copies.

// ---- matmul: out = left · right -------------------------------------------------------------------------
Result<TensorValue, TensorError> matmul(const TensorValue& left, const TensorValue& right) {
  auto out = matmul(left.value(), right.value());
  if (!out) return fail(out.error());
  return TensorValue::from_operation(
      "matmul result", std::move(*out), {left, right},
      [left, right](const Tensor& up, const std::vector<std::optional<Tensor>*>& adjoints) {
        // d(left) += up · rightᵀ, d(right) += leftᵀ · up; each summed over broadcast batch axes. The
        // kernel reads the transposes in place.
        if (adjoints[0])
          accumulate_matmul(*adjoints[0], left.shape(), up, Transpose::No, right.value(), Transpose::Yes);
        if (adjoints[1])
          accumulate_matmul(*adjoints[1], right.shape(), left.value(), Transpose::Yes, up, Transpose::No);
      });
}

// ---- add: out = left + right ------------------------------------------------------------------------------
Result<TensorValue, TensorError> add(const TensorValue& left, const TensorValue& right) {
  auto out = add(left.value(), right.value());
  if (!out) return fail(out.error());
  return TensorValue::from_operation(
      "add result", std::move(*out), {left, right},
      [l = left.shape(), r = right.shape()](const Tensor& up,
                                            const std::vector<std::optional<Tensor>*>& adjoints) {
        // d(left) += up, d(right) += up; each summed over the axes it was broadcast along.
        if (adjoints[0]) accumulate(*adjoints[0], sum_to_shape(up, l));
        if (adjoints[1]) accumulate(*adjoints[1], sum_to_shape(up, r));
      });
}

// ---- mul: out = left ⊙ right ------------------------------------------------------------------------------
Result<TensorValue, TensorError> mul(const TensorValue& left, const TensorValue& right) {
  auto out = multiply(left.value(), right.value());
  if (!out) return fail(out.error());
  return TensorValue::from_operation(
      "mul result", std::move(*out), {left, right},
      [left, right](const Tensor& up, const std::vector<std::optional<Tensor>*>& adjoints) {
        // d(left) += up ⊙ right, d(right) += up ⊙ left.
        if (adjoints[0])
          accumulate(*adjoints[0], sum_to_shape(checked(multiply(up, right.value())), left.shape()));
        if (adjoints[1])
          accumulate(*adjoints[1], sum_to_shape(checked(multiply(up, left.value())), right.shape()));
      });
}

// ---- sum_axis: out = Σ_axis input -------------------------------------------------------------------------
Result<TensorValue, TensorError> sum_axis(const TensorValue& input, std::size_t axis) {
  auto out = sum_axis(input.value(), axis);
  if (!out) return fail(out.error());
  return TensorValue::from_operation(
      "sum_axis result", std::move(*out), {input},
      [axis, extent = input.shape()[axis]](const Tensor& up,
                                           const std::vector<std::optional<Tensor>*>& adjoints) {
        // d(input) += up repeated along the summed axis.
        if (adjoints[0]) accumulate(*adjoints[0], repeat_axis(up, axis, extent));
      });
}

// ---- reshape: out = input viewed as `shape` ---------------------------------------------------------------
Result<TensorValue, TensorError> reshape(const TensorValue& input, Shape shape) {
  auto out = reshape(input.value(), std::move(shape));
  if (!out) return fail(out.error());
  return TensorValue::from_operation(
      "reshape result", std::move(*out), {input},
      [in = input.shape()](const Tensor& up, const std::vector<std::optional<Tensor>*>& adjoints) {
        // d(input) += up viewed in the input's shape.
        if (adjoints[0]) accumulate(*adjoints[0], checked(reshape(up, in)));
      });
}

}  // namespace qkv
