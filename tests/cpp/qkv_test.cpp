// QkvProjections: every error and its precedence (spec section 3), the seed-26 initialisation bit for bit,
// the hand-derived fixture forward and backward (spec section 4), empty axes on the tape, and finite
// differences on random shapes.
#include "attention/qkv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "autograd/gradcheck.hpp"
#include "chapter26/projection_evidence.hpp"
#include "support.hpp"

namespace qkv {
namespace {

using namespace qkv::test;

// Finite differences: the chapter's nominal step and tolerance. L is linear in each probed tensor, so
// the central difference carries only rounding error, about eps·|L|/step ≈ 1e-9 for these sizes.
constexpr double kStep = 1e-6;
constexpr double kTolerance = 2e-6;

const std::string kPrefix = "decoder.block.0.attention";

Tensor zeros(Shape shape) {
  auto tensor = Tensor::zeros(std::move(shape));
  if (!tensor) ADD_FAILURE() << tensor.error().message();
  return tensor ? std::move(tensor).value() : Tensor();
}

NamedParameter named(const std::string& name, const Tensor& value) {
  auto parameter = NamedParameter::create(name, value);
  if (!parameter) {
    ADD_FAILURE() << parameter.error().message();
    return NamedParameter::create("placeholder", Tensor()).value();
  }
  return std::move(parameter).value();
}

TensorValue parameter(const Tensor& value) { return TensorValue::parameter(value).value(); }
TensorValue constant(const Tensor& value) { return TensorValue::constant(value).value(); }

void expect_tensor(const Tensor& actual, const Shape& shape, const std::vector<double>& values) {
  EXPECT_EQ(format_shape(actual.shape()), format_shape(shape));
  EXPECT_EQ(hex_bits(actual.values()), hex_bits(values))
      << "expected " << describe(values) << "\n     got " << describe(actual.values());
}

void expect_positive_zeros(const Tensor& actual, const Shape& shape) {
  EXPECT_EQ(format_shape(actual.shape()), format_shape(shape));
  for (std::size_t i = 0; i < actual.size(); ++i) EXPECT_EQ(bits(actual[i]), 0u) << "index " << i;
}

template <class T>
QkvError error_of(const Result<T, QkvError>& result) {
  if (result.ok()) {
    ADD_FAILURE() << "expected an error";
    return {QkvErrorKind::InputRank};
  }
  return result.error();
}

// ---- the fixture (spec section 4) ------------------------------------------------------------------------

const Tensor kX = make({1, 2, 3}, {1, 2, -1, 0, 1, 2});
const Tensor kWQ = make({3, 2}, {1, 0, 0, 1, 1, -1});
const Tensor kWK = make({3, 2}, {0, 1, 1, 0, -1, 1});
const Tensor kWV = make({3, 2}, {1, 1, 1, -1, 0, 2});
const Upstreams kUpstreams = {make({1, 2, 2}, {1, 0, -1, 2}), make({1, 2, 2}, {0.5, -1, 1, 0}),
                              make({1, 2, 2}, {2, 1, 0, -0.5})};

Result<QkvProjections, QkvError> from_tensors(const Tensor& wq, const Tensor& wk, const Tensor& wv,
                                              const std::string& prefix = kPrefix) {
  return QkvProjections::from_weights(named(prefix + ".query.weight", wq), named(prefix + ".key.weight", wk),
                                      named(prefix + ".value.weight", wv));
}

QkvProjections layer_of(const Tensor& wq, const Tensor& wk, const Tensor& wv) {
  auto layer = from_tensors(wq, wk, wv);
  if (!layer) ADD_FAILURE() << layer.error().message();
  return std::move(layer).value();
}

QkvOutputs forward(const QkvProjections& layer, const TensorValue& input) {
  auto outputs = layer.forward(input);
  if (!outputs) ADD_FAILURE() << outputs.error().message();
  return std::move(outputs).value();
}

// A [d,h] weight named `name` with zeros; only its shape matters for the validation tests.
NamedParameter weight(const std::string& name, Shape shape) { return named(name, zeros(std::move(shape))); }

// ---- forward validation --------------------------------------------------------------------------------

TEST(QkvForward, RejectsEveryRankButThree) {
  const QkvProjections layer = layer_of(kWQ, kWK, kWV);
  // Linear alone would accept ranks 1, 2 and 4 with a final width of 3.
  const std::vector<Shape> shapes = {{}, {3}, {2, 3}, {1, 1, 2, 3}};
  for (const Shape& shape : shapes) {
    const QkvError error = error_of(layer.forward(constant(zeros(shape))));
    EXPECT_EQ(error.kind, QkvErrorKind::InputRank) << format_shape(shape);
    EXPECT_EQ(error.actual, shape.size());
    EXPECT_EQ(error.message(), "Q/K/V input must have rank three [batch, tokens, model_width], got rank " +
                                   std::to_string(shape.size()));
  }
}

TEST(QkvForward, RankBeforeWidth) {
  // [2,4] is wrong in both rank and width: the rank wins.
  const QkvError error = error_of(layer_of(kWQ, kWK, kWV).forward(constant(zeros({2, 4}))));
  EXPECT_EQ(error.kind, QkvErrorKind::InputRank);
  EXPECT_EQ(error.message(), "Q/K/V input must have rank three [batch, tokens, model_width], got rank 2");
}

TEST(QkvForward, RejectsTheWrongModelWidth) {
  const QkvProjections layer = layer_of(kWQ, kWK, kWV);
  const QkvError error = error_of(layer.forward(constant(zeros({1, 2, 4}))));
  EXPECT_EQ(error.kind, QkvErrorKind::InputWidthMismatch);
  EXPECT_EQ(error.expected, 3u);
  EXPECT_EQ(error.actual, 4u);
  EXPECT_EQ(error.message(), "Q/K/V input final width must equal model width 3, got 4");
  EXPECT_EQ(error_of(layer.forward(constant(zeros({0, 0, 2})))).message(),
            "Q/K/V input final width must equal model width 3, got 2");
}

// ---- from_weights validation -----------------------------------------------------------------------------

TEST(QkvFromWeights, BranchErrorsNameTheBranchQueryFirst) {
  // All three broken: query wins.
  const QkvError all =
      error_of(QkvProjections::from_weights(weight("q", {3}), weight("k", {3, 2, 1}), weight("v", {0, 2})));
  EXPECT_EQ(all.kind, QkvErrorKind::Projection);
  EXPECT_EQ(all.branch, Branch::Query);
  ASSERT_TRUE(all.linear.has_value());
  EXPECT_EQ(all.linear->kind, LinearErrorKind::WeightRank);
  EXPECT_EQ(all.message(), "query projection: linear weight must have rank two, got rank 1");
  // Key and value broken: key wins.
  const QkvError key = error_of(
      QkvProjections::from_weights(weight("q", {3, 2}), weight("k", {3, 2, 1}), weight("v", {0, 2})));
  EXPECT_EQ(key.branch, Branch::Key);
  EXPECT_EQ(key.message(), "key projection: linear weight must have rank two, got rank 3");
  // Only value broken.
  const QkvError value =
      error_of(QkvProjections::from_weights(weight("q", {3, 2}), weight("k", {3, 2}), weight("v", {0, 2})));
  EXPECT_EQ(value.branch, Branch::Value);
  EXPECT_EQ(value.message(), "value projection: linear input width must be greater than zero");
}

TEST(QkvFromWeights, BranchErrorsBeforeSharedWidthChecks) {
  // Model widths 3, 4, 3 would mismatch, but value's zero head width is a branch error and wins.
  const QkvError error =
      error_of(QkvProjections::from_weights(weight("q", {3, 2}), weight("k", {4, 2}), weight("v", {3, 0})));
  EXPECT_EQ(error.kind, QkvErrorKind::Projection);
  EXPECT_EQ(error.message(), "value projection: linear output width must be greater than zero");
}

TEST(QkvFromWeights, ModelWidthsBeforeHeadWidths) {
  // [3,2],[4,3],[3,2]: both widths disagree; the model (input) width is reported.
  const QkvError error =
      error_of(QkvProjections::from_weights(weight("q", {3, 2}), weight("k", {4, 3}), weight("v", {3, 2})));
  EXPECT_EQ(error.kind, QkvErrorKind::BranchInputWidthMismatch);
  EXPECT_EQ(error.query, 3u);
  EXPECT_EQ(error.key, 4u);
  EXPECT_EQ(error.value, 3u);
  EXPECT_EQ(error.message(), "Q/K/V model widths must match, got query 3, key 4, value 3");
  EXPECT_EQ(
      error_of(QkvProjections::from_weights(weight("q", {3, 2}), weight("k", {3, 2}), weight("v", {5, 2})))
          .message(),
      "Q/K/V model widths must match, got query 3, key 3, value 5");
}

// Each branch's head width is compared with the others: a key, value or query weight one column wider
// than the other two is refused, with the widths in the message.
TEST(QkvFromWeights, HeadWidthsMustMatch) {
  const struct {
    Shape query, key, value;
    const char* message;
  } cases[] = {
      {{3, 2}, {3, 3}, {3, 2}, "Q/K/V head widths must match, got query 2, key 3, value 2"},
      {{3, 2}, {3, 2}, {3, 3}, "Q/K/V head widths must match, got query 2, key 2, value 3"},
      {{3, 3}, {3, 2}, {3, 2}, "Q/K/V head widths must match, got query 3, key 2, value 2"},
  };
  for (const auto& c : cases) {
    const QkvError error = error_of(
        QkvProjections::from_weights(weight("q", c.query), weight("k", c.key), weight("v", c.value)));
    EXPECT_EQ(error.kind, QkvErrorKind::BranchOutputWidthMismatch) << c.message;
    EXPECT_EQ(error.query, c.query[1]) << c.message;
    EXPECT_EQ(error.key, c.key[1]) << c.message;
    EXPECT_EQ(error.value, c.value[1]) << c.message;
    EXPECT_EQ(error.message(), c.message);
  }
}

TEST(QkvFromWeights, WidthsBeforeDuplicateNames) {
  const QkvError error = error_of(
      QkvProjections::from_weights(weight("same", {3, 2}), weight("same", {3, 3}), weight("same", {3, 2})));
  EXPECT_EQ(error.kind, QkvErrorKind::BranchOutputWidthMismatch);
  EXPECT_EQ(error.message(), "Q/K/V head widths must match, got query 2, key 3, value 2");
}

TEST(QkvFromWeights, DuplicateNamesPrintTheInnerMessage) {
  const QkvError error = error_of(QkvProjections::from_weights(weight("same", {3, 2}), weight("same", {3, 2}),
                                                               weight(kPrefix + ".value.weight", {3, 2})));
  EXPECT_EQ(error.kind, QkvErrorKind::Initialization);
  ASSERT_TRUE(error.initialization.has_value());
  EXPECT_EQ(error.initialization->kind, InitializationErrorKind::DuplicateName);
  EXPECT_EQ(error.message(), "parameter name \"same\" first appears at index 0 and repeats at index 1");
  EXPECT_EQ(
      error_of(QkvProjections::from_weights(weight("a", {3, 2}), weight("b", {3, 2}), weight("a", {3, 2})))
          .message(),
      "parameter name \"a\" first appears at index 0 and repeats at index 2");
}

TEST(QkvFromWeights, AcceptsAnyValidNames) {
  auto layer = QkvProjections::from_weights(weight("z", {3, 2}), weight("a", {3, 2}), weight("m.0", {3, 2}));
  ASSERT_TRUE(layer.ok());
  EXPECT_EQ(layer->parameters()[0].name(), "z");
  EXPECT_EQ(layer->parameters()[1].name(), "a");
  EXPECT_EQ(layer->parameters()[2].name(), "m.0");
}

// ---- create validation (transactional) -------------------------------------------------------------------

TEST(QkvCreate, ErrorsAndPrecedenceLeaveTheGeneratorUntouched) {
  struct Case {
    std::string prefix;
    Extent model_width, head_width;
    std::string message;
  };
  const std::vector<Case> cases = {
      // The name before the widths.
      {"Bad", 0, 0,
       "query projection: parameter name byte 0 must be lowercase ASCII, a digit, underscore, or dot; got "
       "0x42"},
      {"p", 3, 0, "query projection: linear output width must be greater than zero"},
      {"p", 0, 2, "query projection: linear input width must be greater than zero"},
      {"p", 0, 0, "query projection: linear input width must be greater than zero"},
      // An empty prefix gives ".query.weight": an empty segment at byte 0, not an empty name.
      {"", 3, 2, "query projection: parameter name has an empty dot-separated segment at byte 0"},
      {"p.", 3, 2, "query projection: parameter name has an empty dot-separated segment at byte 2"},
      // Too large for the limit, rejected before any draw.
      {"p", 100000, 100000, "query projection: shape [100000,100000] has more than 67,108,864 elements"},
  };
  for (const Case& c : cases) {
    SplitMix64 rng(26);
    const QkvError error = error_of(QkvProjections::create(c.prefix, c.model_width, c.head_width, rng));
    EXPECT_EQ(error.kind, QkvErrorKind::Projection) << c.message;
    EXPECT_EQ(error.branch, Branch::Query) << c.message;
    EXPECT_EQ(error.message(), c.message);
    EXPECT_EQ(rng.state(), 26u) << c.message;
  }
  // The empty prefix is reported as a segment error, never as EmptyName.
  SplitMix64 rng(26);
  const QkvError empty = error_of(QkvProjections::create("", 3, 2, rng));
  ASSERT_TRUE(empty.linear.has_value() && empty.linear->initialization.has_value());
  EXPECT_EQ(empty.linear->initialization->kind, InitializationErrorKind::EmptyNameSegment);
}

// Through create, only the query branch can fail: the three names share one prefix (if "{p}.query.weight"
// is valid, so are "{p}.key.weight" and "{p}.value.weight") and the three branches share both widths. The
// trial-copy logic for a key or value failure is therefore unreachable from the public API; the branch
// order of failures is covered through from_weights above.

// ---- seed 26 (spec section 2)
// ------------------------------------------------------------------------------

const std::vector<std::string> kSeed26Query = {"3fe28ba5b2e48d79", "bfba12b1ac22edca", "bfde6b3203dc6b36",
                                               "bfd86e70b9cb9234", "3feff4a6d7ba4eec", "bfe9521f469ff582"};
const std::vector<std::string> kSeed26Key = {"bfec71707c57b5d8", "bfedd3999ff04a8b", "bfe0af74306c1561",
                                             "bfd69184f40f8aca", "3fd4109654c211dd", "bfd4d29e462eaeb0"};
const std::vector<std::string> kSeed26Value = {"3fe52f2c2dc04ebc", "bfd0a0538c864566", "3fe5f2ac2f92e0d4",
                                               "bfec57563e8765ae", "3fdb99b01557b5fc", "bfe7f0c9ecccb296"};
constexpr std::uint64_t kSeed26FinalState = 0x1fe68f0af33cb994ULL;

const std::vector<double>& weight_values(const Linear& branch) {
  return branch.weight().value().value().values();
}

TEST(QkvSeed26, MatchesTheSpecTableBitForBit) {
  // The bit patterns are the spec table's %.17g values (0.5795467847823793, ..., -0.7481431603424251),
  // which round-trip exactly; an independent Python SplitMix64/Xavier gives the same 18 patterns.
  SplitMix64 rng(26);
  auto layer = QkvProjections::create(kPrefix, 3, 2, rng);
  ASSERT_TRUE(layer.ok()) << layer.error().message();
  EXPECT_EQ(hex_bits(weight_values(layer->query())), kSeed26Query);
  EXPECT_EQ(hex_bits(weight_values(layer->key())), kSeed26Key);
  EXPECT_EQ(hex_bits(weight_values(layer->value())), kSeed26Value);
  EXPECT_EQ(bits(weight_values(layer->query()).front()), 0x3fe28ba5b2e48d79ULL);
  EXPECT_EQ(bits(weight_values(layer->value()).back()), 0xbfe7f0c9ecccb296ULL);
  EXPECT_EQ(rng.state(), kSeed26FinalState);
  EXPECT_EQ(rng.state(), 26 + 18 * 0x9e3779b97f4a7c15ULL);
  // Spot-check the decimal table and the limit sqrt(6/5) = 1.0954451150103321.
  EXPECT_EQ(weight_values(layer->query())[0], 0.5795467847823793);
  EXPECT_EQ(weight_values(layer->value())[5], -0.7481431603424251);
  EXPECT_EQ(std::sqrt(6.0 / 5.0), 1.0954451150103321);
  for (const NamedParameter& parameter : layer->parameters()) {
    for (double value : parameter.value().value().values()) EXPECT_LE(std::fabs(value), 1.0954451150103321);
  }
}

TEST(QkvSeed26, NamesShapesAndCount) {
  SplitMix64 rng(26);
  auto layer = QkvProjections::create(kPrefix, 3, 2, rng);
  ASSERT_TRUE(layer.ok());
  ASSERT_EQ(layer->parameters().size(), 3u);
  EXPECT_EQ(layer->parameters()[0].name(), "decoder.block.0.attention.query.weight");
  EXPECT_EQ(layer->parameters()[1].name(), "decoder.block.0.attention.key.weight");
  EXPECT_EQ(layer->parameters()[2].name(), "decoder.block.0.attention.value.weight");
  for (Branch branch : {Branch::Query, Branch::Key, Branch::Value}) {
    EXPECT_EQ(layer->branch(branch).weight().shape(), (Shape{3, 2}));
    EXPECT_FALSE(layer->branch(branch).bias().has_value());
  }
  EXPECT_EQ(layer->model_width(), 3u);
  EXPECT_EQ(layer->head_width(), 2u);
  EXPECT_EQ(layer->parameter_count(), 18u);
}

TEST(QkvSeed26, EqualsThreeSequentialLinearCreates) {
  SplitMix64 layer_rng(26);
  auto layer = QkvProjections::create(kPrefix, 3, 2, layer_rng);
  ASSERT_TRUE(layer.ok());
  SplitMix64 rng(26);
  const char* roles[] = {"query", "key", "value"};
  const Branch branches[] = {Branch::Query, Branch::Key, Branch::Value};
  for (int i = 0; i < 3; ++i) {
    auto linear = Linear::create(kPrefix + "." + roles[i], 3, 2, false, rng);
    ASSERT_TRUE(linear.ok());
    EXPECT_EQ(linear->weight().name(), layer->branch(branches[i]).weight().name());
    EXPECT_EQ(hex_bits(weight_values(*linear)), hex_bits(weight_values(layer->branch(branches[i]))))
        << roles[i];
  }
  EXPECT_TRUE(rng == layer_rng);
}

TEST(QkvSeed26, ReproducibleAndIndependent) {
  SplitMix64 first_rng(26);
  SplitMix64 second_rng(26);
  auto first = QkvProjections::create(kPrefix, 3, 2, first_rng);
  auto second = QkvProjections::create(kPrefix, 3, 2, second_rng);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_TRUE(first_rng == second_rng);
  for (std::size_t i = 0; i < 3; ++i) {
    const TensorValue& a = first->parameters()[i].value();
    const TensorValue& b = second->parameters()[i].value();
    EXPECT_EQ(hex_bits(a.value().values()), hex_bits(b.value().values()));
    EXPECT_FALSE(a.is_same_node(b));  // two builds, two sets of nodes
  }
  // Within one build: three distinct nodes with unequal values.
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = i + 1; j < 3; ++j) {
      EXPECT_FALSE(first->parameters()[i].value().is_same_node(first->parameters()[j].value()));
      EXPECT_NE(first->parameters()[i].value().value().values(),
                first->parameters()[j].value().value().values());
    }
  }
}

