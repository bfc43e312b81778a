// Chapter 26 against fixtures/: the frozen fixture's every number bit for bit, the golden report and trace
// byte for byte, the seed-26 weights, the rejected requests, and evidence for arbitrary valid requests.
#include "chapter26/chapter26.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "chapter26/evidence_cost.hpp"
#include "chapter26/score_changes.hpp"
#include "fixture.hpp"
#include "text/format.hpp"

namespace qkv {
namespace {

using test::bits_of;
using test::json;
using test::tensor_from;

// Gradcheck on the fixture: spec section 4 observed every error at or below 4.4e-10.
constexpr double kFixtureMaxErrorBelow = 5e-10;
// Random requests: our gradients against a plain-loop reference summed in another order.
constexpr double kReferenceRelativeTolerance = 1e-12;

const json& fixture() {
  static const json loaded = test::load_fixture();
  return loaded;
}
const json& expected() { return fixture().at("expected"); }

// Same shape and the same 64-bit pattern in every position; prints both sides as bit patterns.
void expect_same_bits(const Tensor& actual, const Tensor& wanted, const std::string& what) {
  EXPECT_EQ(actual.shape(), wanted.shape()) << what;
  EXPECT_EQ(test::hex_of(actual.values()), test::hex_of(wanted.values())) << what;
}

void expect_same_bits(const Tensor& actual, const json& wanted, const std::string& what) {
  expect_same_bits(actual, tensor_from(wanted), what);
}

const ChapterEvidence& chapter_evidence() {
  static const ChapterEvidence evidence = [] {
    auto computed = compute_chapter_evidence(chapter_fixture());
    if (!computed) {
      ADD_FAILURE() << computed.error().message;
      std::abort();
    }
    return std::move(*computed);
  }();
  return evidence;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  if (start != text.size()) lines.push_back(text.substr(start));  // an unterminated last line
  return lines;
}

// Every line ends in LF (the last one too), none holds a CR, and there are `count` of them.
void expect_lf_lines(const std::string& text, std::size_t count, const std::string& what) {
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<std::ptrdiff_t>(count)) << what;
  ASSERT_FALSE(text.empty()) << what;
  EXPECT_EQ(text.back(), '\n') << what;
  EXPECT_EQ(text.find('\r'), std::string::npos) << what;
  EXPECT_EQ(lines_of(text).size(), count) << what;
}

ProjectionRequest with_upstreams(ProjectionRequest request, Tensor query, Tensor key, Tensor value) {
  request.upstream = Upstreams{std::move(query), std::move(key), std::move(value)};
  return request;
}

Tensor make(Shape shape, std::vector<double> values) { return Tensor::from_values(shape, values).value(); }

// ---- the fixture itself --------------------------------------------------------------------------------

TEST(Chapter26Fixture, ChapterFixtureEqualsTheFixtureFileInputsBitwise) {
  const ProjectionRequest request = chapter_fixture();
  expect_same_bits(request.input, fixture().at("input"), "input");
  expect_same_bits(request.query_weight, fixture().at("query_weight"), "query_weight");
  expect_same_bits(request.key_weight, fixture().at("key_weight"), "key_weight");
  expect_same_bits(request.value_weight, fixture().at("value_weight"), "value_weight");
  ASSERT_TRUE(request.upstream.has_value());
  expect_same_bits(request.upstream->query, fixture().at("upstream").at("query"), "upstream.query");
  expect_same_bits(request.upstream->key, fixture().at("upstream").at("key"), "upstream.key");
  expect_same_bits(request.upstream->value, fixture().at("upstream").at("value"), "upstream.value");
}

TEST(Chapter26Fixture, SeedTwentySixBitsAgreeWithTheirDecimals) {
  // Two hand-typed spellings of the same 18 numbers: a typo in either shows up here.
  const json& seed26 = fixture().at("seed26");
  for (const char* branch : {"query", "key", "value"}) {
    const json& weight = seed26.at(branch);
    std::vector<double> decimals = weight.at("decimal").get<std::vector<double>>();
    EXPECT_EQ(test::values_from(weight), decimals) << branch;
  }
  EXPECT_EQ(test::values_from(seed26.at("query")).front(), test::double_from_bits(0x3fe28ba5b2e48d79));
  EXPECT_EQ(test::values_from(seed26.at("value")).back(), test::double_from_bits(0xbfe7f0c9ecccb296));
}

// ---- the primary computation ---------------------------------------------------------------------------

TEST(Chapter26Evidence, ForwardOutputsEqualTheFixtureBitwise) {
  const ProjectionEvidence& primary = chapter_evidence().primary;
  expect_same_bits(primary.query, expected().at("query"), "query");
  expect_same_bits(primary.key, expected().at("key"), "key");
  expect_same_bits(primary.value, expected().at("value"), "value");
  expect_same_bits(primary.scores, expected().at("scores"), "scores");
  EXPECT_EQ(primary.parameter_names, expected().at("parameter_names").get<std::vector<std::string>>());
  EXPECT_EQ(primary.parameter_count, expected().at("parameter_count").get<Extent>());
  EXPECT_EQ(chapter_evidence().model_width, 3u);
  EXPECT_EQ(chapter_evidence().head_width, 2u);
}

TEST(Chapter26Evidence, WorkedExampleRowsAreRowsOfTheOutputs) {
  const json& rows = expected().at("worked_example");
  const ProjectionEvidence& primary = chapter_evidence().primary;
  const std::pair<const char*, const Tensor*> views[] = {
      {"q", &primary.query}, {"k", &primary.key}, {"v", &primary.value}};
  for (const auto& [letter, output] : views) {
    for (std::size_t token = 0; token < 2; ++token) {
      const std::string name = letter + std::to_string(token);
      const std::vector<double> row(output->values().begin() + 2 * token,
                                    output->values().begin() + 2 * token + 2);
      EXPECT_EQ(bits_of(row), bits_of(rows.at(name).get<std::vector<double>>())) << name;
    }
  }
}

TEST(Chapter26Evidence, ScoresAreRawQueryKeyDotProductsPerBatchItem) {
  // [B, T, T] at any shape, each score q_{b,i}·k_{b,j} summed from +0.0 in ascending k (not scaled).
  const ChapterEvidence evidence =
      compute_chapter_evidence(test::with_input(chapter_fixture(), test::two_items_of_three_tokens()))
          .value();
  const ProjectionEvidence& p = evidence.primary;
  ASSERT_EQ(p.scores.shape(), (Shape{2, 3, 3}));
  for (Extent b = 0; b < 2; ++b)
    for (Extent i = 0; i < 3; ++i)
      for (Extent j = 0; j < 3; ++j) {
        double sum = 0.0;
        for (Extent k = 0; k < 2; ++k) sum += p.query[(b * 3 + i) * 2 + k] * p.key[(b * 3 + j) * 2 + k];
        EXPECT_EQ(bits_of(p.scores[(b * 3 + i) * 3 + j]), bits_of(sum)) << b << "," << i << "," << j;
      }
  EXPECT_EQ(p.scores[1 * 9 + 2 * 3 + 0], -2.0);  // q_{1,2} = [4, −1], k_{1,0} = [0, 2], by hand
  EXPECT_TRUE(evidence.bitwise->replay_bitwise);

  const ProjectionRequest empty = test::with_input(chapter_fixture(), Tensor::zeros({2, 0, 3}).value());
  EXPECT_EQ(compute_chapter_evidence(empty).value().primary.scores.shape(), (Shape{2, 0, 0}));
}

TEST(Chapter26Evidence, ScoresAreCountedInTheEvidenceCost) {
  // B·T·T·d_head multiply-adds at least, and the [B, T, T] result among the tensors allocated.
  const double b = 3, t = 50, d = 4, h = 6;
  const EvidenceCost without = evidence_cost(b, t, d, h, true, kGradcheckSamplesPerTensor);
  const EvidenceCost with = evidence_cost(b, t, d, h, true, kGradcheckSamplesPerTensor, true);
  EXPECT_GE(with.forward - without.forward, b * t * t * h);
  EXPECT_EQ(with.backward, without.backward);
  EXPECT_EQ(with.gradcheck, without.gradcheck);
  EXPECT_EQ(with.largest_elements, b * t * t);
}

TEST(Chapter26Evidence, TokenNamesTellTheFixtureStory) {
  EXPECT_EQ(token_name(0), "fresh");
  EXPECT_EQ(token_name(1), "bread");
  EXPECT_EQ(token_name(2), "token 2");
  EXPECT_EQ(token_name(7), "token 7");
  EXPECT_EQ(token_names(3), (std::vector<std::string>{"fresh", "bread", "token 2"}));
  EXPECT_TRUE(token_names(0).empty());
}

TEST(Chapter26Evidence, LossAndGradientsEqualTheFixtureBitwise) {
  ASSERT_TRUE(chapter_evidence().primary.gradients.has_value());
  const ProjectionGradients& gradients = *chapter_evidence().primary.gradients;
  EXPECT_EQ(bits_of(gradients.loss), bits_of(expected().at("loss").get<double>()))
      << "loss " << gradients.loss;
  expect_same_bits(gradients.input, expected().at("input_gradient"), "input_gradient");
  expect_same_bits(gradients.query_weight, expected().at("query_weight_gradient"), "query_weight_gradient");
  expect_same_bits(gradients.key_weight, expected().at("key_weight_gradient"), "key_weight_gradient");
  expect_same_bits(gradients.value_weight, expected().at("value_weight_gradient"), "value_weight_gradient");
}

TEST(Chapter26Evidence, GradcheckChecksEveryCoordinateAndPasses) {
  const json& wanted = expected().at("gradcheck");
  ASSERT_TRUE(chapter_evidence().primary.gradcheck.has_value());
  const GradcheckSummary& check = *chapter_evidence().primary.gradcheck;
  EXPECT_TRUE(check.passed) << check.problem;
  EXPECT_TRUE(check.problem.empty()) << check.problem;
  const std::size_t per_tensor = wanted.at("checks_per_tensor").get<std::size_t>();
  EXPECT_EQ(check.input_checks, per_tensor);
  EXPECT_EQ(check.query_checks, per_tensor);
  EXPECT_EQ(check.key_checks, per_tensor);
  EXPECT_EQ(check.value_checks, per_tensor);
  EXPECT_EQ(check.checks, wanted.at("checks").get<std::size_t>());
  EXPECT_EQ(bits_of(check.tolerance), bits_of(wanted.at("tolerance").get<double>()));
  EXPECT_EQ(bits_of(GradcheckOptions{}.step), bits_of(wanted.at("step").get<double>()));
  EXPECT_GT(check.max_error, 0.0);
  EXPECT_LT(check.max_error, kFixtureMaxErrorBelow) << "max_error " << check.max_error;
  EXPECT_LE(check.max_error, wanted.at("observed_max_error_at_most").get<double>());
}

TEST(Chapter26Evidence, GradcheckWorstCoordinateIsTheCoursesInputThree) {
  // The course's worst probe: X[3], numeric -1.5000000006537562. Rerun the input's gradcheck with the same
  // objective the evidence uses (a fresh layer per probe, X a constant) to see the same number.
  const json& worst = expected().at("gradcheck").at("worst");
  const ProjectionRequest request = chapter_fixture();
  const Objective objective = [&request](const Tensor& point) -> Result<double, std::string> {
    auto layer = projections_from_weights(request.query_weight, request.key_weight, request.value_weight);
    if (!layer) return fail(layer.error().message);
    auto outputs = layer->forward(TensorValue::constant(point).value());
    if (!outputs) return fail(outputs.error().message());
    auto loss = upstream_objective(*outputs, *request.upstream);
    if (!loss) return fail(loss.error().message());
    return loss->value()[0];
  };
  const Tensor& analytic = chapter_evidence().primary.gradients->input;
  auto report = gradcheck(request.input, analytic, objective, request.input.size());
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_TRUE(report->passed);
  EXPECT_EQ(report->checks, 6u);
  EXPECT_EQ(report->worst_index, worst.at("index").get<std::size_t>());
  EXPECT_EQ(bits_of(report->worst_analytic), bits_of(worst.at("analytic").get<double>()));
  EXPECT_EQ(bits_of(report->worst_numeric), bits_of(worst.at("numeric").get<double>()))
      << test::hex_of(report->worst_numeric) << " = " << report->worst_numeric;
  // The input holds the worst error of all four tensors.
  EXPECT_EQ(bits_of(report->max_error), bits_of(chapter_evidence().primary.gradcheck->max_error));
}

TEST(Chapter26Evidence, ShapeProbesMatchTheFixture) {
  const json& probes = expected().at("shape_probes");
  const std::pair<const char*, const ShapeProbe*> cases[] = {
      {"batch", &chapter_evidence().batch},
      {"empty_batch", &chapter_evidence().empty_batch},
      {"empty_token", &chapter_evidence().empty_token},
      {"report_empty_token", &chapter_evidence().report_empty_token},
  };
  for (const auto& [name, probe] : cases) {
    const Shape output = probes.at(name).at("output").get<Shape>();
    EXPECT_EQ(probe->input, probes.at(name).at("input").get<Shape>()) << name;
    EXPECT_EQ(probe->query, output) << name;
    EXPECT_EQ(probe->key, output) << name;
    EXPECT_EQ(probe->value, output) << name;
  }
  // Exercise 1: [4,7,3] with d_head 2 gives [4,7,2] for every branch.
  const ProjectionRequest request = chapter_fixture();
  auto layer = projections_from_weights(request.query_weight, request.key_weight, request.value_weight);
  ASSERT_TRUE(layer.ok());
  const json& exercise = probes.at("exercise");
  auto outputs =
      layer->forward(TensorValue::constant(Tensor::zeros(exercise.at("input").get<Shape>()).value()).value());
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  for (const TensorValue* output : {&outputs->query, &outputs->key, &outputs->value}) {
    EXPECT_EQ(output->shape(), exercise.at("output").get<Shape>());
  }
}

TEST(Chapter26Evidence, RejectionProbesGiveTheExactMessagesAndVariants) {
  const json& messages = expected().at("rejections");
  const std::pair<const char*, const RejectionProbe*> cases[] = {
      {"rank", &chapter_evidence().rank},
      {"width", &chapter_evidence().width},
      {"model_mismatch", &chapter_evidence().model_mismatch},
      {"head_mismatch", &chapter_evidence().head_mismatch},
      {"duplicate_name", &chapter_evidence().duplicate_name},
  };
  for (const auto& [name, probe] : cases) {
    EXPECT_EQ(probe->message, messages.at(name).get<std::string>()) << name;
    EXPECT_TRUE(probe->expected_variant) << name;
  }
}

TEST(Chapter26Evidence, ChangingOnlyTheQueryWeightChangesOnlyQuery) {
  EXPECT_TRUE(chapter_evidence().bitwise->query_changed);
  EXPECT_TRUE(chapter_evidence().bitwise->key_unchanged);
  EXPECT_TRUE(chapter_evidence().bitwise->value_unchanged);

  // W_Q[0,0] = 2 (the evidence's +1 on the fixture's 1), computed here on its own.
  ProjectionRequest changed = chapter_fixture();
  changed.upstream.reset();
  changed.query_weight.mutable_values()[0] = 2.0;
  auto evidence = compute_projection_evidence(changed);
  ASSERT_TRUE(evidence.ok()) << evidence.error().message;
  const Tensor changed_query =
      make({1, 2, 2}, expected().at("independence").at("changed_query").get<std::vector<double>>());
  expect_same_bits(evidence->query, changed_query, "changed query");
  expect_same_bits(evidence->key, expected().at("key"), "key after changing W_Q");
  expect_same_bits(evidence->value, expected().at("value"), "value after changing W_Q");
  EXPECT_FALSE(evidence->gradients.has_value());
  EXPECT_FALSE(evidence->gradcheck.has_value());
}

TEST(Chapter26Evidence, EveryFlagIsTrueAndTheReplayIsBitwise) {
  const ChapterEvidence& e = chapter_evidence();
  EXPECT_TRUE(e.bitwise->replay_bitwise);
  EXPECT_TRUE(e.primary.gradcheck->passed);
  EXPECT_TRUE(e.initialization.reproducible);
  EXPECT_TRUE(e.initialization.independent);
  EXPECT_TRUE(e.initialization.transactional);
  for (const RejectionProbe* probe :
       {&e.rank, &e.width, &e.model_mismatch, &e.head_mismatch, &e.duplicate_name}) {
    EXPECT_TRUE(probe->expected_variant) << probe->message;
  }
  EXPECT_TRUE(e.bitwise->query_changed && e.bitwise->key_unchanged && e.bitwise->value_unchanged);

  const json& history = expected().at("history");
  EXPECT_EQ(e.history.earlier_left, history.at("earlier_left").get<std::string>());
  EXPECT_EQ(e.history.earlier_right, history.at("earlier_right").get<std::string>());
  EXPECT_EQ(e.history.transformer_source, history.at("transformer_source").get<std::string>());
  EXPECT_EQ(e.history.mapping, history.at("mapping").get<std::string>());

  // The replay, done here: a second computation gives the same bits everywhere (upstreams excluded).
  auto again = compute_chapter_evidence(chapter_fixture());
  ASSERT_TRUE(again.ok());
  expect_same_bits(again->primary.query, e.primary.query, "replayed query");
  expect_same_bits(again->primary.key, e.primary.key, "replayed key");
  expect_same_bits(again->primary.value, e.primary.value, "replayed value");
  expect_same_bits(again->primary.gradients->input, e.primary.gradients->input, "replayed dX");
  expect_same_bits(again->primary.gradients->query_weight, e.primary.gradients->query_weight,
                   "replayed dW_Q");
  expect_same_bits(again->primary.gradients->key_weight, e.primary.gradients->key_weight, "replayed dW_K");
  expect_same_bits(again->primary.gradients->value_weight, e.primary.gradients->value_weight,
                   "replayed dW_V");
  EXPECT_EQ(bits_of(again->primary.gradients->loss), bits_of(e.primary.gradients->loss));
  EXPECT_EQ(bits_of(again->primary.gradcheck->max_error), bits_of(e.primary.gradcheck->max_error));
  EXPECT_EQ(render_report(*again), render_report(e));
  EXPECT_EQ(render_trace(*again), render_trace(e));
}

// ---- seed 26 -------------------------------------------------------------------------------------------

TEST(Chapter26Initialization, EvidenceForSeedTwentySix) {
  const json& seed26 = fixture().at("seed26");
  const InitializationEvidence& init = chapter_evidence().initialization;
  EXPECT_EQ(init.seed, seed26.at("seed").get<std::uint64_t>());
  EXPECT_EQ(init.state_after, test::bits_from_hex(seed26.at("generator_state").get<std::string>()));
  EXPECT_TRUE(init.reproducible);
  EXPECT_TRUE(init.independent);
  EXPECT_TRUE(init.transactional);
}

TEST(Chapter26Initialization, SeedTwentySixWeightsEqualTheCoursesBits) {
  const json& seed26 = fixture().at("seed26");
  SplitMix64 rng(seed26.at("seed").get<std::uint64_t>());
  auto layer =
      QkvProjections::create(seed26.at("prefix").get<std::string>(), seed26.at("model_width").get<Extent>(),
                             seed26.at("head_width").get<Extent>(), rng);
  ASSERT_TRUE(layer.ok()) << layer.error().message();
  EXPECT_EQ(rng.state(), test::bits_from_hex(seed26.at("generator_state").get<std::string>()));
  const char* branches[] = {"query", "key", "value"};
  ASSERT_EQ(layer->parameters().size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const json& weight = seed26.at(branches[i]);
    EXPECT_EQ(layer->parameters()[i].name(), weight.at("name").get<std::string>());
    expect_same_bits(layer->parameters()[i].value().value(), weight, branches[i]);
  }
  // Every value lies inside the Xavier limit sqrt(6 / (3 + 2)).
  const double limit = seed26.at("limit").get<double>();
  EXPECT_EQ(bits_of(std::sqrt(6.0 / 5.0)), bits_of(limit));
  for (const NamedParameter& parameter : layer->parameters()) {
    for (double value : parameter.value().value().values()) EXPECT_LT(std::abs(value), limit);
  }
}

TEST(Chapter26Initialization, SeededLayerOnTheFixtureGivesTheCoursesLoss) {
  const json& seed26 = fixture().at("seed26");
  ProjectionRequest request = chapter_fixture();
  request.query_weight = tensor_from(seed26.at("query"));
  request.key_weight = tensor_from(seed26.at("key"));
  request.value_weight = tensor_from(seed26.at("value"));
  auto evidence = compute_projection_evidence(request);
  ASSERT_TRUE(evidence.ok()) << evidence.error().message;
  EXPECT_EQ(bits_of(evidence->gradients->loss), bits_of(seed26.at("loss_on_fixture").get<double>()))
      << test::hex_of(evidence->gradients->loss) << " = " << evidence->gradients->loss;
  EXPECT_TRUE(evidence->gradcheck->passed);
}

// ---- golden report and trace ---------------------------------------------------------------------------

TEST(Chapter26Golden, ReportIsByteIdenticalToTheCoursesOutput) {
  const std::string report = render_report(chapter_evidence());
  EXPECT_EQ(report, test::read_file(test::fixture_path("golden/learn-llm-ch26-expected.txt")));
  expect_lf_lines(report, expected().at("report_lines").get<std::size_t>(), "report");
}

TEST(Chapter26Golden, TraceIsByteIdenticalToTheCoursesTrace) {
  const std::string trace = render_trace(chapter_evidence());
  EXPECT_EQ(trace, test::read_file(test::fixture_path("golden/learn-llm-ch26-diagram-trace.txt")));
  expect_lf_lines(trace, expected().at("trace_lines").get<std::size_t>(), "trace");
  EXPECT_EQ(trace.rfind("META|input_shape=[1,2,3]|", 0), 0u);
  const std::string last = "NEXT|chapter=27-self-attention\n";
  EXPECT_EQ(trace.compare(trace.size() - last.size(), last.size(), last), 0);
  EXPECT_EQ(trace.find("site_arithmetic"), std::string::npos);
  EXPECT_EQ(trace.find("trace=rust-authored"), std::string::npos);
}

TEST(Chapter26Golden, GoldenFilesHaveTheSpecsLineCounts) {
  // The golden files themselves: LF only, one final LF, 28 and 17 lines.
  expect_lf_lines(test::read_file(test::fixture_path("golden/learn-llm-ch26-expected.txt")),
                  expected().at("report_lines").get<std::size_t>(), "expected.txt");
  expect_lf_lines(test::read_file(test::fixture_path("golden/learn-llm-ch26-diagram-trace.txt")),
                  expected().at("trace_lines").get<std::size_t>(), "diagram-trace.txt");
}

// ---- rejected requests ---------------------------------------------------------------------------------

LessonError rejection(const ProjectionRequest& request) {
  auto evidence = compute_projection_evidence(request);
  if (evidence.ok()) {
    ADD_FAILURE() << "the request was accepted";
    return {};
  }
  return evidence.error();
}

TEST(Chapter26Errors, NonFiniteInputValueNamesTheInputField) {
  ProjectionRequest request = chapter_fixture();
  request.input.mutable_values()[4] = std::numeric_limits<double>::quiet_NaN();
  LessonError error = rejection(request);
  EXPECT_EQ(kind_name(error.kind), std::string("tensor"));
  EXPECT_EQ(error.field, "input");
  EXPECT_EQ(error.message, "parameter must be finite, got NaN at index 4");

  request.upstream.reset();  // forward only: X is a constant
  request.input.mutable_values()[4] = -std::numeric_limits<double>::infinity();
  error = rejection(request);
  EXPECT_EQ(kind_name(error.kind), std::string("tensor"));
  EXPECT_EQ(error.field, "input");
  EXPECT_EQ(error.message, "constant must be finite, got -inf at index 4");
}

TEST(Chapter26Errors, NonFiniteWeightNamesItsField) {
  ProjectionRequest request = chapter_fixture();
  request.key_weight.mutable_values()[5] = std::numeric_limits<double>::infinity();
  const LessonError error = rejection(request);
  EXPECT_EQ(kind_name(error.kind), std::string("tensor"));
  EXPECT_EQ(error.field, "key_weight");
  EXPECT_EQ(error.message, "parameter must be finite, got inf at index 5");
}

TEST(Chapter26Errors, UpstreamOfTheWrongShapeIsRejectedWithItsBranch) {
  const ProjectionRequest fixture_request = chapter_fixture();
  const Upstreams& u = *fixture_request.upstream;
  const LessonError error =
      rejection(with_upstreams(fixture_request, u.query, make({1, 2, 3}, {0, 0, 0, 0, 0, 0}), u.value));
  EXPECT_EQ(kind_name(error.kind), std::string("upstream"));
  EXPECT_EQ(error.field, "key_upstream");
  EXPECT_EQ(error.message, "key upstream must have the output shape [1,2,2], got [1,2,3]");

  // Same number of values, other shape: still rejected (shapes, not counts, must agree).
  const LessonError flat =
      rejection(with_upstreams(fixture_request, make({4}, {1, 0, -1, 2}), u.key, u.value));
  EXPECT_EQ(kind_name(flat.kind), std::string("upstream"));
  EXPECT_EQ(flat.field, "query_upstream");
  EXPECT_EQ(flat.message, "query upstream must have the output shape [1,2,2], got [4]");
}

TEST(Chapter26Errors, NonFiniteUpstreamIsRejected) {
  const ProjectionRequest fixture_request = chapter_fixture();
  const Upstreams& u = *fixture_request.upstream;
  const LessonError error =
      rejection(with_upstreams(fixture_request, u.query, u.key,
                               make({1, 2, 2}, {2, std::numeric_limits<double>::infinity(), 0, -0.5})));
  EXPECT_EQ(kind_name(error.kind), std::string("tensor"));
  EXPECT_EQ(error.field, "value_upstream");
  EXPECT_EQ(error.message, "constant must be finite, got inf at index 1");
}

TEST(Chapter26Errors, RankAndWidthMismatchesUseTheLayersMessages) {
  ProjectionRequest request = chapter_fixture();
  request.upstream.reset();
  request.input = make({2, 3}, {1, 2, -1, 0, 1, 2});
  LessonError error = rejection(request);
  EXPECT_EQ(kind_name(error.kind), std::string("qkv"));
  EXPECT_EQ(error.field, "input");
  EXPECT_EQ(error.message, expected().at("rejections").at("rank").get<std::string>());

  request.input = make({1, 2, 4}, {1, 2, -1, 0, 0, 1, 2, 0});
  error = rejection(request);
  EXPECT_EQ(kind_name(error.kind), std::string("qkv"));
  EXPECT_EQ(error.field, "input");
  EXPECT_EQ(error.message, expected().at("rejections").at("width").get<std::string>());
}

TEST(Chapter26Errors, BranchMismatchUsesTheLayersMessage) {
  ProjectionRequest request = chapter_fixture();
  request.key_weight = Tensor::zeros({4, 2}).value();
  const LessonError error = rejection(request);
  EXPECT_EQ(kind_name(error.kind), std::string("qkv"));
  EXPECT_EQ(error.field, "");
  EXPECT_EQ(error.message, expected().at("rejections").at("model_mismatch").get<std::string>());

  request.key_weight = Tensor::zeros({3, 3}).value();
  EXPECT_EQ(rejection(request).message, expected().at("rejections").at("head_mismatch").get<std::string>());
}

// The fixture's rejection widens W_K; a wider W_V or W_Q is refused as well, in the spec's words
// ("Q/K/V head widths must match, got query {q}, key {k}, value {v}", section 3).
TEST(Chapter26Errors, AValueOrQueryWeightOfAnotherHeadWidthIsRefused) {
  ProjectionRequest request = chapter_fixture();
  request.value_weight = Tensor::zeros({3, 3}).value();
  LessonError error = rejection(request);
  EXPECT_EQ(kind_name(error.kind), std::string("qkv"));
  EXPECT_EQ(error.message, "Q/K/V head widths must match, got query 2, key 2, value 3");
  request = chapter_fixture();
  request.query_weight = Tensor::zeros({3, 1}).value();
  EXPECT_EQ(rejection(request).message, "Q/K/V head widths must match, got query 1, key 2, value 2");
}

TEST(Chapter26Errors, ChapterEvidenceNeedsUpstreams) {
  ProjectionRequest request = chapter_fixture();
  request.upstream.reset();
  auto evidence = compute_chapter_evidence(request);
  ASSERT_FALSE(evidence.ok());
  EXPECT_EQ(kind_name(evidence.error().kind), std::string("upstream"));
  EXPECT_EQ(evidence.error().message, "chapter evidence needs the three upstream tensors");
}

// ---- empty axes and arbitrary requests -----------------------------------------------------------------

TEST(Chapter26Arbitrary, EmptyAxesKeepTheTapeConnected) {
  const ProjectionRequest fixture_request = chapter_fixture();
  for (const Shape& input_shape : {Shape{0, 2, 3}, Shape{2, 0, 3}, Shape{0, 0, 3}}) {
    const ProjectionRequest request = test::with_input(fixture_request, Tensor::zeros(input_shape).value());
    const Shape out{input_shape[0], input_shape[1], 2};
    auto evidence = compute_projection_evidence(request);
    ASSERT_TRUE(evidence.ok()) << format_shape(input_shape) << ": " << evidence.error().message;
    EXPECT_EQ(evidence->query.shape(), out);
    ASSERT_TRUE(evidence->gradients.has_value());
    EXPECT_EQ(bits_of(evidence->gradients->loss), bits_of(0.0));
    EXPECT_EQ(evidence->gradients->input.shape(), input_shape);
    const Tensor zero_weight = Tensor::zeros({3, 2}).value();  // +0.0 everywhere, bit for bit
    expect_same_bits(evidence->gradients->query_weight, zero_weight, "empty dW_Q");
    expect_same_bits(evidence->gradients->key_weight, zero_weight, "empty dW_K");
    expect_same_bits(evidence->gradients->value_weight, zero_weight, "empty dW_V");
    EXPECT_TRUE(evidence->gradcheck->passed) << evidence->gradcheck->problem;
    EXPECT_EQ(evidence->gradcheck->input_checks, 0u);
    EXPECT_EQ(evidence->gradcheck->checks, 18u);
  }
}

// A plain-loop reference: out[r, j] = Σ_k x[r, k] w[k, j] from +0.0 in ascending k, as the kernel does.
std::vector<double> reference_project(const Tensor& x, const Tensor& w, Extent rows, Extent d, Extent h) {
  std::vector<double> out(rows * h);
  for (Extent r = 0; r < rows; ++r) {
    for (Extent j = 0; j < h; ++j) {
      double sum = 0.0;
      for (Extent k = 0; k < d; ++k) sum += x[r * d + k] * w[k * h + j];
      out[r * h + j] = sum;
    }
  }
  return out;
}

void expect_close(const std::vector<double>& actual, const std::vector<double>& wanted,
                  const std::string& what) {
  ASSERT_EQ(actual.size(), wanted.size()) << what;
  double worst = 0.0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    worst = std::max(worst, std::abs(actual[i] - wanted[i]) / std::max(1.0, std::abs(wanted[i])));
  }
  EXPECT_LE(worst, kReferenceRelativeTolerance) << what << ": max relative difference " << worst;
}

