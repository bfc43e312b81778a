#include "tensor/tensor.hpp"

#include <cmath>
#include <cstdio>

namespace qkv {
namespace {

std::string format_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

// Row-major strides of `shape`.
std::vector<Extent> strides_of(const Shape& shape) {
  std::vector<Extent> strides(shape.size(), 1);
  for (std::size_t axis = shape.size(); axis-- > 1;) strides[axis - 1] = strides[axis] * shape[axis];
  return strides;
}

Extent product(const Shape& shape) {
  Extent count = 1;
  for (Extent extent : shape) count *= extent;
  return count;
}

// For every element of `out_shape` in row-major order, the flat offset of the element of `operand_shape`
// that broadcasting maps to it. Shapes are aligned from the right; a missing or unit axis repeats.
std::vector<Extent> broadcast_offsets(const Shape& out_shape, const Shape& operand_shape) {
  const std::size_t rank = out_shape.size();
  const std::size_t skipped = rank - operand_shape.size();
  const std::vector<Extent> operand_strides = strides_of(operand_shape);
  std::vector<Extent> stride(rank, 0);
  for (std::size_t axis = skipped; axis < rank; ++axis) {
    if (operand_shape[axis - skipped] != 1) stride[axis] = operand_strides[axis - skipped];
  }
  const Extent count = product(out_shape);
  std::vector<Extent> offsets(count);
  std::vector<Extent> index(rank, 0);
  Extent offset = 0;
  for (Extent flat = 0; flat < count; ++flat) {
    offsets[flat] = offset;
    // Advance the multi-index like an odometer, keeping the operand offset in step.
    for (std::size_t axis = rank; axis-- > 0;) {
      offset += stride[axis];
      if (++index[axis] < out_shape[axis]) break;
      offset -= stride[axis] * index[axis];
      index[axis] = 0;
    }
  }
  return offsets;
}

Shape leading(const Shape& shape) { return Shape(shape.begin(), shape.end() - 2); }

// gemm's arguments for one batch. Extents are 64-bit everywhere; sizes in memory are size_t, 32 bits in
// wasm32, and every tensor has at most kMaxElements values, so the narrowing is exact.
GemmArgs gemm_args(Extent n, Extent m, Extent k, const double* a, Transpose a_layout, const double* b,
                   Transpose b_layout, double* c, Accumulate accumulate) {
  return {static_cast<std::size_t>(n),
          static_cast<std::size_t>(m),
          static_cast<std::size_t>(k),
          a,
          a_layout,
          b,
          b_layout,
          c,
          accumulate};
}

}  // namespace

std::string format_shape(const Shape& shape) {
  std::string text = "[";
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    if (axis > 0) text += ",";
    text += std::to_string(shape[axis]);
  }
  return text + "]";
}