TEST(QkvSeed26, SuccessCommitsTheDrawsOthersDoNot) {
  // A failure between two successes does not disturb the stream.
  SplitMix64 rng(26);
  ASSERT_TRUE(QkvProjections::create("first", 3, 2, rng).ok());
  const std::uint64_t after_first = rng.state();
  EXPECT_FALSE(QkvProjections::create("second", 3, 0, rng).ok());
  EXPECT_EQ(rng.state(), after_first);
  ASSERT_TRUE(QkvProjections::create("second", 3, 2, rng).ok());
  EXPECT_EQ(rng.state(), 26 + 36 * 0x9e3779b97f4a7c15ULL);
}

// ---- structure
// ---------------------------------------------------------------------------------------------

TEST(QkvStructure, ParametersAreTheBranchNodes) {
  const QkvProjections layer = layer_of(kWQ, kWK, kWV);
  const std::vector<NamedParameter>& parameters = layer.parameters();
  ASSERT_EQ(parameters.size(), 3u);
  EXPECT_TRUE(parameters[0].value().is_same_node(layer.query().weight().value()));
  EXPECT_TRUE(parameters[1].value().is_same_node(layer.key().weight().value()));
  EXPECT_TRUE(parameters[2].value().is_same_node(layer.value().weight().value()));
  EXPECT_TRUE(layer.branch(Branch::Key).weight().value().is_same_node(layer.key().weight().value()));
  EXPECT_FALSE(parameters[0].value().is_same_node(parameters[1].value()));
  EXPECT_FALSE(parameters[0].value().is_same_node(parameters[2].value()));
  EXPECT_FALSE(parameters[1].value().is_same_node(parameters[2].value()));
  EXPECT_EQ(layer.parameter_count(), 18u);
  EXPECT_STREQ(branch_name(Branch::Query), "query");
  EXPECT_STREQ(branch_name(Branch::Key), "key");
  EXPECT_STREQ(branch_name(Branch::Value), "value");
}