TEST(Chapter26Arbitrary, RandomRequestsGiveConsistentEvidenceAndPassGradcheck) {
  SplitMix64 rng(2026);
  const auto below = [&rng](Extent n) { return rng.next_u64() % n; };
  const auto random_tensor = [&rng](const Shape& shape) {
    Tensor t = Tensor::zeros(shape).value();
    for (double& v : t.mutable_values()) v = 4.0 * rng.next_unit_f64() - 2.0;
    return t;
  };
  for (int round = 0; round < 40; ++round) {
    // B and T in 0..3 (empty axes included), d and h in 1..4.
    const Extent b = below(4), t = below(4), d = 1 + below(4), h = 1 + below(4);
    const Shape out{b, t, h};
    ProjectionRequest request{random_tensor({b, t, d}), random_tensor({d, h}), random_tensor({d, h}),
                              random_tensor({d, h}),
                              Upstreams{random_tensor(out), random_tensor(out), random_tensor(out)}};
    const std::string where = "round " + std::to_string(round) + " B=" + std::to_string(b) +
                              " T=" + std::to_string(t) + " d=" + std::to_string(d) +
                              " h=" + std::to_string(h);
    auto evidence = compute_projection_evidence(request);
    ASSERT_TRUE(evidence.ok()) << where << ": " << evidence.error().message;
    ASSERT_TRUE(evidence->gradcheck.has_value()) << where;
    EXPECT_TRUE(evidence->gradcheck->passed) << where << ": " << evidence->gradcheck->problem;
    // Every coordinate up to kGradcheckSamplesPerTensor per tensor, evenly spread beyond it.
    const auto sampled = [](Extent n) { return std::min<Extent>(n, kGradcheckSamplesPerTensor); };
    EXPECT_EQ(evidence->gradcheck->checks, sampled(b * t * d) + 3 * sampled(d * h)) << where;
    EXPECT_EQ(evidence->parameter_count, 3 * d * h) << where;

    // Forward: bit for bit the plain loop. Gradients: the plain formulas, to a named tolerance.
    const Extent rows = b * t;
    const ProjectionGradients& g = *evidence->gradients;
    std::vector<double> dx(rows * d, 0.0);
    const std::tuple<const Tensor*, const Tensor*, const Tensor*, const Tensor*, const char*> branches[] = {
        {&evidence->query, &request.query_weight, &request.upstream->query, &g.query_weight, "query"},
        {&evidence->key, &request.key_weight, &request.upstream->key, &g.key_weight, "key"},
        {&evidence->value, &request.value_weight, &request.upstream->value, &g.value_weight, "value"},
    };
    double loss = 0.0;
    for (const auto& [output, weight, upstream, weight_gradient, name] : branches) {
      EXPECT_EQ(output->shape(), out) << where << " " << name;
      EXPECT_EQ(bits_of(output->values()), bits_of(reference_project(request.input, *weight, rows, d, h)))
          << where << " " << name;
      std::vector<double> dw(d * h, 0.0);
      for (Extent r = 0; r < rows; ++r) {
        for (Extent j = 0; j < h; ++j) {
          const double u = (*upstream)[r * h + j];
          loss += (*output)[r * h + j] * u;
          for (Extent k = 0; k < d; ++k) {
            dx[r * d + k] += u * (*weight)[k * h + j];
            dw[k * h + j] += request.input[r * d + k] * u;
          }
        }
      }
      EXPECT_EQ(weight_gradient->shape(), (Shape{d, h})) << where;
      expect_close(weight_gradient->values(), dw, where + " d" + name + "_weight");
    }
    EXPECT_EQ(g.input.shape(), (Shape{b, t, d})) << where;
    expect_close(g.input.values(), dx, where + " dX");
    expect_close({g.loss}, {loss}, where + " loss");

    // The chapter evidence holds for any valid request too.
    auto chapter = compute_chapter_evidence(request);
    ASSERT_TRUE(chapter.ok()) << where << ": " << chapter.error().message;
    EXPECT_TRUE(chapter->bitwise->replay_bitwise) << where;
    EXPECT_TRUE(chapter->bitwise->key_unchanged && chapter->bitwise->value_unchanged) << where;
    EXPECT_EQ(chapter->bitwise->query_changed, rows > 0)
        << where;  // X's first feature is never exactly zero here
    EXPECT_EQ(chapter->bitwise->key_upstream_empty, rows == 0) << where;
    if (rows == 0)
      EXPECT_FALSE(chapter->bitwise->key_gradient_changed || chapter->bitwise->query_gradient_unchanged ||
                   chapter->bitwise->value_gradient_unchanged || chapter->bitwise->input_gradient_changed)
          << where;
    else
      EXPECT_TRUE(chapter->bitwise->key_gradient_changed) << where;
    for (const RejectionProbe* probe : {&chapter->rank, &chapter->width, &chapter->model_mismatch,
                                        &chapter->head_mismatch, &chapter->duplicate_name}) {
      EXPECT_TRUE(probe->expected_variant) << where << ": " << probe->message;
    }
    EXPECT_TRUE(chapter->initialization.transactional) << where;
    EXPECT_TRUE(chapter->initialization.reproducible) << where;
    EXPECT_EQ(chapter->empty_batch.query, (Shape{0, t, h})) << where;
    EXPECT_EQ(chapter->empty_token.query, (Shape{2 * b, 0, h})) << where;
    const std::string report = render_report(*chapter);
    EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), 28) << where;
    const std::string trace = render_trace(*chapter);
    EXPECT_EQ(std::count(trace.begin(), trace.end(), '\n'), 17) << where;
  }
}

