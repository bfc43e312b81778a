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

// ---- sum_of_products: out = Σ left ⊙ right ---------------------------------------------------------------
Result<TensorValue, TensorError> sum_of_products(const TensorValue& left, const TensorValue& right) {
  if (left.shape() != right.shape()) {
    auto total = mul(left, right);
    while (total && !total->shape().empty()) total = sum_axis(*total, 0);
    return total;
  }
  const Shape& shape = left.shape();
  const std::vector<double>& a = left.value().values();
  const std::vector<double>& b = right.value().values();
  double out = 0.0;
  if (shape.empty()) {
    out = a[0] * b[0];  // mul alone: no sum_axis runs on a rank-0 product
  } else if (shape.size() == 1) {
    for (Extent i = 0; i < shape[0]; ++i) out += a[i] * b[i];
  } else {
    // Level 1 sums axis 0 for each index j of axes 1.. (j ascending); level 2 adds each into the running
    // sum of its index of axes 2.. (j % rest), which thus receives them in ascending order of axis 1.
    // Axes 2.. are then reduced as sum_axis would reduce them.
    Extent rest = 1;
    for (std::size_t axis = 2; axis < shape.size(); ++axis) rest *= shape[axis];
    const Extent inner = rest * shape[1];
    std::vector<double> level2(rest, 0.0);
    for (Extent j = 0; j < inner; ++j) {
      double level1 = 0.0;
      for (Extent i = 0; i < shape[0]; ++i) level1 += a[i * inner + j] * b[i * inner + j];
      level2[j % rest] += level1;
    }
    Tensor sums = checked(Tensor::from_values(Shape(shape.begin() + 2, shape.end()), std::move(level2)));
    while (!sums.shape().empty()) sums = checked(sum_axis(sums, 0));
    out = sums.values()[0];
  }
  return TensorValue::from_operation(
      "sum_of_products result", checked(Tensor::from_values({}, {out})), {left, right},
      [left, right](const Tensor& up, const std::vector<std::optional<Tensor>*>& adjoints) {
        // d(left) += g·right, d(right) += g·left (g = the rank-0 up), each product g·x as mul's backward
        // forms it from the repeated g.
        const double g = up.values()[0];
        const auto scaled = [g](const Tensor& x) {
          Tensor term = x;
          for (double& value : term.mutable_values()) value = g * value;
          return term;
        };
        if (adjoints[0]) accumulate(*adjoints[0], scaled(right.value()));
        if (adjoints[1]) accumulate(*adjoints[1], scaled(left.value()));
      });
}

}  // namespace qkv