TEST(QkvStructure, ParameterCountIsThreeDH) {
  SplitMix64 rng(1);
  EXPECT_EQ(QkvProjections::create("a", 4, 3, rng)->parameter_count(), 36u);
  EXPECT_EQ(QkvProjections::create("b", 1, 1, rng)->parameter_count(), 3u);
}

// ---- fixture forward -------------------------------------------------------------------------------------

TEST(QkvFixture, ForwardGivesTheHandDerivedViews) {
  const QkvProjections layer = layer_of(kWQ, kWK, kWV);
  const QkvOutputs outputs = forward(layer, constant(kX));
  expect_tensor(outputs.query.value(), {1, 2, 2}, {0, 3, 2, -1});
  expect_tensor(outputs.key.value(), {1, 2, 2}, {3, 0, -1, 2});
  expect_tensor(outputs.value.value(), {1, 2, 2}, {3, -3, 1, 3});
  // Tracked although X is a constant: the weights are parameters.
  EXPECT_TRUE(outputs.query.tracked());
  EXPECT_TRUE(outputs.key.tracked());
  EXPECT_TRUE(outputs.value.tracked());
}

TEST(QkvFixture, BatchAxisIsKept) {
  // X twice along the batch: every view is the fixture's, twice.
  const Tensor twice = make({2, 2, 3}, {1, 2, -1, 0, 1, 2, 1, 2, -1, 0, 1, 2});
  const QkvOutputs outputs = forward(layer_of(kWQ, kWK, kWV), constant(twice));
  expect_tensor(outputs.query.value(), {2, 2, 2}, {0, 3, 2, -1, 0, 3, 2, -1});
  expect_tensor(outputs.key.value(), {2, 2, 2}, {3, 0, -1, 2, 3, 0, -1, 2});
  expect_tensor(outputs.value.value(), {2, 2, 2}, {3, -3, 1, 3, 3, -3, 1, 3});
}