// Nothing judged proves nothing. Two equal tokens with opposite upstreams and weights whose columns cancel:
// every gradient is exactly 0 while Σ|x||w||u| is large, so at 1e4 rounding in L can hide any slope and no
// number can be judged. Such a check must not pass, though no number failed it.
TEST(Chapter26Evidence, AGradcheckThatJudgedNothingDoesNotPass) {
  const double v = 1e4;
  const Tensor weight = Tensor::from_values({3, 2}, {v, -v, v, -v, v, -v}).value();
  const Tensor upstream = Tensor::from_values({1, 2, 2}, {v, v, -v, -v}).value();
  const ProjectionRequest request{Tensor::from_values({1, 2, 3}, {v, v, v, v, v, v}).value(), weight, weight,
                                  weight, Upstreams{upstream, upstream, upstream}};
  auto evidence = compute_projection_evidence(request);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_TRUE(evidence->gradcheck.has_value());
  ASSERT_EQ(evidence->gradcheck->checks, 0u);
  EXPECT_GT(evidence->gradcheck->unjudged, 0u);
  EXPECT_FALSE(evidence->gradcheck->passed);
}

// Issue 39: each tensor's verdict in the summary is its own. A gradient off by 1 in any one tensor fails the
// whole check, whichever tensor it is and though the tensors checked after it pass; the right gradients pass.
TEST(Chapter26Evidence, AGradcheckFailureIsNotHiddenByTheTensorsCheckedAfterIt) {
  const ProjectionRequest request = chapter_fixture();
  auto evidence = compute_projection_evidence(request, EvidenceParts{false, false});
  ASSERT_TRUE(evidence) << evidence.error().message;
  const ProjectionGradients right = *evidence->gradients;
  auto whole = ProjectionGradcheck::start(request, right);
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_TRUE(whole->finish().passed) << whole->summary().problem;
  const std::pair<Tensor ProjectionGradients::*, const char*> tensors[] = {
      {&ProjectionGradients::input, "X"},
      {&ProjectionGradients::query_weight, "W_Q"},
      {&ProjectionGradients::key_weight, "W_K"},
      {&ProjectionGradients::value_weight, "W_V"}};
  for (const auto& [tensor, name] : tensors) {
    ProjectionGradients wrong = right;
    (wrong.*tensor).mutable_values()[0] += 1.0;
    auto check = ProjectionGradcheck::start(request, wrong);
    ASSERT_TRUE(check) << name << ": " << check.error().message;
    const GradcheckSummary& summary = check->finish();
    EXPECT_FALSE(summary.passed) << "a wrong gradient of " << name << " passed";
    EXPECT_EQ(summary.problem, "") << name;  // checked and failed, not left unchecked
    EXPECT_EQ(summary.checks, 6u + 3u * 6u) << name;
  }
}

