#include "lesson/exercises.hpp"

#include "lesson/format.hpp"
#include "lesson/number_text.hpp"

namespace qkv {
namespace {

std::string vector_text(const std::vector<double>& values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) text += (i > 0 ? "," : "") + format_shortest(values[i]);
  return text + "]";
}

// Row t of batch item 0 of a [B, T, H] tensor.
std::vector<double> first_batch_row(const Tensor& tensor, std::size_t token) {
  const Extent width = tensor.shape()[2];
  const auto begin = tensor.values().begin() + static_cast<std::ptrdiff_t>(token * width);
  return std::vector<double>(begin, begin + static_cast<std::ptrdiff_t>(width));
}

ExerciseCheck shapes_check(const std::vector<std::string>& responses, const std::vector<Shape>& expected) {
  ExerciseCheck check{true, "", ""};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    check.expected += (i > 0 ? " and " : "") + format_shape(expected[i]);
    auto shape = parse_shape(responses[i]);
    if (!shape) {
      check.problem = shape.error();
      check.correct = false;
    } else {
      check.correct = check.correct && *shape == expected[i];
    }
  }
  return check;
}

ExerciseCheck choice_check(const std::string& response, const std::string& expected) {
  return {response == expected, expected, ""};
}

}  // namespace

const std::vector<std::string>& exercise_ids() {
  static const std::vector<std::string> ids = {
      "ch26-output-shapes",   "ch26-first-token", "ch26-change-query-only",
      "ch26-parameter-count", "ch26-empty-axes",  "ch26-rank-two",
      "ch26-divisibility",    "ch26-history",     "ch26-still-missing"};
  return ids;
}

Result<ExerciseCheck, std::string> check_exercise(const std::string& id,
                                                  const std::vector<std::string>& responses,
                                                  const ChapterEvidence& fixture) {
  const auto need = [&](std::size_t count) -> std::optional<std::string> {
    if (responses.size() == count) return std::nullopt;
    return "exercise " + id + " takes " + std::to_string(count) + " responses, got " +
           std::to_string(responses.size());
  };
  const ProjectionRequest& r = fixture.request;

  if (id == "ch26-output-shapes") {
    if (auto problem = need(1)) return fail(*problem);
    // Run the fixture's layer on a [4, 7, d_model] input and read the three shapes it gives.
    auto layer = projections_from_weights(r.query_weight, r.key_weight, r.value_weight);
    if (!layer) return fail(layer.error().message);
    auto input = TensorValue::constant(Tensor::zeros({4, 7, layer->model_width()}).value());
    auto outputs = layer->forward(*input);
    if (!outputs) return fail(outputs.error().message());
    return shapes_check(responses, {outputs->query.shape()});
  }
  if (id == "ch26-first-token") {
    if (auto problem = need(3)) return fail(*problem);
    const Tensor* outputs[] = {&fixture.primary.query, &fixture.primary.key, &fixture.primary.value};
    ExerciseCheck check{true, "", ""};
    for (std::size_t i = 0; i < 3; ++i) {
      const std::vector<double> expected = first_batch_row(*outputs[i], 0);
      check.expected += (i > 0 ? " " : "") + vector_text(expected);
      auto vector = parse_vector(responses[i]);
      if (!vector) {
        check.problem = vector.error();
        check.correct = false;
      } else {
        check.correct = check.correct && *vector == expected;
      }
    }
    return check;
  }
  if (id == "ch26-change-query-only") {
    if (auto problem = need(1)) return fail(*problem);
    return choice_check(responses[0], fixture.key_unchanged && fixture.value_unchanged ? "no" : "yes");
  }
  if (id == "ch26-parameter-count") {
    if (auto problem = need(1)) return fail(*problem);
    const Extent count = fixture.primary.parameter_count;
    auto response = parse_extent(responses[0], "the count", 1000000000);
    ExerciseCheck check{response && *response == count, std::to_string(count), ""};
    if (!response) check.problem = response.error();
    return check;
  }
  if (id == "ch26-empty-axes") {
    if (auto problem = need(2)) return fail(*problem);
    return shapes_check(responses, {fixture.empty_batch.query, fixture.empty_token.query});
  }
  if (id == "ch26-rank-two") {
    if (auto problem = need(1)) return fail(*problem);
    // The layer's own rejection is the evidence; its reason is the explicit batch and token axes.
    return choice_check(responses[0], fixture.rank.expected_variant ? "explicit-axes" : "accepted");
  }
  if (id == "ch26-divisibility") {
    if (auto problem = need(1)) return fail(*problem);
    // The fixture itself is the counterexample when d_model is not a multiple of d_head.
    const bool indivisible_accepted = fixture.model_width % fixture.head_width != 0;
    return choice_check(responses[0], indivisible_accepted ? "no" : "yes");
  }
  if (id == "ch26-history") {
    if (auto problem = need(1)) return fail(*problem);
    return choice_check(responses[0], "additive-two-self-one");
  }
  if (id == "ch26-still-missing") {
    if (auto problem = need(1)) return fail(*problem);
    return choice_check(responses[0], "scores-probabilities-mixture");
  }
  return fail("unknown exercise " + id);
}

}  // namespace qkv