TEST(QkvFixture, ChangingOnlyTheQueryWeightLeavesKeyAndValueBitwiseUnchanged) {
  const QkvOutputs frozen = forward(layer_of(kWQ, kWK, kWV), constant(kX));
  Tensor changed_query = kWQ;
  changed_query.mutable_values()[0] = 2;  // W_Q[0,0]: 1 -> 2
  const QkvOutputs changed = forward(layer_of(changed_query, kWK, kWV), constant(kX));
  expect_tensor(changed.query.value(), {1, 2, 2}, {1, 3, 2, -1});
  EXPECT_EQ(hex_bits(changed.key.value().values()), hex_bits(frozen.key.value().values()));
  EXPECT_EQ(hex_bits(changed.value.value().values()), hex_bits(frozen.value.value().values()));
}

// ---- fixture backward ------------------------------------------------------------------------------------

struct Gradients {
  double loss = 0.0;
  Tensor input, query, key, value;
};

// L = Σ Q⊙U_Q + Σ K⊙U_K + Σ V⊙U_V with X a parameter; one backward from seed 1.0.
Gradients backward_of(const Tensor& x, const Tensor& wq, const Tensor& wk, const Tensor& wv,
                      const Upstreams& upstream) {
  Gradients out;
  const QkvProjections layer = layer_of(wq, wk, wv);
  const TensorValue input = parameter(x);
  auto loss = upstream_objective(forward(layer, input), upstream);
  if (!loss) {
    ADD_FAILURE() << loss.error().message();
    return out;
  }
  EXPECT_TRUE(loss->tracked());
  EXPECT_EQ(loss->shape(), Shape{});
  auto done = loss->backward();
  if (!done) ADD_FAILURE() << done.error().message();
  out.loss = loss->value()[0];
  out.input = *input.gradient();
  out.query = *layer.query().weight().value().gradient();
  out.key = *layer.key().weight().value().gradient();
  out.value = *layer.value().weight().value().gradient();
  return out;
}

