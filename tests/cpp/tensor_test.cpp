// Tensor: shapes, limits and the plain kernels (no tape). Hand-picked values, compared bit for bit.
#include "tensor/tensor.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "support.hpp"

namespace qkv {
namespace {

using namespace qkv::test;

// Shape equal and every value equal bit for bit (so +0.0 and -0.0 differ).
void expect_tensor(const Tensor& actual, const Shape& shape, const std::vector<double>& values) {
  EXPECT_EQ(format_shape(actual.shape()), format_shape(shape));
  EXPECT_EQ(bits(actual.values()), bits(values))
      << "expected " << describe(values) << "\n     got " << describe(actual.values());
}

// A failed kernel is reported as a test failure, not an abort.
void expect_tensor(const Result<Tensor, TensorError>& actual, const Shape& shape,
                   const std::vector<double>& values) {
  if (!actual) {
    ADD_FAILURE() << "unexpected error: " << actual.error().message();
    return;
  }
  expect_tensor(*actual, shape, values);
}

template <class T>
TensorError error_of(const Result<T, TensorError>& result) {
  if (result.ok()) {
    ADD_FAILURE() << "expected an error";
    return TensorError{TensorErrorKind::DataLength, "none"};
  }
  return result.error();
}

constexpr std::uint64_t kPositiveZeroBits = 0;

// ---- construction --------------------------------------------------------------------------------------

TEST(TensorFromValues, AcceptsMatchingLength) {
  auto tensor = Tensor::from_values({2, 3}, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(tensor.ok());
  EXPECT_EQ(tensor->rank(), 2u);
  EXPECT_EQ(tensor->size(), 6u);
  expect_tensor(*tensor, {2, 3}, {1, 2, 3, 4, 5, 6});
}

TEST(TensorFromValues, RejectsWrongLengthWithCounts) {
  const TensorError error = error_of(Tensor::from_values({2, 3}, {1, 2, 3, 4, 5}));
  EXPECT_EQ(error.kind, TensorErrorKind::DataLength);
  EXPECT_EQ(error.expected_count, 6u);
  EXPECT_EQ(error.actual_count, 5u);
  EXPECT_EQ(error.message(), "shape needs 6 values, but data has 5");
  EXPECT_EQ(error_of(Tensor::from_values({2}, {1, 2, 3})).message(), "shape needs 2 values, but data has 3");
}

TEST(TensorFromValues, AcceptsNonFiniteValuesBecauseFinitenessIsATapeRule) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto tensor = Tensor::from_values({2}, {nan, std::numeric_limits<double>::infinity()});
  ASSERT_TRUE(tensor.ok());
  EXPECT_EQ(first_non_finite(*tensor), 0);
  EXPECT_EQ(first_non_finite(make({3}, {1, 2, -std::numeric_limits<double>::infinity()})), 2);
  EXPECT_EQ(first_non_finite(make({3}, {1, 2, 3})), -1);
}

TEST(TensorRankZero, HoldsExactlyOneValue) {
  const Tensor scalar = make({}, {2.5});
  EXPECT_EQ(scalar.rank(), 0u);
  expect_tensor(scalar, {}, {2.5});
  expect_tensor(Tensor::scalar(-4.0), {}, {-4.0});
  // The default tensor is rank 0 holding +0.0.
  expect_tensor(Tensor(), {}, {0.0});
  EXPECT_EQ(error_of(Tensor::from_values({}, {})).message(), "shape needs 1 values, but data has 0");
  EXPECT_EQ(error_of(Tensor::from_values({}, {1, 2})).message(), "shape needs 1 values, but data has 2");
}

TEST(TensorZeroExtent, IsAValidEmptyTensor) {
  for (const Shape& shape : {Shape{0}, Shape{2, 0, 3}, Shape{0, 0}, Shape{3, 0}}) {
    auto tensor = Tensor::from_values(shape, {});
    ASSERT_TRUE(tensor.ok()) << format_shape(shape);
    EXPECT_EQ(tensor->size(), 0u);
    EXPECT_EQ(tensor->shape(), shape);
  }
  EXPECT_EQ(error_of(Tensor::from_values({2, 0, 3}, {1})).message(), "shape needs 0 values, but data has 1");
  // A zero extent makes any other extent harmless: nothing is allocated.
  auto wide_but_empty = Tensor::zeros({0, Extent{1} << 40});
  ASSERT_TRUE(wide_but_empty.ok());
  EXPECT_EQ(wide_but_empty->size(), 0u);
}

TEST(TensorZeros, FillsWithPositiveZero) {
  auto zeros = Tensor::zeros({2, 2});
  ASSERT_TRUE(zeros.ok());
  expect_tensor(*zeros, {2, 2}, {0.0, 0.0, 0.0, 0.0});
}

TEST(TensorTooLarge, IsRejectedBeforeAllocating) {
  // 10^10 doubles would be 80 GB: an attempt to allocate would be killed or throw, not return an error.
  const TensorError from_values = error_of(Tensor::from_values({100000, 100000}, {}));
  EXPECT_EQ(from_values.kind, TensorErrorKind::TooLarge);
  EXPECT_EQ(from_values.actual, (Shape{100000, 100000}));
  EXPECT_EQ(from_values.message(), "shape [100000,100000] has more than 67,108,864 elements");
  EXPECT_EQ(error_of(Tensor::zeros({100000, 100000})).kind, TensorErrorKind::TooLarge);
  // 2^32 · 2^32 wraps a 64-bit product to 0; the check must not be fooled by the overflow.
  EXPECT_EQ(error_of(Tensor::zeros({Extent{1} << 32, Extent{1} << 32})).kind, TensorErrorKind::TooLarge);
  EXPECT_EQ(error_of(Tensor::zeros({Extent{1} << 63, 2, 1})).kind, TensorErrorKind::TooLarge);
}

TEST(TensorTooLarge, LimitIsInclusive) {
  // element_count allocates nothing, so the boundary can be probed directly.
  auto at_limit = element_count({Extent{1} << 13, Extent{1} << 13});
  ASSERT_TRUE(at_limit.ok());
  EXPECT_EQ(*at_limit, kMaxElements);
  EXPECT_EQ(error_of(element_count({kMaxElements + 1})).kind, TensorErrorKind::TooLarge);
  EXPECT_EQ(error_of(element_count({kMaxElements, 2})).kind, TensorErrorKind::TooLarge);
  auto scalar = element_count({});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(*scalar, 1u);
  auto empty = element_count({4, 0, Extent{1} << 62});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, 0u);
}

TEST(TensorFormatShape, JoinsExtentsWithCommas) {
  EXPECT_EQ(format_shape({}), "[]");
  EXPECT_EQ(format_shape({0}), "[0]");
  EXPECT_EQ(format_shape({1, 2, 3}), "[1,2,3]");
  EXPECT_EQ(format_shape({Extent{1} << 40}), "[1099511627776]");
}

// ---- matmul ---------------------------------------------------------------------------------------------

// A = [[1,2,3],[4,5,6]], B = [[7,8],[9,10],[11,12]]: A·B = [[58,64],[139,154]].
const std::vector<double> kA = {1, 2, 3, 4, 5, 6};
const std::vector<double> kB = {7, 8, 9, 10, 11, 12};

TEST(TensorMatmul, MultipliesMatrices) {
  auto product = matmul(make({2, 3}, kA), make({3, 2}, kB));
  ASSERT_TRUE(product.ok());
  expect_tensor(*product, {2, 2}, {58, 64, 139, 154});
}

TEST(TensorMatmul, BroadcastsARank2RightOperandOverTheLeftBatch) {
  // Batch 1 of the left is [[-1,0,1],[2,-2,0.5]]: row 0 · B = [-7+11, -8+12] = [4,4];
  // row 1 · B = [14-18+5.5, 16-20+6] = [1.5,2].
  std::vector<double> left = kA;
  left.insert(left.end(), {-1, 0, 1, 2, -2, 0.5});
  auto product = matmul(make({2, 2, 3}, left), make({3, 2}, kB));
  ASSERT_TRUE(product.ok());
  expect_tensor(*product, {2, 2, 2}, {58, 64, 139, 154, 4, 4, 1.5, 2});
}

TEST(TensorMatmul, BroadcastsAUnitLeftBatchOverTheRightBatch) {
  // Right batch 1 is [[1,0],[0,1],[1,1]]: A · it = [[1+3, 2+3],[4+6, 5+6]] = [[4,5],[10,11]].
  std::vector<double> right = kB;
  right.insert(right.end(), {1, 0, 0, 1, 1, 1});
  auto product = matmul(make({1, 2, 3}, kA), make({2, 3, 2}, right));
  ASSERT_TRUE(product.ok());
  expect_tensor(*product, {2, 2, 2}, {58, 64, 139, 154, 4, 5, 10, 11});
}

TEST(TensorMatmul, BroadcastsBothSidesOfTheBatch) {
  // [2,1,1,1] · [3,1,1] -> [2,3,1,1]: every left scalar times every right scalar.
  auto product = matmul(make({2, 1, 1, 1}, {2, -3}), make({3, 1, 1}, {1, 10, 100}));
  ASSERT_TRUE(product.ok());
  expect_tensor(*product, {2, 3, 1, 1}, {2, 20, 200, -3, -30, -300});
}

TEST(TensorMatmul, EmptyAxes) {
  auto no_rows = matmul(make({0, 3}, {}), make({3, 2}, kB));
  ASSERT_TRUE(no_rows.ok());
  expect_tensor(*no_rows, {0, 2}, {});
  auto empty_batch = matmul(make({0, 2, 3}, {}), make({3, 2}, kB));
  ASSERT_TRUE(empty_batch.ok());
  expect_tensor(*empty_batch, {0, 2, 2}, {});
  // An empty inner axis sums nothing: every entry is +0.0.
  auto no_inner = matmul(make({2, 0}, {}), make({0, 3}, {}));
  ASSERT_TRUE(no_inner.ok());
  expect_tensor(*no_inner, {2, 3}, {0, 0, 0, 0, 0, 0});
}

TEST(TensorMatmul, EmptyResultWithAHugeBatchAllocatesNothing) {
  // [100000000, 0, 3] · [3, 2] is a valid empty product; its batch alone would exceed the element limit.
  auto tall = matmul(make({100000000, 0, 3}, {}), make({3, 2}, kB));
  ASSERT_TRUE(tall.ok()) << tall.error().message();
  expect_tensor(*tall, {100000000, 0, 2}, {});
  // The batch [100000,100000] has 10^10 entries, but every matrix in it is empty.
  auto product = matmul(make({100000, 100000, 0, 3}, {}), make({3, 2}, kB));
  ASSERT_TRUE(product.ok()) << product.error().message();
  expect_tensor(*product, {100000, 100000, 0, 2}, {});
  auto broadcast = matmul(make({100000, 1, 2, 0}, {}), make({100000, 0, 3}, {}));
  EXPECT_EQ(error_of(broadcast).kind, TensorErrorKind::TooLarge);  // 10^10 · 2 · 3 zeros: not empty
}

TEST(TensorMatmul, SumStartsAtPositiveZero) {
  // (-0)·1 + (-0)·1: starting from -0.0 would give -0.0; starting from +0.0 gives +0.0.
  auto product = matmul(make({1, 2}, {-0.0, -0.0}), make({2, 1}, {1, 1}));
  ASSERT_TRUE(product.ok());
  EXPECT_EQ(bits((*product)[0]), kPositiveZeroBits);
}

TEST(TensorMatmul, RejectsInnerMismatch) {
  const TensorError error = error_of(matmul(make({2, 3}, kA), make({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})));
  EXPECT_EQ(error.kind, TensorErrorKind::InnerMismatch);
  EXPECT_EQ(error.message(), "matmul inner widths must match, got 3 and 4");
}

TEST(TensorMatmul, RejectsRankBelowTwoOnEitherSide) {
  const TensorError left = error_of(matmul(make({3}, {1, 2, 3}), make({3, 2}, kB)));
  EXPECT_EQ(left.kind, TensorErrorKind::RankTooLow);
  EXPECT_EQ(left.message(), "matmul needs rank at least 2, got rank 1");
  EXPECT_EQ(error_of(matmul(make({2, 3}, kA), make({3}, {1, 2, 3}))).message(),
            "matmul needs rank at least 2, got rank 1");
  EXPECT_EQ(error_of(matmul(Tensor::scalar(1), make({3, 2}, kB))).message(),
            "matmul needs rank at least 2, got rank 0");
}

TEST(TensorMatmul, RejectsIncompatibleBatches) {
  auto left = Tensor::zeros({2, 2, 3});
  auto right = Tensor::zeros({3, 3, 2});
  const TensorError error = error_of(matmul(*left, *right));
  EXPECT_EQ(error.kind, TensorErrorKind::Broadcast);
  EXPECT_EQ(error.message(), "matmul cannot broadcast shapes [2] and [3]");
}

// ---- transpose_last ------------------------------------------------------------------------------------

TEST(TensorTransposeLast, SwapsTheLastTwoAxesPerBatch) {
  auto matrix = transpose_last(make({2, 3}, kA));
  ASSERT_TRUE(matrix.ok());
  expect_tensor(*matrix, {3, 2}, {1, 4, 2, 5, 3, 6});
  auto batched = transpose_last(make({2, 1, 2}, {1, 2, 3, 4}));
  ASSERT_TRUE(batched.ok());
  expect_tensor(*batched, {2, 2, 1}, {1, 2, 3, 4});
  auto empty = transpose_last(make({0, 3}, {}));
  ASSERT_TRUE(empty.ok());
  expect_tensor(*empty, {3, 0}, {});
}

TEST(TensorTransposeLast, RejectsRankBelowTwo) {
  EXPECT_EQ(error_of(transpose_last(make({3}, {1, 2, 3}))).message(),
            "transpose needs rank at least 2, got rank 1");
}

// ---- add and multiply ---------------------------------------------------------------------------------

TEST(TensorElementwise, SameShape) {
  expect_tensor(add(make({3}, {1, 2, 3}), make({3}, {10, 20, 30})), {3}, {11, 22, 33});
  expect_tensor(multiply(make({3}, {1, 2, 3}), make({3}, {10, 20, -30})), {3}, {10, 40, -90});
}

TEST(TensorElementwise, BroadcastsTrailingAligned) {
  // [2,3] + [3]: the row repeats.
  expect_tensor(add(make({2, 3}, kA), make({3}, {10, 20, 30})), {2, 3}, {11, 22, 33, 14, 25, 36});
  // [2,1] ⊙ [1,3] -> [2,3]: an outer product.
  expect_tensor(multiply(make({2, 1}, {2, -1}), make({1, 3}, {1, 10, 100})), {2, 3},
                {2, 20, 200, -1, -10, -100});
  // A scalar broadcasts into anything, on either side.
  expect_tensor(add(Tensor::scalar(0.5), make({2}, {1, 2})), {2}, {1.5, 2.5});
  expect_tensor(multiply(make({2, 2}, {1, 2, 3, 4}), Tensor::scalar(-2)), {2, 2}, {-2, -4, -6, -8});
  // [3,1] + [2,1,4] -> [2,3,4]: a missing leading axis acts as 1.
  auto sum = add(make({3, 1}, {0, 10, 20}), make({2, 1, 4}, {1, 2, 3, 4, 5, 6, 7, 8}));
  ASSERT_TRUE(sum.ok());
  expect_tensor(*sum, {2, 3, 4}, {1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24,  //
                                  5, 6, 7, 8, 15, 16, 17, 18, 25, 26, 27, 28});
}

TEST(TensorElementwise, EmptyShapesBroadcast) {
  expect_tensor(add(make({0, 3}, {}), make({3}, {1, 2, 3})), {0, 3}, {});
  expect_tensor(multiply(make({0}, {}), make({1}, {5})), {0}, {});
  expect_tensor(multiply(make({2, 1}, {1, 2}), make({0}, {})), {2, 0}, {});
}

TEST(TensorElementwise, RejectsIncompatibleShapes) {
  const TensorError error = error_of(add(make({2, 3}, kA), make({2}, {1, 2})));
  EXPECT_EQ(error.kind, TensorErrorKind::Broadcast);
  EXPECT_EQ(error.expected, (Shape{2, 3}));
  EXPECT_EQ(error.actual, (Shape{2}));
  EXPECT_EQ(error.message(), "add cannot broadcast shapes [2,3] and [2]");
  EXPECT_EQ(error_of(multiply(make({2}, {1, 2}), make({3}, {1, 2, 3}))).message(),
            "mul cannot broadcast shapes [2] and [3]");
  // A zero extent does not broadcast against anything but 1 or 0.
  EXPECT_EQ(error_of(add(make({0}, {}), make({2}, {1, 2}))).message(),
            "add cannot broadcast shapes [0] and [2]");
}

TEST(TensorElementwise, RejectsABroadcastTooLargeBeforeAllocating) {
  // [100000,1] + [100000] would be [100000,100000].
  auto column = Tensor::zeros({100000, 1});
  auto row = Tensor::zeros({100000});
  EXPECT_EQ(error_of(add(*column, *row)).kind, TensorErrorKind::TooLarge);
  EXPECT_EQ(error_of(add(*column, *row)).message(),
            "shape [100000,100000] has more than 67,108,864 elements");
  // The shape rule alone allocates nothing, so it does not judge size (a batch shape may be huge when the
  // result is empty).
  auto huge = broadcast_shapes("add", {100000, 1}, {100000});
  ASSERT_TRUE(huge.ok());
  EXPECT_EQ(*huge, (Shape{100000, 100000}));
  auto shape = broadcast_shapes("add", {2, 1, 3}, {4, 1});
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(*shape, (Shape{2, 4, 3}));
}

// ---- sum_axis ------------------------------------------------------------------------------------------

TEST(TensorSumAxis, RemovesTheAxis) {
  expect_tensor(sum_axis(make({2, 3}, kA), 0), {3}, {5, 7, 9});
  expect_tensor(sum_axis(make({2, 3}, kA), 1), {2}, {6, 15});
  expect_tensor(sum_axis(make({3}, {1, 2, 3}), 0), {}, {6});
  // [2,2,2] over the middle axis: pairs (1,3),(2,4),(5,7),(6,8).
  expect_tensor(sum_axis(make({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), 1), {2, 2}, {4, 6, 12, 14});
}

TEST(TensorSumAxis, AddsInAscendingIndexOrder) {
  // (1e16 + 1) + 1 = 1e16 (each 1 is lost), whereas 1 + 1 + 1e16 would be 1e16 + 2.
  expect_tensor(sum_axis(make({3}, {1e16, 1, 1}), 0), {}, {1e16});
  expect_tensor(sum_axis(make({3}, {1, 1, 1e16}), 0), {}, {1e16 + 2});
}

TEST(TensorSumAxis, EmptyAxisGivesPositiveZero) {
  auto empty_middle = sum_axis(make({2, 0, 3}, {}), 1);
  ASSERT_TRUE(empty_middle.ok());
  expect_tensor(*empty_middle, {2, 3}, {0, 0, 0, 0, 0, 0});
  for (double value : empty_middle->values()) EXPECT_EQ(bits(value), kPositiveZeroBits);
  auto empty_vector = sum_axis(make({0}, {}), 0);
  ASSERT_TRUE(empty_vector.ok());
  EXPECT_EQ(empty_vector->shape(), Shape{});
  EXPECT_EQ(bits((*empty_vector)[0]), kPositiveZeroBits);
  // Summing negative zeros also gives +0.0, because the sum starts at +0.0.
  auto negative_zeros = sum_axis(make({2}, {-0.0, -0.0}), 0);
  ASSERT_TRUE(negative_zeros.ok());
  EXPECT_EQ(bits((*negative_zeros)[0]), kPositiveZeroBits);
  // Summing a non-empty axis of an otherwise empty tensor leaves it empty.
  expect_tensor(sum_axis(make({2, 0, 3}, {}), 0), {0, 3}, {});
}

TEST(TensorSumAxis, EmptyAxisCanExposeATooLargeResult) {
  // [0,100000,100000] holds nothing, but summing axis 0 away would create 10^10 zeros.
  EXPECT_EQ(error_of(sum_axis(make({0, 100000, 100000}, {}), 0)).kind, TensorErrorKind::TooLarge);
}

TEST(TensorSumAxis, RejectsAxisOutOfRange) {
  const TensorError error = error_of(sum_axis(make({2, 3}, kA), 2));
  EXPECT_EQ(error.kind, TensorErrorKind::AxisOutOfRange);
  EXPECT_EQ(error.message(), "sum_axis axis 2 is out of range for rank 2");
  EXPECT_EQ(error_of(sum_axis(Tensor::scalar(1), 0)).message(), "sum_axis axis 0 is out of range for rank 0");
}

TEST(TensorRepeatAxis, IsTheAdjointOfSumAxis) {
  expect_tensor(repeat_axis(make({3}, {1, 2, 3}), 0, 2), {2, 3}, {1, 2, 3, 1, 2, 3});
  expect_tensor(repeat_axis(make({2}, {1, 2}), 1, 3), {2, 3}, {1, 1, 1, 2, 2, 2});
  expect_tensor(repeat_axis(Tensor::scalar(7), 0, 2), {2}, {7, 7});
  expect_tensor(repeat_axis(make({2}, {1, 2}), 0, 0), {0, 2}, {});
}

// ---- reshape and sum_to_shape ---------------------------------------------------------------------------

TEST(TensorReshape, KeepsValuesInRowMajorOrder) {
  expect_tensor(reshape(make({2, 3}, kA), {3, 2}), {3, 2}, kA);
  expect_tensor(reshape(make({2, 3}, kA), {6}), {6}, kA);
  expect_tensor(reshape(make({1, 1}, {4}), {}), {}, {4});
  expect_tensor(reshape(make({0, 3}, {}), {3, 0, 5}), {3, 0, 5}, {});
}

TEST(TensorReshape, RejectsADifferentCount) {
  const TensorError error = error_of(reshape(make({2, 3}, kA), {4}));
  EXPECT_EQ(error.kind, TensorErrorKind::ReshapeCount);
  EXPECT_EQ(error.message(), "reshape cannot turn 6 values into shape [4] of 4 values");
  EXPECT_EQ(error_of(reshape(make({2}, {1, 2}), {})).message(),
            "reshape cannot turn 2 values into shape [] of 1 values");
  EXPECT_EQ(error_of(reshape(make({0}, {}), {100000, 100000})).kind, TensorErrorKind::TooLarge);
}

TEST(TensorSumToShape, SumsTheBroadcastAxesAway) {
  expect_tensor(sum_to_shape(make({2, 3}, kA), {3}), {3}, {5, 7, 9});
  expect_tensor(sum_to_shape(make({2, 3}, kA), {1, 3}), {1, 3}, {5, 7, 9});
  expect_tensor(sum_to_shape(make({2, 3}, kA), {2, 1}), {2, 1}, {6, 15});
  expect_tensor(sum_to_shape(make({2, 3}, kA), {}), {}, {21});
  expect_tensor(sum_to_shape(make({2, 3}, kA), {2, 3}), {2, 3}, kA);
  // [2,2,3] -> [1,3]: the batch and the rows are both summed.
  std::vector<double> twelve = kA;
  twelve.insert(twelve.end(), {10, 20, 30, 40, 50, 60});
  expect_tensor(sum_to_shape(make({2, 2, 3}, twelve), {1, 3}), {1, 3}, {55, 77, 99});
  // Nothing to sum: +0.0 everywhere.
  expect_tensor(sum_to_shape(make({0, 3}, {}), {3}), {3}, {0, 0, 0});
}

TEST(TensorAddInto, AccumulatesElementwise) {
  Tensor into = make({2}, {1, 2});
  add_into(into, make({2}, {0.5, -4}));
  expect_tensor(into, {2}, {1.5, -2});
}

}  // namespace
}  // namespace qkv
