// Linear: validation order, transactional creation, and forward/backward on hand-picked weights.
#include "nn/linear.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "support.hpp"

namespace qkv {
namespace {

using namespace qkv::test;

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;  // SplitMix64's state increment per draw

NamedParameter named(const std::string& name, Shape shape, std::vector<double> values) {
  auto parameter = NamedParameter::create(name, make(std::move(shape), std::move(values)));
  if (!parameter) {
    ADD_FAILURE() << parameter.error().message();
    return NamedParameter::create("placeholder", Tensor()).value();
  }
  return std::move(parameter).value();
}

// A named parameter of `shape` filled with zeros.
NamedParameter zeros(const std::string& name, Shape shape) {
  auto tensor = Tensor::zeros(shape);
  return named(name, shape, tensor ? tensor->values() : std::vector<double>{});
}

TensorValue constant(Shape shape, std::vector<double> values) {
  return TensorValue::constant(make(std::move(shape), std::move(values))).value();
}

TensorValue parameter(Shape shape, std::vector<double> values) {
  return TensorValue::parameter(make(std::move(shape), std::move(values))).value();
}

void expect_tensor(const Tensor& actual, const Shape& shape, const std::vector<double>& values) {
  EXPECT_EQ(format_shape(actual.shape()), format_shape(shape));
  EXPECT_EQ(bits(actual.values()), bits(values))
      << "expected " << describe(values) << "\n     got " << describe(actual.values());
}

template <class T>
LinearError error_of(const Result<T, LinearError>& result) {
  if (result.ok()) {
    ADD_FAILURE() << "expected an error";
    return {LinearErrorKind::WeightRank};
  }
  return result.error();
}

// W = [[1,0],[0,1],[1,-1]] ([in=3, out=2]) and b = [0.5,-1].
const std::vector<double> kW = {1, 0, 0, 1, 1, -1};
const std::vector<double> kBias = {0.5, -1};

Linear layer(bool with_bias) {
  std::optional<NamedParameter> bias;
  if (with_bias) bias = named("layer.bias", {2}, kBias);
  auto linear = Linear::from_parameters(named("layer.weight", {3, 2}, kW), bias);
  if (!linear) ADD_FAILURE() << linear.error().message();
  return std::move(linear).value();
}

TensorValue forward(const Linear& linear, const TensorValue& input) {
  auto out = linear.forward(input);
  if (!out) {
    ADD_FAILURE() << "unexpected error: " << out.error().message();
    return input;
  }
  return std::move(out).value();
}

// ---- from_parameters -------------------------------------------------------------------------------------

TEST(LinearFromParameters, AcceptsWeightAndOptionalBias) {
  const NamedParameter weight = named("layer.weight", {3, 2}, kW);
  const NamedParameter bias = named("layer.bias", {2}, kBias);
  auto with_bias = Linear::from_parameters(weight, bias);
  ASSERT_TRUE(with_bias.ok());
  EXPECT_EQ(with_bias->input_width(), 3u);
  EXPECT_EQ(with_bias->output_width(), 2u);
  EXPECT_EQ(with_bias->parameter_count(), 8u);
  EXPECT_TRUE(with_bias->weight().value().is_same_node(weight.value()));
  ASSERT_TRUE(with_bias->bias().has_value());
  EXPECT_TRUE(with_bias->bias()->value().is_same_node(bias.value()));

  auto without_bias = Linear::from_parameters(weight, std::nullopt);
  ASSERT_TRUE(without_bias.ok());
  EXPECT_FALSE(without_bias->bias().has_value());
  EXPECT_EQ(without_bias->parameter_count(), 6u);
}

TEST(LinearFromParameters, ChecksInOrder) {
  // Each case breaks its own rule and every later one: weight rank, input width, output width, bias rank,
  // bias width, unique names.
  struct Case {
    const char* label;
    Shape weight;
    std::optional<Shape> bias;
    const char* bias_name;
    LinearErrorKind kind;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"weight rank 3",
       {1, 1, 1},
       Shape{1, 1},
       "w",
       LinearErrorKind::WeightRank,
       "linear weight must have rank two, got rank 3"},
      {"weight rank 1",
       {3},
       Shape{1, 1},
       "w",
       LinearErrorKind::WeightRank,
       "linear weight must have rank two, got rank 1"},
      {"weight rank 0",
       {},
       std::nullopt,
       "w",
       LinearErrorKind::WeightRank,
       "linear weight must have rank two, got rank 0"},
      {"zero input width",
       {0, 0},
       Shape{1, 1},
       "w",
       LinearErrorKind::ZeroInputWidth,
       "linear input width must be greater than zero"},
      {"zero output width",
       {3, 0},
       Shape{1, 1},
       "w",
       LinearErrorKind::ZeroOutputWidth,
       "linear output width must be greater than zero"},
      {"bias rank 2",
       {3, 2},
       Shape{1, 3},
       "w",
       LinearErrorKind::BiasRank,
       "linear bias must have rank one, got rank 2"},
      {"bias rank 0",
       {3, 2},
       Shape{},
       "w",
       LinearErrorKind::BiasRank,
       "linear bias must have rank one, got rank 0"},
      {"bias width",
       {3, 2},
       Shape{3},
       "w",
       LinearErrorKind::BiasWidthMismatch,
       "linear bias width must equal output width 2, got 3"},
      {"empty bias",
       {3, 2},
       Shape{0},
       "w",
       LinearErrorKind::BiasWidthMismatch,
       "linear bias width must equal output width 2, got 0"},
      {"duplicate names",
       {3, 2},
       Shape{2},
       "w",
       LinearErrorKind::Initialization,
       "parameter name \"w\" first appears at index 0 and repeats at index 1"},
  };
  for (const Case& c : cases) {
    std::optional<NamedParameter> bias;
    if (c.bias) bias = zeros(c.bias_name, *c.bias);
    const LinearError error = error_of(Linear::from_parameters(zeros("w", c.weight), bias));
    EXPECT_EQ(error.kind, c.kind) << c.label;
    EXPECT_EQ(error.message(), c.message) << c.label;
  }
}

TEST(LinearFromParameters, DuplicateIsAWrappedInitializationError) {
  const LinearError error = error_of(Linear::from_parameters(zeros("p.w", {3, 2}), zeros("p.w", {2})));
  ASSERT_TRUE(error.initialization.has_value());
  EXPECT_EQ(error.initialization->kind, InitializationErrorKind::DuplicateName);
  EXPECT_EQ(error.initialization->index, 0u);
  EXPECT_EQ(error.initialization->repeat_index, 1u);
}

// ---- create --------------------------------------------------------------------------------------------

TEST(LinearCreate, NamesXavierWeightAndZeroBias) {
  SplitMix64 rng(5);
  SplitMix64 reference(5);
  auto linear = Linear::create("decoder.proj", 3, 2, true, rng);
  ASSERT_TRUE(linear.ok()) << linear.error().message();
  auto xavier = xavier_uniform("decoder.proj.weight", 3, 2, reference);
  ASSERT_TRUE(xavier.ok());

  EXPECT_EQ(linear->weight().name(), "decoder.proj.weight");
  expect_tensor(linear->weight().value().value(), {3, 2}, xavier->value().value().values());
  ASSERT_TRUE(linear->bias().has_value());
  EXPECT_EQ(linear->bias()->name(), "decoder.proj.bias");
  expect_tensor(linear->bias()->value().value(), {2}, {0.0, 0.0});  // +0.0, bit for bit
  EXPECT_TRUE(linear->bias()->value().is_parameter());
  EXPECT_EQ(linear->parameter_count(), 8u);
  // Six draws for the weight, none for the bias.
  EXPECT_EQ(rng.state(), 5 + 6 * kGolden);
  EXPECT_TRUE(rng == reference);
}

TEST(LinearCreate, WithoutBias) {
  SplitMix64 rng(5);
  auto linear = Linear::create("proj", 4, 3, false, rng);
  ASSERT_TRUE(linear.ok());
  EXPECT_FALSE(linear->bias().has_value());
  EXPECT_EQ(linear->weight().shape(), (Shape{4, 3}));
  EXPECT_EQ(linear->parameter_count(), 12u);
  EXPECT_EQ(rng.state(), 5 + 12 * kGolden);
}

TEST(LinearCreate, FailuresAreTypedAndLeaveTheGeneratorUntouched) {
  struct Case {
    std::string prefix;
    Extent in, out;
    LinearErrorKind kind;
    std::string message;
  };
  const std::vector<Case> cases = {
      // Xavier's fan errors become width errors.
      {"p", 0, 2, LinearErrorKind::ZeroInputWidth, "linear input width must be greater than zero"},
      {"p", 0, 0, LinearErrorKind::ZeroInputWidth, "linear input width must be greater than zero"},
      {"p", 3, 0, LinearErrorKind::ZeroOutputWidth, "linear output width must be greater than zero"},
      // The name is checked before the widths.
      {"Bad", 0, 0, LinearErrorKind::Initialization,
       "parameter name byte 0 must be lowercase ASCII, a digit, underscore, or dot; got 0x42"},
      {"", 3, 2, LinearErrorKind::Initialization,
       "parameter name has an empty dot-separated segment at byte 0"},
      {"p.", 3, 2, LinearErrorKind::Initialization,
       "parameter name has an empty dot-separated segment at byte 2"},
      // Too large to allocate, found before any draw.
      {"p", 100000, 100000, LinearErrorKind::Initialization,
       "shape [100000,100000] has more than 67,108,864 elements"},
  };
  for (const Case& c : cases) {
    for (bool bias : {false, true}) {
      SplitMix64 rng(26);
      const LinearError error = error_of(Linear::create(c.prefix, c.in, c.out, bias, rng));
      EXPECT_EQ(error.kind, c.kind) << c.message;
      EXPECT_EQ(error.message(), c.message);
      EXPECT_EQ(rng.state(), 26u) << c.message;
    }
  }
}

// ---- forward ---------------------------------------------------------------------------------------------

TEST(LinearForward, RejectsRankZero) {
  const LinearError error = error_of(layer(true).forward(constant({}, {1})));
  EXPECT_EQ(error.kind, LinearErrorKind::InputRank);
  EXPECT_EQ(error.actual, 0u);
  EXPECT_EQ(error.message(), "linear input must have at least one feature axis, got rank 0");
}

TEST(LinearForward, RejectsTheWrongFinalWidth) {
  const Linear linear = layer(false);
  const LinearError error = error_of(linear.forward(constant({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0})));
  EXPECT_EQ(error.kind, LinearErrorKind::InputWidthMismatch);
  EXPECT_EQ(error.expected, 3u);
  EXPECT_EQ(error.actual, 4u);
  EXPECT_EQ(error.message(), "linear input final width must equal 3, got 4");
  EXPECT_EQ(error_of(linear.forward(constant({2}, {0, 0}))).message(),
            "linear input final width must equal 3, got 2");
  EXPECT_EQ(error_of(linear.forward(constant({2, 0}, {}))).message(),
            "linear input final width must equal 3, got 0");
}

TEST(LinearForward, RankTwoMultipliesAndAddsTheBias) {
  // [[1,2,-1],[0,1,2]] · W = [[0,3],[2,-1]]; + b = [[0.5,2],[2.5,-2]].
  const TensorValue x = constant({2, 3}, {1, 2, -1, 0, 1, 2});
  expect_tensor(forward(layer(false), x).value(), {2, 2}, {0, 3, 2, -1});
  const TensorValue y = forward(layer(true), x);
  expect_tensor(y.value(), {2, 2}, {0.5, 2, 2.5, -2});
  // The weights are parameters, so the output is tracked even for a constant input.
  EXPECT_TRUE(y.tracked());
}

TEST(LinearForward, RankOneGoesThroughAsOneRow) {
  expect_tensor(forward(layer(false), constant({3}, {1, 2, -1})).value(), {2}, {0, 3});
  expect_tensor(forward(layer(true), constant({3}, {1, 2, -1})).value(), {2}, {0.5, 2});
}

TEST(LinearForward, HigherRanksKeepTheLeadingAxes) {
  const std::vector<double> values = {1, 2, -1, 0, 1, 2};
  expect_tensor(forward(layer(true), constant({2, 1, 3}, values)).value(), {2, 1, 2}, {0.5, 2, 2.5, -2});
  expect_tensor(forward(layer(true), constant({1, 2, 1, 3}, values)).value(), {1, 2, 1, 2},
                {0.5, 2, 2.5, -2});
  expect_tensor(forward(layer(true), constant({0, 3}, {})).value(), {0, 2}, {});
  expect_tensor(forward(layer(true), constant({2, 0, 3}, {})).value(), {2, 0, 2}, {});
}

TEST(LinearForward, NonFiniteResultIsAWrappedTensorError) {
  auto huge = Linear::from_parameters(named("w", {1, 1}, {1e200}), std::nullopt);
  ASSERT_TRUE(huge.ok());
  const LinearError error = error_of(huge->forward(constant({1}, {1e200})));
  EXPECT_EQ(error.kind, LinearErrorKind::Tensor);
  EXPECT_EQ(error.message(), "matmul result must be finite, got inf at index 0");
}

TEST(LinearBackward, RankOneRoundTripReachesInputWeightAndBias) {
  // y = x·W + b for x = [1,2,-1]; L = y·u with u = [1,-1].
  // dx = W·u = [1,-1,2]; dW = x ⊗ u = [[1,-1],[2,-2],[-1,1]]; db = u.
  const Linear linear = layer(true);
  const TensorValue x = parameter({3}, {1, 2, -1});
  const TensorValue y = forward(linear, x);
  auto projected = mul(y, constant({2}, {1, -1}));
  ASSERT_TRUE(projected.ok());
  auto loss = sum_axis(*projected, 0);
  ASSERT_TRUE(loss.ok());
  expect_tensor(loss->value(), {}, {-1.5});  // 0.5 - 2
  ASSERT_TRUE(loss->backward().ok());
  expect_tensor(*x.gradient(), {3}, {1, -1, 2});
  expect_tensor(*linear.weight().value().gradient(), {3, 2}, {1, -1, 2, -2, -1, 1});
  expect_tensor(*linear.bias()->value().gradient(), {2}, {1, -1});
}

TEST(LinearBackward, BatchedWeightAndBiasGradientsSumOverRows) {
  // X = [[1,2,-1],[0,1,2]] as [2,1,3], seed U = [[1,0],[-1,2]]:
  // dX = U·Wᵀ = [[1,0,1],[-1,2,-3]]; dW = Xᵀ·U = [[1,0],[1,2],[-3,4]]; db = column sums of U = [0,2].
  const Linear linear = layer(true);
  const TensorValue x = parameter({2, 1, 3}, {1, 2, -1, 0, 1, 2});
  const TensorValue y = forward(linear, x);
  ASSERT_TRUE(y.backward_with_seed(make({2, 1, 2}, {1, 0, -1, 2})).ok());
  expect_tensor(*x.gradient(), {2, 1, 3}, {1, 0, 1, -1, 2, -3});
  expect_tensor(*linear.weight().value().gradient(), {3, 2}, {1, 0, 1, 2, -3, 4});
  expect_tensor(*linear.bias()->value().gradient(), {2}, {0, 2});
}

TEST(LinearParameterCount, IsInTimesOutPlusOut) {
  SplitMix64 rng(1);
  EXPECT_EQ(Linear::create("a", 3, 2, false, rng)->parameter_count(), 6u);
  EXPECT_EQ(Linear::create("a", 3, 2, true, rng)->parameter_count(), 8u);
  EXPECT_EQ(Linear::create("a", 4, 5, true, rng)->parameter_count(), 25u);
  EXPECT_EQ(Linear::create("a", 1, 1, true, rng)->parameter_count(), 2u);
}

}  // namespace
}  // namespace qkv
