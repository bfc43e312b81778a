// Tensor: a row-major block of binary64 values with an explicit shape, and the kernels the tape uses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/result.hpp"
#include "tensor/gemm.hpp"

namespace qkv {

// 64-bit extents on every target: wasm32's size_t is 32 bits, the course's usize is 64.
using Extent = std::uint64_t;
using Shape = std::vector<Extent>;

// The largest tensor we agree to allocate (2^26 values, 512 MiB): beyond it, a clear error instead of
// an out-of-memory kill natively or a trap in the browser.
inline constexpr Extent kMaxElements = Extent{1} << 26;

enum class TensorErrorKind {
  DataLength,      // values do not fill the shape
  TooLarge,        // shape has more elements than kMaxElements
  NonFinite,       // a parameter, constant or result holds NaN or infinity
  RankTooLow,      // an operation needs more axes
  InnerMismatch,   // matmul's contracted widths differ
  Broadcast,       // two shapes cannot be broadcast together
  AxisOutOfRange,  // sum_axis beyond the rank
  ReshapeCount,    // reshape changes the element count
  BackwardOutput,  // backward() needs a tracked rank-0 output
  SeedShape,       // backward_with_seed() needs a seed of the output's shape
};

struct TensorError {
  TensorError(TensorErrorKind kind, std::string operation) : kind(kind), operation(std::move(operation)) {}

  TensorErrorKind kind;
  std::string operation;  // what was rejected ("matmul", "parameter", "gradient", ...)
  Shape expected;         // shapes involved, when there are any
  Shape actual;
  Extent expected_count = 0;
  Extent actual_count = 0;
  Extent index = 0;
  double value = 0.0;

  std::string message() const;
};

std::string format_shape(const Shape& shape);
// A whole number as messages write it for people, thousands grouped with commas: "960", "24,000",
// "67,108,864" (text/format.hpp holds the other formats; this one is here so the core's messages can use it).
std::string format_count(std::uint64_t value);

// Number of elements, or an error if it exceeds kMaxElements (checked without overflow).
Result<Extent, TensorError> element_count(const Shape& shape);

class Tensor {
 public:
  Tensor() : values_{0.0} {}  // rank 0, value +0.0
  // Validates that the values fill the shape exactly; values may be any doubles (finiteness is a tape rule).
  static Result<Tensor, TensorError> from_values(Shape shape, std::vector<double> values);
  static Result<Tensor, TensorError> zeros(Shape shape);
  static Tensor scalar(double value);

  const Shape& shape() const { return shape_; }
  std::size_t rank() const { return shape_.size(); }
  std::size_t size() const { return values_.size(); }
  const std::vector<double>& values() const { return values_; }
  std::vector<double>& mutable_values() { return values_; }
  double operator[](std::size_t index) const { return values_[index]; }

 private:
  Tensor(Shape shape, std::vector<double> values) : shape_(std::move(shape)), values_(std::move(values)) {}
  Shape shape_;
  std::vector<double> values_;
};

// Index of the first NaN or infinity, or -1 when every value is finite.
std::int64_t first_non_finite(const Tensor& tensor);

// Kernels: plain functions on values, no tape. Each sum starts at +0.0 and runs in ascending index order.

// [..., n, k] · [..., k, m] -> [..., n, m]; the leading (batch) axes broadcast, aligned from the right.
Result<Tensor, TensorError> matmul(const Tensor& left, const Tensor& right);
// Swaps the last two axes: [..., n, m] -> [..., m, n].
Result<Tensor, TensorError> transpose_last(const Tensor& tensor);
// Elementwise with trailing-aligned broadcasting.
Result<Tensor, TensorError> add(const Tensor& left, const Tensor& right);
Result<Tensor, TensorError> multiply(const Tensor& left, const Tensor& right);
// Sums one axis away (an empty axis sums to +0.0).
Result<Tensor, TensorError> sum_axis(const Tensor& tensor, std::size_t axis);
// Inserts an axis of extent `extent` at `axis`, repeating the values along it (the adjoint of sum_axis).
Tensor repeat_axis(const Tensor& tensor, std::size_t axis, Extent extent);
Result<Tensor, TensorError> reshape(const Tensor& tensor, Shape shape);
// Sums a broadcast result back to `shape` (the adjoint of broadcasting), each sum starting at +0.0.
Tensor sum_to_shape(Tensor tensor, const Shape& shape);
// into += term, elementwise; the shapes must already be equal (the tape guarantees it).
void add_into(Tensor& into, const Tensor& term);

// Sums built term by term (the tape's adjoints). An empty `sum` stands for +0.0 zeros of the term's
// shape, so a sum is allocated only when its first term arrives.
// sum += term; the first term is added to the zeros in place (which only turns -0.0 into +0.0).
void accumulate(std::optional<Tensor>& sum, Tensor term);
// sum += sum_to_shape(op(left) · op(right), shape): matmul's backward without materialising a transpose
// or the broadcast product. `left` is [..., n, k] (or [..., k, n] with Transpose::Yes), `right` is
// [..., k, m] (or [..., m, k]); their batch axes broadcast, and `shape` must be [..., n, m] with batch axes
// that the product's broadcast to. The forward matmul has checked all of this.
void accumulate_matmul(std::optional<Tensor>& sum, const Shape& shape, const Tensor& left,
                       Transpose left_layout, const Tensor& right, Transpose right_layout);
// Result shape of broadcasting `left` with `right`, trailing-aligned.
Result<Shape, TensorError> broadcast_shapes(const std::string& operation, const Shape& left,
                                            const Shape& right);

}  // namespace qkv