TEST(QkvFixture, BackwardGivesTheHandDerivedGradients) {
  const Gradients g = backward_of(kX, kWQ, kWK, kWV, kUpstreams);
  EXPECT_EQ(bits(g.loss), bits(-2.0));  // -4 + 0.5 + 1.5
  // dX = U_Q W_Qᵀ + U_K W_Kᵀ + U_V W_Vᵀ; dW = X_(BT)ᵀ U_(BT) per branch.
  expect_tensor(g.input, {1, 2, 3}, {3, 1.5, 1.5, -1.5, 3.5, -5});
  expect_tensor(g.query, {3, 2}, {1, 0, 1, 2, -3, 4});
  expect_tensor(g.key, {3, 2}, {0.5, -1, 2, -2, 1.5, 1});
  expect_tensor(g.value, {3, 2}, {2, 1, 4, 1.5, -2, -2});
}

TEST(QkvFixture, RepeatedBackwardAccumulates) {
  const QkvProjections layer = layer_of(kWQ, kWK, kWV);
  const TensorValue input = parameter(kX);
  auto loss = upstream_objective(forward(layer, input), kUpstreams);
  ASSERT_TRUE(loss.ok());
  ASSERT_TRUE(loss->backward().ok());
  ASSERT_TRUE(loss->backward().ok());
  expect_tensor(*input.gradient(), {1, 2, 3}, {6, 3, 3, -3, 7, -10});
  expect_tensor(*layer.query().weight().value().gradient(), {3, 2}, {2, 0, 2, 4, -6, 8});
}