// Issue 39: the X̄ verdict compares X̄ itself. Adding 1 to U_K[0,0,0] adds row 0 of X to column 0 of W̄_K and
// column 0 of W_K to row 0 of X̄, so a zero column or a zero row leaves one of the two bit for bit (the
// fixture's U_K[0,0,0] is 0.5: 0.5·0 and 1.5·0 are both +0) while the other changes.
TEST(Chapter26Evidence, TheInputGradientVerdictComparesTheInputGradient) {
  ProjectionRequest zero_column = chapter_fixture();
  for (Extent k = 0; k < 3; ++k) zero_column.key_weight.mutable_values()[k * 2] = 0.0;
  auto column = compute_chapter_evidence(zero_column);
  ASSERT_TRUE(column) << column.error().message;
  EXPECT_TRUE(column->bitwise->key_gradient_changed);
  EXPECT_FALSE(column->bitwise->input_gradient_changed);

  ProjectionRequest zero_row = chapter_fixture();
  for (Extent k = 0; k < 3; ++k) zero_row.input.mutable_values()[k] = 0.0;
  auto row = compute_chapter_evidence(zero_row);
  ASSERT_TRUE(row) << row.error().message;
  EXPECT_FALSE(row->bitwise->key_gradient_changed);
  EXPECT_TRUE(row->bitwise->input_gradient_changed);
  EXPECT_TRUE(row->bitwise->query_gradient_unchanged && row->bitwise->value_gradient_unchanged);
}

