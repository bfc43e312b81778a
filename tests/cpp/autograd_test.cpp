// The reverse-mode tape: leaves, tracking, backward errors, accumulation, all-or-nothing commits and the
// gradients of every op on small hand-derived examples (all exact in binary64, so compared bit for bit).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "autograd/tensor_value.hpp"
#include "support.hpp"

namespace qkv {
namespace {

using namespace qkv::test;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMax = std::numeric_limits<double>::max();

// Leaves and op results; a failure is a test failure, and the placeholder is a constant scalar.
TensorValue unwrap(Result<TensorValue, TensorError> result) {
  if (!result) {
    ADD_FAILURE() << "unexpected error: " << result.error().message();
    return TensorValue::constant(Tensor()).value();
  }
  return std::move(result).value();
}

TensorValue parameter(Shape shape, std::vector<double> values) {
  return unwrap(TensorValue::parameter(make(std::move(shape), std::move(values))));
}

TensorValue constant(Shape shape, std::vector<double> values) {
  return unwrap(TensorValue::constant(make(std::move(shape), std::move(values))));
}

// Sums every axis away with repeated sum_axis(0): a rank-0 objective.
TensorValue total(TensorValue value) {
  while (!value.shape().empty()) value = unwrap(sum_axis(value, 0));
  return value;
}

void expect_tensor(const Tensor& actual, const Shape& shape, const std::vector<double>& values) {
  EXPECT_EQ(format_shape(actual.shape()), format_shape(shape));
  EXPECT_EQ(bits(actual.values()), bits(values))
      << "expected " << describe(values) << "\n     got " << describe(actual.values());
}

void expect_gradient(const TensorValue& value, const Shape& shape, const std::vector<double>& values) {
  const std::optional<Tensor> gradient = value.gradient();
  ASSERT_TRUE(gradient.has_value()) << "not a parameter";
  expect_tensor(*gradient, shape, values);
}

void expect_ok(const Result<Unit, TensorError>& result) {
  EXPECT_TRUE(result.ok()) << result.error().message();
}

template <class T>
TensorError error_of(const Result<T, TensorError>& result) {
  if (result.ok()) {
    ADD_FAILURE() << "expected an error";
    return TensorError{TensorErrorKind::DataLength, "none"};
  }
  return result.error();
}

// ---- leaves ---------------------------------------------------------------------------------------------

TEST(TapeLeaves, ParameterIsTrackedWithZeroGradient) {
  const TensorValue x = parameter({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(x.tracked());
  EXPECT_TRUE(x.is_parameter());
  expect_tensor(x.value(), {2, 3}, {1, 2, 3, 4, 5, 6});
  expect_gradient(x, {2, 3}, {0, 0, 0, 0, 0, 0});
}

TEST(TapeLeaves, ConstantIsUntrackedWithoutGradient) {
  const TensorValue c = constant({2}, {1, 2});
  EXPECT_FALSE(c.tracked());
  EXPECT_FALSE(c.is_parameter());
  EXPECT_FALSE(c.gradient().has_value());
}

TEST(TapeLeaves, EmptyAndScalarLeaves) {
  const TensorValue empty = parameter({0, 3}, {});
  expect_gradient(empty, {0, 3}, {});
  const TensorValue scalar = parameter({}, {4});
  expect_gradient(scalar, {}, {0});
}

TEST(TapeLeaves, ParameterRejectsNonFiniteWithIndex) {
  const TensorError nan = error_of(TensorValue::parameter(make({3}, {1, kNaN, kInf})));
  EXPECT_EQ(nan.kind, TensorErrorKind::NonFinite);
  EXPECT_EQ(nan.operation, "parameter");
  EXPECT_EQ(nan.index, 1u);
  EXPECT_EQ(nan.message(), "parameter must be finite, got NaN at index 1");
  EXPECT_EQ(error_of(TensorValue::parameter(make({2}, {0, -kInf}))).message(),
            "parameter must be finite, got -inf at index 1");
}

TEST(TapeLeaves, ConstantRejectsNonFiniteWithIndex) {
  const TensorError inf = error_of(TensorValue::constant(make({2, 2}, {kInf, kNaN, 0, 0})));
  EXPECT_EQ(inf.kind, TensorErrorKind::NonFinite);
  EXPECT_EQ(inf.message(), "constant must be finite, got inf at index 0");
  EXPECT_EQ(error_of(TensorValue::constant(Tensor::scalar(kNaN))).message(),
            "constant must be finite, got NaN at index 0");
}

TEST(TapeLeaves, CopiesShareTheNode) {
  const TensorValue x = parameter({2}, {1, 2});
  const TensorValue copy = x;
  const TensorValue twin = parameter({2}, {1, 2});
  EXPECT_TRUE(x.is_same_node(copy));
  EXPECT_TRUE(copy.is_same_node(x));
  EXPECT_TRUE(x.is_same_node(x));
  EXPECT_FALSE(x.is_same_node(twin));  // equal values, different node
  // A gradient written through one handle is seen through the other.
  expect_ok(total(x).backward());
  expect_gradient(copy, {2}, {1, 1});
  expect_gradient(twin, {2}, {0, 0});
  // An op result is a new node even when its value is the same.
  EXPECT_FALSE(unwrap(reshape(x, {2})).is_same_node(x));
}

// ---- tracking ------------------------------------------------------------------------------------------

TEST(TapeTracking, ResultIsTrackedIffAParentIs) {
  const TensorValue p = parameter({2, 2}, {1, 2, 3, 4});
  const TensorValue c = constant({2, 2}, {5, 6, 7, 8});
  EXPECT_FALSE(unwrap(add(c, c)).tracked());
  EXPECT_TRUE(unwrap(add(c, p)).tracked());
  EXPECT_TRUE(unwrap(add(p, c)).tracked());
  EXPECT_FALSE(unwrap(mul(c, c)).tracked());
  EXPECT_TRUE(unwrap(mul(c, p)).tracked());
  EXPECT_FALSE(unwrap(matmul(c, c)).tracked());
  EXPECT_TRUE(unwrap(matmul(c, p)).tracked());
  EXPECT_TRUE(unwrap(matmul(p, c)).tracked());
  EXPECT_FALSE(unwrap(sum_axis(c, 0)).tracked());
  EXPECT_TRUE(unwrap(sum_axis(p, 1)).tracked());
  EXPECT_FALSE(unwrap(reshape(c, {4})).tracked());
  EXPECT_TRUE(unwrap(reshape(p, {4})).tracked());
  // Results are never parameters themselves.
  const TensorValue sum = unwrap(add(p, c));
  EXPECT_FALSE(sum.is_parameter());
  EXPECT_FALSE(sum.gradient().has_value());
  // Tracking survives a chain of ops.
  EXPECT_TRUE(unwrap(sum_axis(unwrap(mul(unwrap(add(c, c)), unwrap(reshape(p, {2, 2})))), 0)).tracked());
}

TEST(TapeTracking, OpErrorsAreTheKernelErrors) {
  const TensorValue p = parameter({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(error_of(matmul(p, p)).message(), "matmul inner widths must match, got 3 and 2");
  EXPECT_EQ(error_of(add(p, constant({2}, {1, 2}))).message(), "add cannot broadcast shapes [2,3] and [2]");
  EXPECT_EQ(error_of(mul(p, constant({2}, {1, 2}))).message(), "mul cannot broadcast shapes [2,3] and [2]");
  EXPECT_EQ(error_of(sum_axis(p, 2)).message(), "sum_axis axis 2 is out of range for rank 2");
  EXPECT_EQ(error_of(reshape(p, {5})).message(), "reshape cannot turn 6 values into shape [5] of 5 values");
}

TEST(TapeTracking, NonFiniteResultsAreRejectedWithTheOpName) {
  const TensorValue big = parameter({2}, {1e200, 1});
  const TensorError product = error_of(mul(big, constant({2}, {1e200, 1})));
  EXPECT_EQ(product.kind, TensorErrorKind::NonFinite);
  EXPECT_EQ(product.message(), "mul result must be finite, got inf at index 0");
  EXPECT_EQ(error_of(mul(big, constant({2}, {-1e200, 1}))).message(),
            "mul result must be finite, got -inf at index 0");
  EXPECT_EQ(error_of(add(parameter({2}, {0, kMax}), constant({2}, {0, kMax}))).message(),
            "add result must be finite, got inf at index 1");
  EXPECT_EQ(error_of(sum_axis(parameter({2}, {kMax, kMax}), 0)).message(),
            "sum_axis result must be finite, got inf at index 0");
  EXPECT_EQ(error_of(matmul(parameter({1, 2}, {kMax, kMax}), constant({2, 1}, {1, 1}))).message(),
            "matmul result must be finite, got inf at index 0");
  // Untracked results obey the same rule.
  EXPECT_EQ(error_of(mul(constant({1}, {1e200}), constant({1}, {1e200}))).message(),
            "mul result must be finite, got inf at index 0");
}

// ---- backward: errors ----------------------------------------------------------------------------------

TEST(TapeBackward, NeedsARankZeroOutput) {
  const TensorValue p = parameter({2, 2}, {1, 2, 3, 4});
  const TensorError error = error_of(p.backward());
  EXPECT_EQ(error.kind, TensorErrorKind::BackwardOutput);
  EXPECT_EQ(error.message(), "backward needs a rank-0 output, got rank 2");
  EXPECT_EQ(error_of(unwrap(sum_axis(p, 0)).backward()).message(),
            "backward needs a rank-0 output, got rank 1");
  expect_gradient(p, {2, 2}, {0, 0, 0, 0});
}

TEST(TapeBackward, NeedsATrackedOutput) {
  const TensorValue c = constant({2}, {1, 2});
  const TensorError error = error_of(total(c).backward());
  EXPECT_EQ(error.kind, TensorErrorKind::BackwardOutput);
  EXPECT_EQ(error.message(), "backward needs an output that depends on a parameter");
  EXPECT_EQ(error_of(c.backward_with_seed(make({2}, {1, 1}))).message(),
            "backward needs an output that depends on a parameter");
  // For an untracked output that is not rank 0 either, backward() reports the rank.
  EXPECT_EQ(error_of(c.backward()).message(), "backward needs a rank-0 output, got rank 1");
}

TEST(TapeBackward, SeedMustHaveTheOutputShape) {
  const TensorValue p = parameter({2}, {1, 2});
  const TensorError error = error_of(p.backward_with_seed(make({3}, {1, 1, 1})));
  EXPECT_EQ(error.kind, TensorErrorKind::SeedShape);
  EXPECT_EQ(error.message(), "backward seed must have shape [2], got [3]");
  EXPECT_EQ(error_of(p.backward_with_seed(Tensor::scalar(1))).message(),
            "backward seed must have shape [2], got []");
  EXPECT_EQ(error_of(p.backward_with_seed(make({1, 2}, {1, 1}))).message(),
            "backward seed must have shape [2], got [1,2]");
  expect_gradient(p, {2}, {0, 0});
  // The right shape works, for any rank.
  expect_ok(p.backward_with_seed(make({2}, {3, -1})));
  expect_gradient(p, {2}, {3, -1});
}

// ---- backward: accumulation ----------------------------------------------------------------------------

TEST(TapeBackward, ScalarParameterSeedsOne) {
  const TensorValue x = parameter({}, {5});
  expect_ok(x.backward());
  expect_gradient(x, {}, {1});
}

TEST(TapeBackward, GradientsAccumulateAcrossCalls) {
  const TensorValue x = parameter({3}, {1, 2, 3});
  const TensorValue loss = total(unwrap(mul(x, constant({3}, {0.1, -3, 1e-300}))));
  expect_ok(loss.backward());
  const std::vector<double> once = x.gradient()->values();
  expect_tensor(*x.gradient(), {3}, {0.1, -3, 1e-300});
  expect_ok(loss.backward());
  // Exactly twice: doubling is exact in binary64.
  expect_tensor(*x.gradient(), {3}, {2 * once[0], 2 * once[1], 2 * once[2]});
  TensorValue handle = x;
  handle.zero_gradient();
  expect_gradient(x, {3}, {0, 0, 0});
}

TEST(TapeBackward, AValueUsedTwiceAccumulatesBothPaths) {
  // L = Σ x⊙x: dL/dx = 2x, reached through both operands of one mul.
  const TensorValue x = parameter({2}, {3, -2});
  expect_ok(total(unwrap(mul(x, x))).backward());
  expect_gradient(x, {2}, {6, -4});
  // L = Σ (x + x): 2 everywhere.
  const TensorValue y = parameter({2}, {3, -2});
  expect_ok(total(unwrap(add(y, y))).backward());
  expect_gradient(y, {2}, {2, 2});
  // A diamond: L = Σ (x⊙a + x⊙b) gives a + b.
  const TensorValue z = parameter({2}, {1, 1});
  const TensorValue left = unwrap(mul(z, constant({2}, {2, 0.5})));
  const TensorValue right = unwrap(mul(constant({2}, {-1, 4}), z));
  expect_ok(total(unwrap(add(left, right))).backward());
  expect_gradient(z, {2}, {1, 4.5});
}

TEST(TapeBackward, UntrackedParentsGetNothing) {
  const TensorValue p = parameter({2}, {1, 2});
  const TensorValue c = constant({2}, {3, 4});
  const TensorValue unused = parameter({2}, {5, 6});
  const TensorValue untracked = unwrap(add(c, c));  // a constant-only subgraph inside a tracked graph
  expect_ok(total(unwrap(mul(untracked, p))).backward());
  expect_gradient(p, {2}, {6, 8});
  EXPECT_FALSE(c.gradient().has_value());
  EXPECT_FALSE(untracked.gradient().has_value());
  expect_gradient(unused, {2}, {0, 0});
}

TEST(TapeBackward, OverflowingGradientCommitsNothing) {
  // out = b + a⊙c with c = [1e300, 1]: seeding [1e10, 1] gives d(a) = [1e310, 1], which overflows, and
  // d(b) = [1e10, 1], which does not. b comes first in the tape order, so a pass that committed as it
  // went would already have changed b.
  const TensorValue a = parameter({2}, {1, 2});
  const TensorValue b = parameter({2}, {1, 1});
  const TensorValue out = unwrap(add(b, unwrap(mul(a, constant({2}, {1e300, 1})))));
  expect_ok(out.backward_with_seed(make({2}, {1, 1})));
  expect_gradient(a, {2}, {1e300, 1});
  expect_gradient(b, {2}, {1, 1});

  const TensorError error = error_of(out.backward_with_seed(make({2}, {1e10, 1})));
  EXPECT_EQ(error.kind, TensorErrorKind::NonFinite);
  EXPECT_EQ(error.message(), "gradient must be finite, got inf at index 0");
  expect_gradient(a, {2}, {1e300, 1});
  expect_gradient(b, {2}, {1, 1});

  // The tape still works afterwards.
  expect_ok(out.backward_with_seed(make({2}, {1, 1})));
  expect_gradient(a, {2}, {2e300, 2});
  expect_gradient(b, {2}, {2, 2});
}

TEST(TapeBackward, OverflowingAccumulationCommitsNothing) {
  // Each pass alone is finite (1e308), but the stored sum would be 2e308.
  const TensorValue other = parameter({1}, {1});
  const TensorValue x = parameter({1}, {1});
  const TensorValue loss = total(unwrap(add(other, unwrap(mul(x, constant({1}, {1e308}))))));
  expect_ok(loss.backward());
  EXPECT_EQ(error_of(loss.backward()).message(), "gradient must be finite, got inf at index 0");
  expect_gradient(x, {1}, {1e308});
  expect_gradient(other, {1}, {1});
}

TEST(TapeBackward, NonFiniteSeedCommitsNothing) {
  const TensorValue p = parameter({2}, {1, 2});
  EXPECT_EQ(error_of(p.backward_with_seed(make({2}, {1, kNaN}))).message(),
            "gradient must be finite, got NaN at index 1");
  expect_gradient(p, {2}, {0, 0});
}

// ---- op gradients ----------------------------------------------------------------------------------------

// X = [[1,2,-1],[0,1,2]], W = [[1,0],[0,1],[1,-1]], U = [[1,0],[-1,2]]:
// X·W = [[0,3],[2,-1]]; dX = U·Wᵀ = [[1,0,1],[-1,2,-3]]; dW = Xᵀ·U = [[1,0],[1,2],[-3,4]].
const std::vector<double> kX = {1, 2, -1, 0, 1, 2};
const std::vector<double> kW = {1, 0, 0, 1, 1, -1};
const std::vector<double> kU = {1, 0, -1, 2};

TEST(TapeMatmul, GradientsOfBothOperands) {
  const TensorValue x = parameter({2, 3}, kX);
  const TensorValue w = parameter({3, 2}, kW);
  const TensorValue y = unwrap(matmul(x, w));
  expect_tensor(y.value(), {2, 2}, {0, 3, 2, -1});
  expect_ok(y.backward_with_seed(make({2, 2}, kU)));
  expect_gradient(x, {2, 3}, {1, 0, 1, -1, 2, -3});
  expect_gradient(w, {3, 2}, {1, 0, 1, 2, -3, 4});
}

TEST(TapeMatmul, SharedWeightGradientSumsOverTheBatch) {
  // Batch 1: X1 = [[1,0,0],[0,0,1]], U1 = [[1,1],[1,1]].
  // dX1 = U1·Wᵀ = [[1,1,0],[1,1,0]]; X1ᵀ·U1 = [[1,1],[0,0],[1,1]] is added to batch 0's dW.
  std::vector<double> x_values = kX;
  x_values.insert(x_values.end(), {1, 0, 0, 0, 0, 1});
  std::vector<double> seed = kU;
  seed.insert(seed.end(), {1, 1, 1, 1});
  const TensorValue x = parameter({2, 2, 3}, x_values);
  const TensorValue w = parameter({3, 2}, kW);
  expect_ok(unwrap(matmul(x, w)).backward_with_seed(make({2, 2, 2}, seed)));
  expect_gradient(x, {2, 2, 3}, {1, 0, 1, -1, 2, -3, 1, 1, 0, 1, 1, 0});
  expect_gradient(w, {3, 2}, {2, 1, 1, 2, -2, 5});
}

TEST(TapeMatmul, SharedLeftOperandGradientSumsOverTheBatch) {
  // Right batch 1: W1 = [[0,0],[0,0],[0,1]], U1 = [[1,1],[1,1]].
  // U1·W1ᵀ = [[0,0,1],[0,0,1]] is added to dX; dW1 = Xᵀ·U1 has rows (X[0,i] + X[1,i])·[1,1].
  std::vector<double> w_values = kW;
  w_values.insert(w_values.end(), {0, 0, 0, 0, 0, 1});
  std::vector<double> seed = kU;
  seed.insert(seed.end(), {1, 1, 1, 1});
  const TensorValue x = parameter({2, 3}, kX);
  const TensorValue w = parameter({2, 3, 2}, w_values);
  expect_ok(unwrap(matmul(x, w)).backward_with_seed(make({2, 2, 2}, seed)));
  expect_gradient(x, {2, 3}, {1, 0, 2, -1, 2, -2});
  expect_gradient(w, {2, 3, 2}, {1, 0, 1, 2, -3, 4, 1, 1, 3, 3, 1, 1});
}

TEST(TapeMatmul, EmptyBatchGivesZeroWeightGradient) {
  const TensorValue x = parameter({0, 2, 3}, {});
  const TensorValue w = parameter({3, 2}, kW);
  const TensorValue loss = total(unwrap(matmul(x, w)));
  EXPECT_TRUE(loss.tracked());
  expect_tensor(loss.value(), {}, {0});
  expect_ok(loss.backward());
  expect_gradient(x, {0, 2, 3}, {});
  expect_gradient(w, {3, 2}, {0, 0, 0, 0, 0, 0});
}

TEST(TapeAdd, GradientSumsOverBroadcastAxes) {
  const TensorValue a = parameter({2, 3}, {0, 0, 0, 0, 0, 0});
  const TensorValue b = parameter({3}, {0, 0, 0});
  const TensorValue s = parameter({}, {0});
  expect_ok(unwrap(add(unwrap(add(a, b)), s)).backward_with_seed(make({2, 3}, {1, 2, 3, 4, 5, 6})));
  expect_gradient(a, {2, 3}, {1, 2, 3, 4, 5, 6});
  expect_gradient(b, {3}, {5, 7, 9});
  expect_gradient(s, {}, {21});
}

TEST(TapeMul, GradientIsTheOtherOperandTimesTheSeed) {
  // a = [[1,2],[3,4]], b = [10,-1], U = [[1,1],[1,2]]: a⊙b = [[10,-2],[30,-4]];
  // d(a) = U⊙b = [[10,-1],[10,-2]]; d(b) = Σ_rows U⊙a = [1+3, 2+8] = [4,10].
  const TensorValue a = parameter({2, 2}, {1, 2, 3, 4});
  const TensorValue b = parameter({2}, {10, -1});
  const TensorValue product = unwrap(mul(a, b));
  expect_tensor(product.value(), {2, 2}, {10, -2, 30, -4});
  expect_ok(product.backward_with_seed(make({2, 2}, {1, 1, 1, 2})));
  expect_gradient(a, {2, 2}, {10, -1, 10, -2});
  expect_gradient(b, {2}, {4, 10});
}

TEST(TapeSumAxis, GradientRepeatsAlongTheSummedAxis) {
  const TensorValue x = parameter({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorValue rows = unwrap(sum_axis(x, 1));
  expect_tensor(rows.value(), {2}, {6, 15});
  expect_ok(rows.backward_with_seed(make({2}, {1, -2})));
  expect_gradient(x, {2, 3}, {1, 1, 1, -2, -2, -2});

  const TensorValue y = parameter({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_ok(unwrap(sum_axis(y, 0)).backward_with_seed(make({3}, {1, 0.5, -1})));
  expect_gradient(y, {2, 3}, {1, 0.5, -1, 1, 0.5, -1});
}

TEST(TapeSumAxis, EmptyAxisStaysConnected) {
  const TensorValue x = parameter({2, 0}, {});
  const TensorValue sums = unwrap(sum_axis(x, 1));
  EXPECT_TRUE(sums.tracked());
  expect_tensor(sums.value(), {2}, {0, 0});
  expect_ok(total(sums).backward());
  expect_gradient(x, {2, 0}, {});
}

TEST(TapeReshape, GradientComesBackInTheInputShape) {
  const TensorValue x = parameter({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorValue y = unwrap(reshape(x, {3, 2}));
  expect_tensor(y.value(), {3, 2}, {1, 2, 3, 4, 5, 6});
  expect_ok(y.backward_with_seed(make({3, 2}, {1, -1, 2, -2, 3, -3})));
  expect_gradient(x, {2, 3}, {1, -1, 2, -2, 3, -3});
}

TEST(TapeChain, HandDerivedComposite) {
  // L = Σ (reshape(x, [2,2]) · W) ⊙ U, with x = [1,2,3,4], W = [[1,-1],[2,0]], U = [[1,0],[0,1]].
  // dL/d(xW) = U; d(reshape x) = U·Wᵀ = [[1,2],[-1,0]]; dW = Xᵀ·U = [[1,3],[2,4]].
  const TensorValue x = parameter({4}, {1, 2, 3, 4});
  const TensorValue w = parameter({2, 2}, {1, -1, 2, 0});
  const TensorValue product = unwrap(matmul(unwrap(reshape(x, {2, 2})), w));
  expect_tensor(product.value(), {2, 2}, {5, -1, 11, -3});
  const TensorValue loss = total(unwrap(mul(product, constant({2, 2}, {1, 0, 0, 1}))));
  expect_tensor(loss.value(), {}, {2});
  expect_ok(loss.backward());
  expect_gradient(x, {4}, {1, 2, -1, 0});
  expect_gradient(w, {2, 2}, {1, 3, 2, 4});
}

}  // namespace
}  // namespace qkv