TEST(QkvFixture, SeededLayerLossMatchesTheSpec) {
  // The seed-26 layer on the fixture X with the fixture upstreams: L = -3.412164865166309 (spec section 2).
  SplitMix64 rng(26);
  auto layer = QkvProjections::create(kPrefix, 3, 2, rng);
  ASSERT_TRUE(layer.ok());
  auto loss = upstream_objective(forward(*layer, constant(kX)), kUpstreams);
  ASSERT_TRUE(loss.ok());
  EXPECT_EQ(loss->value()[0], -3.412164865166309);
}

// ---- empty axes stay on the tape -------------------------------------------------------------------------

TEST(QkvEmptyAxes, ForwardAndBackwardStayConnected) {
  for (const Shape& shape : {Shape{0, 2, 3}, Shape{2, 0, 3}, Shape{0, 0, 3}, Shape{1, 0, 3}}) {
    SCOPED_TRACE(format_shape(shape));
    const Shape out_shape = {shape[0], shape[1], 2};
    const QkvProjections layer = layer_of(kWQ, kWK, kWV);
    const TensorValue input = parameter(zeros(shape));
    const QkvOutputs outputs = forward(layer, input);
    for (const TensorValue* view : {&outputs.query, &outputs.key, &outputs.value}) {
      EXPECT_EQ(view->shape(), out_shape);
      EXPECT_TRUE(view->tracked());
    }
    const Upstreams empty = {zeros(out_shape), zeros(out_shape), zeros(out_shape)};
    auto loss = upstream_objective(outputs, empty);
    ASSERT_TRUE(loss.ok()) << loss.error().message();
    EXPECT_TRUE(loss->tracked());
    expect_positive_zeros(loss->value(), {});
    auto done = loss->backward();
    ASSERT_TRUE(done.ok()) << done.error().message();
    expect_positive_zeros(*input.gradient(), shape);
    for (const NamedParameter& parameter : layer.parameters())
      expect_positive_zeros(*parameter.value().gradient(), {3, 2});
  }
}