// A non-finite upstream is refused by name wherever it sits, index 0 included (check_upstreams names the
// tensor; the loss would refuse it too, but without saying which).
TEST(Chapter26Evidence, ANonFiniteUpstreamIsRefusedByNameEvenAtIndexZero) {
  for (const double bad :
       {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    ProjectionRequest request = chapter_fixture();
    request.upstream->value.mutable_values()[0] = bad;
    auto evidence = compute_projection_evidence(request);
    ASSERT_FALSE(evidence);
    EXPECT_EQ(evidence.error().kind, ErrorKind::Tensor);
    EXPECT_EQ(evidence.error().field, "value_upstream");
  }
}

}  // namespace
}  // namespace qkv

namespace qkv {
namespace {

// Issue 38, why the layer has no bias: a key bias b_K adds q_i · b_K to every score of row i (one number per
// row, which softmax ignores); a query bias b_Q adds b_Q · k_j, which differs from key to key. Checked on the
// fixture (whole numbers: exact) against sums this test writes out itself, and on a request with fractions.
TEST(ScoreChanges, AKeyBiasShiftsEachRowByOneNumberAndAQueryBiasByKey) {
  const ChapterEvidence evidence = compute_chapter_evidence(chapter_fixture()).value();
  const ProjectionEvidence& p = evidence.primary;
  const std::vector<double> key_bias{1.0, -2.0}, query_bias{0.5, 3.0};
  const BiasShifts shifts = bias_shifts(p, key_bias, query_bias).value();
  const Extent batch = p.query.shape()[0], tokens = p.query.shape()[1], width = p.query.shape()[2];
  for (Extent b = 0; b < batch; ++b)
    for (Extent i = 0; i < tokens; ++i)
      for (Extent j = 0; j < tokens; ++j) {
        double query_dot_bias = 0.0, bias_dot_key = 0.0;
        for (Extent c = 0; c < width; ++c) {
          query_dot_bias += p.query[(b * tokens + i) * width + c] * key_bias[c];
          bias_dot_key += query_bias[c] * p.key[(b * tokens + j) * width + c];
        }
        const std::size_t at = (b * tokens + i) * tokens + j;
        EXPECT_EQ(shifts.key_bias_shift[at], query_dot_bias)
            << "key bias, S[" << b << "," << i << "," << j << "]";
        EXPECT_EQ(shifts.query_bias_shift[at], bias_dot_key)
            << "query bias, S[" << b << "," << i << "," << j << "]";
      }
  EXPECT_TRUE(shifts.key_shift_same_across_row);
  EXPECT_TRUE(shifts.query_shift_differs_across_row);
}

TEST(ScoreChanges, WithFractionsTheKeyBiasShiftIsStillOnePerRowWithinRounding) {
  ProjectionRequest request = chapter_fixture();
  request.upstream.reset();
  for (double& value : request.input.mutable_values()) value = value / 3.0 + 0.1;
  for (double& value : request.key_weight.mutable_values()) value = value * 0.7 - 0.3;
  const ProjectionEvidence p = compute_projection_evidence(request, EvidenceParts{false, true}).value();
  const BiasShifts shifts = bias_shifts(p, {0.1, -0.37}, {0.1, -0.37}).value();
  EXPECT_TRUE(shifts.key_shift_same_across_row);
  EXPECT_TRUE(shifts.query_shift_differs_across_row);
  // Without a bias there is no shift at all: the check does not pass everything.
  const BiasShifts none = bias_shifts(p, {0.0, 0.0}, {0.0, 0.0}).value();
  EXPECT_TRUE(none.key_shift_same_across_row);
  EXPECT_FALSE(none.query_shift_differs_across_row);
}

// Issue 38: W_K doubled doubles K and every score, entry for entry, and leaves Q and V bit for bit.
TEST(ScoreChanges, DoublingTheKeyWeightDoublesKeysAndScoresOnly) {
  const ChapterEvidence evidence = compute_chapter_evidence(chapter_fixture()).value();
  const DoubledKeyWeight doubled = double_key_weight(evidence.request, evidence.primary).value();
  EXPECT_TRUE(doubled.key_doubled);
  EXPECT_TRUE(doubled.scores_doubled);
  EXPECT_TRUE(doubled.query_unchanged);
  EXPECT_TRUE(doubled.value_unchanged);
  for (std::size_t i = 0; i < doubled.scores.size(); ++i)
    EXPECT_EQ(doubled.scores[i], 2.0 * evidence.primary.scores[i]);
}

}  // namespace
}  // namespace qkv

