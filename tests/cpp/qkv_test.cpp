// QkvProjections: every error and its precedence (spec section 3), the seed-26 initialisation bit for bit,
// and the hand-derived fixture forward (spec section 4). Backward under the chapter's loss, empty axes on
// the tape and finite differences: qkv_backward_test.cpp (it needs chapter26's loss).
#include "attention/qkv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "qkv_fixture.hpp"
#include "support.hpp"

namespace qkv {
namespace {

using namespace qkv::test;

template <class T>
QkvError error_of(const Result<T, QkvError>& result) {
  if (result.ok()) {
    ADD_FAILURE() << "expected an error";
    return {QkvErrorKind::InputRank};
  }
  return result.error();
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

}  // namespace
}  // namespace qkv