// ---- finite differences ----------------------------------------------------------------------------------

struct Problem {
  Tensor x, wq, wk, wv;
  Upstreams upstream;
};

// L at a point, with X a constant and a fresh layer, as the chapter's probes do.
Result<double, std::string> loss_at(const Problem& p) {
  auto layer = from_tensors(p.wq, p.wk, p.wv, "probe");
  if (!layer) return fail(layer.error().message());
  auto input = TensorValue::constant(p.x);
  if (!input) return fail(input.error().message());
  auto outputs = layer->forward(*input);
  if (!outputs) return fail(outputs.error().message());
  auto loss = upstream_objective(*outputs, p.upstream);
  if (!loss) return fail(loss.error().message());
  return loss->value()[0];
}

// Checks every coordinate of X and of the three weights; returns the four reports.
std::vector<GradcheckReport> check_all(const Problem& problem) {
  const Gradients g = backward_of(problem.x, problem.wq, problem.wk, problem.wv, problem.upstream);
  const std::pair<Tensor Problem::*, const Tensor*> probes[] = {
      {&Problem::x, &g.input}, {&Problem::wq, &g.query}, {&Problem::wk, &g.key}, {&Problem::wv, &g.value}};
  std::vector<GradcheckReport> reports;
  for (const auto& [member, analytic] : probes) {
    const Objective objective = [&problem, member = member](const Tensor& point) {
      Problem trial = problem;
      trial.*member = point;
      return loss_at(trial);
    };
    const Tensor& point = problem.*member;
    auto report = gradcheck(point, *analytic, objective, point.size(), {kStep, kTolerance});
    if (!report) {
      ADD_FAILURE() << report.error().message();
      reports.push_back({});
      continue;
    }
    reports.push_back(*report);
  }
  return reports;
}