namespace qkv {
namespace {

// Issue 38: without projections (X Xᵀ) and with them (S = Q Kᵀ), which rows of the fixture's scores peak on
// their own token. The test writes both score tables out itself from fixtures/chapter26.json (X, and the
// expected Q and K; sums from +0.0 in ascending index order, as the kernels add) and finds each row's first
// largest entry.
TEST(ScoreChanges, OwnTokenPeaksWithoutAndWithProjectionsMatchSumsWrittenOut) {
  const json& expected = fixture().at("expected");
  const Tensor input = tensor_from(fixture().at("input"));
  const Tensor query = tensor_from(expected.at("query")), key = tensor_from(expected.at("key"));
  const Extent tokens = input.shape()[1];
  const auto table = [&](const Tensor& left, const Tensor& right) {
    const Extent width = left.shape()[2];
    std::vector<std::vector<double>> rows(tokens, std::vector<double>(tokens));
    for (Extent i = 0; i < tokens; ++i)
      for (Extent j = 0; j < tokens; ++j) {
        double sum = 0.0;
        for (Extent c = 0; c < width; ++c) sum += left[i * width + c] * right[j * width + c];
        rows[i][j] = sum;
      }
    return rows;
  };
  const auto own = [](const std::vector<std::vector<double>>& rows) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (std::max_element(rows[i].begin(), rows[i].end()) - rows[i].begin() ==
          static_cast<std::ptrdiff_t>(i))
        out.push_back(i);
    return out;
  };
  const auto input_scores = table(input, input), scores = table(query, key);
  const ChapterEvidence evidence = compute_chapter_evidence(chapter_fixture()).value();
  const auto peaks = own_token_peaks(input, evidence.primary.scores).value();
  ASSERT_TRUE(peaks.has_value());
  EXPECT_EQ(peaks->input_scores, input_scores);
  EXPECT_EQ(peaks->input_rows, own(input_scores));
  EXPECT_EQ(peaks->score_rows, own(scores));
  // What the lesson says of the fixture: every row of X Xᵀ peaks on its own token, no row of S does.
  EXPECT_EQ(peaks->input_rows.size(), static_cast<std::size_t>(tokens));
  EXPECT_TRUE(peaks->score_rows.empty());
  std::string rows;
  for (Extent i = 0; i < tokens; ++i) {
    rows += i == 0 ? "[" : i + 1 == tokens ? " and [" : ", [";
    for (Extent j = 0; j < tokens; ++j) rows += (j > 0 ? ", " : "") + format_prose(input_scores[i][j]);
    rows += "]";
  }
  EXPECT_EQ(peaks->sentence, "Without projections the scores would be X\u00a0Xᵀ, rows " + rows +
                                 ": the token's own score is the largest in " + rows_text(own(input_scores)) +
                                 ". In S = Q\u00a0Kᵀ above it is in " + rows_text(own(scores)) + ".");
}

TEST(ScoreChanges, NoOwnTokenPeaksWhenAnAxisIsEmpty) {
  const Tensor empty_tokens = Tensor::from_values({1, 0, 3}, {}).value();
  const Tensor empty_scores = Tensor::from_values({1, 0, 0}, {}).value();
  EXPECT_FALSE(own_token_peaks(empty_tokens, empty_scores).value().has_value());
}

}  // namespace
}  // namespace qkv
