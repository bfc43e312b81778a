// sum_of_products: the same bits as mul followed by repeated sum_axis(0) (the chapter's loss), forward and
// backward, at every rank from 0 to 4, with empty axes, signed zeros and broadcasting; and no stored product.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "autograd/ops.hpp"

namespace qkv {
namespace {

std::uint64_t bits_of(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

Tensor random_tensor(const Shape& shape, std::mt19937_64& rng, bool zeros) {
  Extent count = 1;
  for (Extent e : shape) count *= e;
  std::uniform_real_distribution<double> uniform(-4.0, 4.0);
  std::vector<double> values(count);
  for (double& v : values) {
    v = uniform(rng);
    if (zeros && rng() % 4 == 0) v = rng() % 2 ? 0.0 : -0.0;
  }
  return Tensor::from_values(shape, std::move(values)).value();
}

// The chapter's objective: mul, then sum_axis(0) until rank 0.
Result<TensorValue, TensorError> composed(const TensorValue& a, const TensorValue& b) {
  auto total = mul(a, b);
  while (total && !total->shape().empty()) total = sum_axis(*total, 0);
  return total;
}

void expect_same_bits(const Tensor& actual, const Tensor& expected, const std::string& label) {
  ASSERT_EQ(actual.shape(), expected.shape()) << label;
  for (std::size_t i = 0; i < actual.values().size(); ++i)
    ASSERT_EQ(bits_of(actual.values()[i]), bits_of(expected.values()[i])) << label << " at " << i;
}

void check(const Shape& left_shape, const Shape& right_shape, std::mt19937_64& rng, bool zeros, double seed) {
  const Tensor a = random_tensor(left_shape, rng, zeros);
  const Tensor b = random_tensor(right_shape, rng, zeros);
  std::string label = "[";
  for (Extent e : left_shape) label += std::to_string(e) + ",";
  label += "]";
  TensorValue a1 = TensorValue::parameter(a).value(), b1 = TensorValue::parameter(b).value();
  TensorValue a2 = TensorValue::parameter(a).value(), b2 = TensorValue::parameter(b).value();
  auto fused = sum_of_products(a1, b1);
  auto reference = composed(a2, b2);
  ASSERT_TRUE(fused && reference) << label;
  ASSERT_TRUE(fused->shape().empty());
  EXPECT_EQ(bits_of(fused->value().values()[0]), bits_of(reference->value().values()[0]))
      << label << " forward";
  const Tensor g = Tensor::from_values({}, {seed}).value();
  ASSERT_TRUE(fused->backward_with_seed(g));
  ASSERT_TRUE(reference->backward_with_seed(g));
  expect_same_bits(*a1.gradient(), *a2.gradient(), label + " d(left)");
  expect_same_bits(*b1.gradient(), *b2.gradient(), label + " d(right)");
}

TEST(SumOfProducts, SameBitsAsMulAndRepeatedSumAxisAtEveryRank) {
  std::mt19937_64 rng(26);
  const Shape shapes[] = {{},         {1},          {7}, {3, 5}, {1, 9}, {4, 1},    {2, 3, 4}, {1, 1024, 7},
                          {3, 33, 9}, {2, 3, 4, 5}, {0}, {0, 3}, {3, 0}, {2, 0, 3}, {2, 3, 0}, {0, 2, 3, 1}};
  for (const Shape& shape : shapes) {
    for (double seed : {1.0, -0.5, 3.0}) check(shape, shape, rng, false, seed);
    check(shape, shape, rng, true, 1.0);  // signed zeros: the sign of every zero sum must match
  }
}

TEST(SumOfProducts, BroadcastingGoesThroughMul) {
  std::mt19937_64 rng(7);
  check({2, 3, 4}, {4}, rng, false, 1.0);
  check({3, 1}, {1, 5}, rng, false, 2.0);
}

TEST(SumOfProducts, ARoundingOrderThatDiffersFromASingleLoopIsKept) {
  // Summing [2, 2] by axis 0 first ((a00 + a10) + (a01 + a11)) differs from one running sum over all four
  // here: 1e16 + 1 rounds away in the first pair only when added in storage order.
  const Tensor a = Tensor::from_values({2, 2}, {1e16, 1.0, -1e16, 1.0}).value();
  const Tensor ones = Tensor::from_values({2, 2}, {1.0, 1.0, 1.0, 1.0}).value();
  auto fused = sum_of_products(TensorValue::constant(a).value(), TensorValue::constant(ones).value());
  ASSERT_TRUE(fused);
  EXPECT_EQ(fused->value().values()[0], 2.0);  // (1e16 - 1e16) + (1 + 1); storage order gives 1.0
}

}  // namespace
}  // namespace qkv