TEST(QkvGradcheck, FixtureEveryCoordinatePasses) {
  const std::vector<GradcheckReport> reports = check_all({kX, kWQ, kWK, kWV, kUpstreams});
  ASSERT_EQ(reports.size(), 4u);
  for (const GradcheckReport& report : reports) {
    EXPECT_TRUE(report.passed) << "max error " << report.max_error;
    EXPECT_EQ(report.checks, 6u);
  }
  // The course observed its worst error at X[3]: -1.5000000006537562 against the exact -1.5.
  EXPECT_EQ(reports[0].worst_index, 3u);
  EXPECT_EQ(reports[0].worst_numeric, -1.5000000006537562);
  for (const GradcheckReport& report : reports) EXPECT_LE(report.max_error, 4.4e-10);
}

Tensor random_tensor(Shape shape, SplitMix64& rng) {
  Tensor tensor = zeros(std::move(shape));
  for (double& value : tensor.mutable_values()) value = 4.0 * rng.next_unit_f64() - 2.0;  // [-2, 2)
  return tensor;
}

TEST(QkvGradcheck, RandomShapesIncludingEmptyAxesPass) {
  SplitMix64 rng(2026);
  std::vector<Shape> dims = {{0, 2, 3, 2}, {2, 0, 3, 2}, {0, 0, 3, 2}};  // B, T, d, h: empty axes always
  for (int trial = 0; trial < 30; ++trial) {
    dims.push_back({rng.next_u64() % 4, rng.next_u64() % 4, 1 + rng.next_u64() % 4, 1 + rng.next_u64() % 4});
  }
  for (const Shape& dim : dims) {
    const Extent b = dim[0], t = dim[1], d = dim[2], h = dim[3];
    SCOPED_TRACE("B=" + std::to_string(b) + " T=" + std::to_string(t) + " d=" + std::to_string(d) +
                 " h=" + std::to_string(h));
    const Problem problem = {
        random_tensor({b, t, d}, rng),
        random_tensor({d, h}, rng),
        random_tensor({d, h}, rng),
        random_tensor({d, h}, rng),
        {random_tensor({b, t, h}, rng), random_tensor({b, t, h}, rng), random_tensor({b, t, h}, rng)}};
    const std::vector<GradcheckReport> reports = check_all(problem);
    ASSERT_EQ(reports.size(), 4u);
    EXPECT_EQ(reports[0].checks, b * t * d);  // 0 when an axis is empty
    for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(reports[i].checks, d * h);
    for (const GradcheckReport& report : reports) {
      EXPECT_TRUE(report.passed) << "max error " << report.max_error << " at " << report.worst_index;
    }
  }
}

}  // namespace
}  // namespace qkv