std::string format_count(std::uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string TensorError::message() const {
  switch (kind) {
    case TensorErrorKind::DataLength:
      return "shape needs " + format_count(expected_count) + " values, but data has " +
             format_count(actual_count);
    case TensorErrorKind::TooLarge:
      return "shape " + format_shape(actual) + " has more than " + format_count(kMaxElements) + " elements";
    case TensorErrorKind::NonFinite:
      return operation + " must be finite, got " + format_number(value) + " at index " +
             std::to_string(index);
    case TensorErrorKind::RankTooLow:
      return operation + " needs rank at least " + std::to_string(expected_count) + ", got rank " +
             std::to_string(actual_count);
    case TensorErrorKind::InnerMismatch:
      return "matmul inner widths must match, got " + format_count(expected_count) + " and " +
             format_count(actual_count);
    case TensorErrorKind::Broadcast:
      return operation + " cannot broadcast shapes " + format_shape(expected) + " and " +
             format_shape(actual);
    case TensorErrorKind::AxisOutOfRange:
      return "sum_axis axis " + std::to_string(index) + " is out of range for rank " +
             std::to_string(actual_count);
    case TensorErrorKind::ReshapeCount:
      return "reshape cannot turn " + format_count(actual_count) + " values into shape " +
             format_shape(expected) + " of " + format_count(expected_count) + " values";
    case TensorErrorKind::BackwardOutput:
      return actual_count != 0 ? "backward needs a rank-0 output, got rank " + std::to_string(actual_count)
                               : "backward needs an output that depends on a parameter";
    case TensorErrorKind::SeedShape:
      return "backward seed must have shape " + format_shape(expected) + ", got " + format_shape(actual);
  }
  return "unknown tensor error";
}

Result<Extent, TensorError> element_count(const Shape& shape) {
  for (Extent extent : shape) {
    if (extent == 0) return Extent{0};
  }
  Extent count = 1;
  for (Extent extent : shape) {
    // count * extent > kMaxElements, tested without overflowing.
    if (extent > kMaxElements / count) {
      TensorError error{TensorErrorKind::TooLarge, "shape"};
      error.actual = shape;
      return fail(error);
    }
    count *= extent;
  }
  return count;
}

Result<Tensor, TensorError> Tensor::from_values(Shape shape, std::vector<double> values) {
  auto count = element_count(shape);
  if (!count) return fail(count.error());
  if (*count != values.size()) {
    TensorError error{TensorErrorKind::DataLength, "tensor"};
    error.expected_count = *count;
    error.actual_count = values.size();
    return fail(error);
  }
  return Tensor(std::move(shape), std::move(values));
}

Result<Tensor, TensorError> Tensor::zeros(Shape shape) {
  auto count = element_count(shape);
  if (!count) return fail(count.error());
  return Tensor(std::move(shape), std::vector<double>(*count, 0.0));
}

Tensor Tensor::scalar(double value) { return Tensor({}, {value}); }

std::int64_t first_non_finite(const Tensor& tensor) {
  for (std::size_t index = 0; index < tensor.size(); ++index) {
    if (!std::isfinite(tensor[index])) return static_cast<std::int64_t>(index);
  }
  return -1;
}

Result<Shape, TensorError> broadcast_shapes(const std::string& operation, const Shape& left,
                                            const Shape& right) {
  const std::size_t rank = std::max(left.size(), right.size());
  Shape shape(rank);
  for (std::size_t axis = 0; axis < rank; ++axis) {
    // Align from the right; a missing axis acts as extent 1.
    const Extent l = axis + left.size() >= rank ? left[axis + left.size() - rank] : 1;
    const Extent r = axis + right.size() >= rank ? right[axis + right.size() - rank] : 1;
    if (l != r && l != 1 && r != 1) {
      TensorError error{TensorErrorKind::Broadcast, operation};
      error.expected = left;
      error.actual = right;
      return fail(error);
    }
    shape[axis] = l == 1 ? r : l;
  }
  // No size check here: a batch shape alone is never allocated; callers check what they allocate.
  return shape;
}

Result<Tensor, TensorError> matmul(const Tensor& left, const Tensor& right) {
  for (const Tensor* operand : {&left, &right}) {
    if (operand->rank() < 2) {
      TensorError error{TensorErrorKind::RankTooLow, "matmul"};
      error.expected_count = 2;
      error.actual_count = operand->rank();
      return fail(error);
    }
  }
  const Extent rows = left.shape()[left.rank() - 2];
  const Extent inner = left.shape()[left.rank() - 1];
  const Extent cols = right.shape()[right.rank() - 1];
  if (right.shape()[right.rank() - 2] != inner) {
    TensorError error{TensorErrorKind::InnerMismatch, "matmul"};
    error.expected_count = inner;
    error.actual_count = right.shape()[right.rank() - 2];
    return fail(error);
  }
  auto batch = broadcast_shapes("matmul", leading(left.shape()), leading(right.shape()));
  if (!batch) return fail(batch.error());
  Shape out_shape = *batch;
  out_shape.push_back(rows);
  out_shape.push_back(cols);
  auto out = Tensor::zeros(out_shape);
  if (!out) return out;
  if (out->size() == 0) return out;  // an empty result needs no batch offsets (the batch may still be huge)

  const std::vector<Extent> left_batches = broadcast_offsets(*batch, leading(left.shape()));
  const std::vector<Extent> right_batches = broadcast_offsets(*batch, leading(right.shape()));
  for (std::size_t b = 0; b < left_batches.size(); ++b) {
    gemm(gemm_args(rows, cols, inner, left.values().data() + left_batches[b] * rows * inner, Transpose::No,
                   right.values().data() + right_batches[b] * inner * cols, Transpose::No,
                   out->mutable_values().data() + b * rows * cols, Accumulate::No));
  }
  return out;
}

Result<Tensor, TensorError> transpose_last(const Tensor& tensor) {
  if (tensor.rank() < 2) {
    TensorError error{TensorErrorKind::RankTooLow, "transpose"};
    error.expected_count = 2;
    error.actual_count = tensor.rank();
    return fail(error);
  }
  Shape shape = tensor.shape();
  const Extent rows = shape[shape.size() - 2];
  const Extent cols = shape[shape.size() - 1];
  std::swap(shape[shape.size() - 2], shape[shape.size() - 1]);
  std::vector<double> values(tensor.size());
  const Extent matrix = rows * cols;
  for (Extent base = 0; base < tensor.size(); base += matrix) {
    for (Extent i = 0; i < rows; ++i) {
      for (Extent j = 0; j < cols; ++j) values[base + j * rows + i] = tensor[base + i * cols + j];
    }
  }
  return Tensor::from_values(std::move(shape), std::move(values));
}

namespace {

template <class Combine>
Result<Tensor, TensorError> elementwise(const std::string& operation, const Tensor& left, const Tensor& right,
                                        Combine combine) {
  if (left.shape() == right.shape()) {  // nothing broadcasts: walk both in step
    std::vector<double> values(left.size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = combine(left[i], right[i]);
    return Tensor::from_values(left.shape(), std::move(values));
  }
  auto shape = broadcast_shapes(operation, left.shape(), right.shape());
  if (!shape) return fail(shape.error());
  auto count = element_count(*shape);
  if (!count) return fail(count.error());
  const std::vector<Extent> l = broadcast_offsets(*shape, left.shape());
  const std::vector<Extent> r = broadcast_offsets(*shape, right.shape());
  std::vector<double> values(l.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = combine(left[l[i]], right[r[i]]);
  return Tensor::from_values(std::move(*shape), std::move(values));
}

}  // namespace

Result<Tensor, TensorError> add(const Tensor& left, const Tensor& right) {
  return elementwise("add", left, right, [](double a, double b) { return a + b; });
}

Result<Tensor, TensorError> multiply(const Tensor& left, const Tensor& right) {
  return elementwise("mul", left, right, [](double a, double b) { return a * b; });
}

Result<Tensor, TensorError> sum_axis(const Tensor& tensor, std::size_t axis) {
  if (axis >= tensor.rank()) {
    TensorError error{TensorErrorKind::AxisOutOfRange, "sum_axis"};
    error.index = axis;
    error.actual_count = tensor.rank();
    return fail(error);
  }
  const Shape& in = tensor.shape();
  const Extent outer = product(Shape(in.begin(), in.begin() + axis));
  const Extent extent = in[axis];
  const Extent inner = product(Shape(in.begin() + axis + 1, in.end()));
  Shape shape = in;
  shape.erase(shape.begin() + axis);
  // Summing an empty axis can leave many values: check the result's size before allocating it.
  auto count = element_count(shape);
  if (!count) return fail(count.error());
  std::vector<double> values(*count, 0.0);
  for (Extent o = 0; o < outer; ++o) {
    for (Extent i = 0; i < inner; ++i) {
      double sum = 0.0;
      for (Extent a = 0; a < extent; ++a) sum += tensor[(o * extent + a) * inner + i];
      values[o * inner + i] = sum;
    }
  }
  return Tensor::from_values(std::move(shape), std::move(values));
}

Tensor repeat_axis(const Tensor& tensor, std::size_t axis, Extent extent) {
  const Shape& in = tensor.shape();
  const Extent outer = product(Shape(in.begin(), in.begin() + axis));
  const Extent inner = product(Shape(in.begin() + axis, in.end()));
  Shape shape = in;
  shape.insert(shape.begin() + axis, extent);
  std::vector<double> values(outer * extent * inner);
  for (Extent o = 0; o < outer; ++o) {
    for (Extent a = 0; a < extent; ++a) {
      for (Extent i = 0; i < inner; ++i) values[(o * extent + a) * inner + i] = tensor[o * inner + i];
    }
  }
  return Tensor::from_values(std::move(shape), std::move(values)).value();
}

Result<Tensor, TensorError> reshape(const Tensor& tensor, Shape shape) {
  auto count = element_count(shape);
  if (!count) return fail(count.error());
  if (*count != tensor.size()) {
    TensorError error{TensorErrorKind::ReshapeCount, "reshape"};
    error.expected = shape;
    error.expected_count = *count;
    error.actual_count = tensor.size();
    return fail(error);
  }
  return Tensor::from_values(std::move(shape), tensor.values());
}

void add_into(Tensor& into, const Tensor& term) {
  std::vector<double>& values = into.mutable_values();
  for (std::size_t i = 0; i < values.size(); ++i) values[i] += term[i];
}

Tensor sum_to_shape(Tensor tensor, const Shape& shape) {
  if (tensor.shape() == shape) {  // nothing to sum: each value is only added to the +0.0 start
    for (double& value : tensor.mutable_values()) value = 0.0 + value;
    return tensor;
  }
  std::vector<double> values(product(shape), 0.0);
  const std::vector<Extent> offsets = broadcast_offsets(tensor.shape(), shape);
  for (std::size_t i = 0; i < offsets.size(); ++i) values[offsets[i]] += tensor[i];
  return Tensor::from_values(shape, std::move(values)).value();
}

void accumulate(std::optional<Tensor>& sum, Tensor term) {
  if (sum) return add_into(*sum, term);
  for (double& value : term.mutable_values()) value = 0.0 + value;
  sum = std::move(term);
}

void accumulate_matmul(std::optional<Tensor>& sum, const Shape& shape, const Tensor& left,
                       Transpose left_layout, const Tensor& right, Transpose right_layout) {
  const Shape& l = left.shape();
  const Shape& r = right.shape();
  const Extent n = l[l.size() - (left_layout == Transpose::No ? 2 : 1)];
  const Extent k = l[l.size() - (left_layout == Transpose::No ? 1 : 2)];
  const Extent m = r[r.size() - (right_layout == Transpose::No ? 1 : 2)];
  const Shape batch = broadcast_shapes("matmul", leading(l), leading(r)).value();
  if (n == 0 || m == 0 || product(batch) == 0) {  // an empty product sums to +0.0 everywhere
    if (!sum) sum = Tensor::zeros(shape).value();
    for (double& value : sum->mutable_values()) value = value + 0.0;
    return;
  }
  const std::vector<Extent> left_batches = broadcast_offsets(batch, leading(l));
  const std::vector<Extent> right_batches = broadcast_offsets(batch, leading(r));
  const std::vector<Extent> targets = broadcast_offsets(batch, leading(shape));
  if (sum && targets.size() != product(leading(shape))) {
    // Several product batches meet in one target: sum them on their own first, as sum_to_shape does,
    // then add that to the existing sum.
    std::optional<Tensor> term;
    accumulate_matmul(term, shape, left, left_layout, right, right_layout);
    return add_into(*sum, *term);
  }
  // Products are sums that start at +0.0, so they are never -0.0, and +0.0 + P is P: the first product
  // for a target can be stored instead of added to zeros. Later ones (ascending batch order, like
  // sum_to_shape) are added.
  const bool fresh = !sum;
  if (fresh) sum = Tensor::zeros(shape).value();
  std::vector<bool> stored(product(leading(shape)), !fresh);
  for (std::size_t b = 0; b < targets.size(); ++b) {
    const Extent t = targets[b];
    gemm(gemm_args(n, m, k, left.values().data() + left_batches[b] * n * k, left_layout,
                   right.values().data() + right_batches[b] * k * m, right_layout,
                   sum->mutable_values().data() + t * n * m, stored[t] ? Accumulate::Yes : Accumulate::No));
    stored[t] = true;
  }
}

}  // namespace qkv
