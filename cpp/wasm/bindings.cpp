// The WebAssembly face of the lesson: conversions between JavaScript values and the core's types, nothing
// else. Every function returns {ok: true, ...} or {ok: false, error: {kind, message}}; no C++ exception
// ever reaches JavaScript.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cinttypes>
#include <cstdio>
#include <new>

#include "learner/editable_state.hpp"
#include "learner/exercises.hpp"
#include "text/format.hpp"

using emscripten::val;

namespace {

val array_of_strings(const std::vector<std::string>& items) {
  val out = val::array();
  for (const std::string& item : items) out.call<void>("push", item);
  return out;
}

val shape_val(const qkv::Shape& shape) {
  val out = val::array();
  for (qkv::Extent extent : shape) out.call<void>("push", static_cast<double>(extent));
  return out;
}

// Numbers as {values, text}: the exact doubles (for tests that compare bits) and their text as C++
// formats it for display (shortest round-trip unless the caller asks for another format).
val numbers_val(const std::vector<double>& numbers, std::string (*format)(double) = qkv::format_shortest) {
  val values = val::array();
  val text = val::array();
  for (double value : numbers) {
    values.call<void>("push", value);
    text.call<void>("push", format(value));
  }
  val out = val::object();
  out.set("values", values);
  out.set("text", text);
  return out;
}

// A tensor: its numbers, its shape, and the shape as text.
val tensor_val(const qkv::Tensor& tensor) {
  val out = numbers_val(tensor.values());
  out.set("shape", shape_val(tensor.shape()));
  out.set("shapeText", qkv::format_shape(tensor.shape()));
  return out;
}

val number_val(double value) {
  val out = val::object();
  out.set("value", value);
  out.set("text", qkv::format_shortest(value));
  return out;
}

val probe_val(const qkv::ShapeProbe& probe) {
  val out = val::object();
  out.set("input", qkv::format_shape(probe.input));
  out.set("query", qkv::format_shape(probe.query));
  out.set("key", qkv::format_shape(probe.key));
  out.set("value", qkv::format_shape(probe.value));
  return out;
}

val rejection_val(const qkv::RejectionProbe& probe) {
  val out = val::object();
  out.set("message", probe.message);
  out.set("expectedVariant", probe.expected_variant);
  return out;
}

val error_val(const std::string& kind, const std::string& message, const std::string& field = "",
              std::int64_t index = -1) {
  val error = val::object();
  error.set("kind", kind);
  error.set("message", message);
  if (!field.empty()) error.set("field", field);
  if (index >= 0) error.set("index", static_cast<double>(index));
  val out = val::object();
  out.set("ok", false);
  out.set("error", error);
  return out;
}

val evidence_val(const qkv::ChapterEvidence& e) {
  const qkv::ProjectionRequest& r = e.request;
  const qkv::ProjectionGradients& g = *e.primary.gradients;
  const qkv::GradcheckSummary& check = *e.primary.gradcheck;
  val tensors = val::object();
  tensors.set("input", tensor_val(r.input));
  tensors.set("query_weight", tensor_val(r.query_weight));
  tensors.set("key_weight", tensor_val(r.key_weight));
  tensors.set("value_weight", tensor_val(r.value_weight));
  tensors.set("query_upstream", tensor_val(r.upstream->query));
  tensors.set("key_upstream", tensor_val(r.upstream->key));
  tensors.set("value_upstream", tensor_val(r.upstream->value));
  tensors.set("query", tensor_val(e.primary.query));
  tensors.set("key", tensor_val(e.primary.key));
  tensors.set("value", tensor_val(e.primary.value));
  tensors.set("input_gradient", tensor_val(g.input));
  tensors.set("query_weight_gradient", tensor_val(g.query_weight));
  tensors.set("key_weight_gradient", tensor_val(g.key_weight));
  tensors.set("value_weight_gradient", tensor_val(g.value_weight));

  val gradcheck = val::object();
  gradcheck.set("passed", check.passed);
  gradcheck.set("checks", static_cast<double>(check.checks));
  gradcheck.set("inputChecks", static_cast<double>(check.input_checks));
  gradcheck.set("queryChecks", static_cast<double>(check.query_checks));
  gradcheck.set("keyChecks", static_cast<double>(check.key_checks));
  gradcheck.set("valueChecks", static_cast<double>(check.value_checks));
  gradcheck.set("maxError", number_val(check.max_error));
  gradcheck.set("tolerance", number_val(check.tolerance));
  gradcheck.set("step", number_val(qkv::GradcheckOptions{}.step));
  gradcheck.set("problem", check.problem);

  val probes = val::object();
  probes.set("batch", probe_val(e.batch));
  probes.set("emptyBatch", probe_val(e.empty_batch));
  probes.set("emptyToken", probe_val(e.empty_token));

  val rejections = val::object();
  rejections.set("rank", rejection_val(e.rank));
  rejections.set("width", rejection_val(e.width));
  rejections.set("modelMismatch", rejection_val(e.model_mismatch));
  rejections.set("headMismatch", rejection_val(e.head_mismatch));
  rejections.set("duplicateName", rejection_val(e.duplicate_name));

  val initialization = val::object();
  char state[19];
  std::snprintf(state, sizeof state, "0x%016" PRIx64, e.initialization.state_after);
  initialization.set("seed", static_cast<double>(e.initialization.seed));
  initialization.set("reproducible", e.initialization.reproducible);
  initialization.set("independent", e.initialization.independent);
  initialization.set("transactional", e.initialization.transactional);
  initialization.set("stateAfter", std::string(state));

  val history = val::object();
  history.set("earlierLeft", std::string(e.history.earlier_left));
  history.set("earlierRight", std::string(e.history.earlier_right));
  history.set("transformerSource", std::string(e.history.transformer_source));
  history.set("mapping", std::string(e.history.mapping));

  val independence = val::object();
  independence.set("queryChanged", e.query_changed);
  independence.set("keyUnchanged", e.key_unchanged);
  independence.set("valueUnchanged", e.value_unchanged);

  val out = val::object();
  out.set("tensors", tensors);
  out.set("loss", number_val(g.loss));
  out.set("parameterNames", array_of_strings(e.primary.parameter_names));
  out.set("parameterCount", static_cast<double>(e.primary.parameter_count));
  out.set("modelWidth", static_cast<double>(e.model_width));
  out.set("headWidth", static_cast<double>(e.head_width));
  out.set("gradcheck", gradcheck);
  out.set("probes", probes);
  out.set("rejections", rejections);
  out.set("initialization", initialization);
  out.set("history", history);
  out.set("independence", independence);
  out.set("replayBitwise", e.replay_bitwise);
  return out;
}

bool is_array(const val& value) { return val::global("Array").call<bool>("isArray", value); }
bool is_object(const val& value) { return value.typeOf().as<std::string>() == "object" && !value.isNull(); }

std::string string_field(const val& object, const char* key) {
  const val field = object[key];
  return field.typeOf().as<std::string>() == "string" ? field.as<std::string>() : "";
}

std::vector<std::string> strings_of(const val& array) {
  std::vector<std::string> out;
  if (!is_array(array)) return out;
  const unsigned length = array["length"].as<unsigned>();
  for (unsigned i = 0; i < length; ++i) {
    const val item = array[i];
    out.push_back(item.typeOf().as<std::string>() == "string" ? item.as<std::string>() : "");
  }
  return out;
}

qkv::EditableTensor editable_of(const val& object) {
  qkv::EditableTensor out;
  if (!is_object(object)) return out;
  const val shape = object["shape"];
  if (is_array(shape)) {
    const unsigned length = shape["length"].as<unsigned>();
    for (unsigned i = 0; i < length; ++i) {
      const double extent = shape[i].typeOf().as<std::string>() == "number" ? shape[i].as<double>() : 0.0;
      // Only a shape that matches the cells is kept; conform() rebuilds anything else from the sizes.
      out.shape.push_back(extent >= 0 && extent <= qkv::kMaxEditableExtent ? static_cast<qkv::Extent>(extent)
                                                                           : 0);
    }
  }
  out.cells = strings_of(object["cells"]);
  return out;
}

val editable_val(const qkv::EditableTensor& tensor) {
  val out = val::object();
  out.set("shape", shape_val(tensor.shape));
  out.set("cells", array_of_strings(tensor.cells));
  return out;
}

val state_val(const qkv::LessonState& state) {
  val out = val::object();
  out.set("batch", state.batch);
  out.set("tokens", state.tokens);
  out.set("model_width", state.model_width);
  out.set("head_width", state.head_width);
  out.set("input", editable_val(state.input));
  out.set("query_weight", editable_val(state.query_weight));
  out.set("key_weight", editable_val(state.key_weight));
  out.set("value_weight", editable_val(state.value_weight));
  out.set("query_upstream", editable_val(state.query_upstream));
  out.set("key_upstream", editable_val(state.key_upstream));
  out.set("value_upstream", editable_val(state.value_upstream));
  return out;
}

qkv::LessonState state_of(const val& object) {
  qkv::LessonState state;
  if (!is_object(object)) return state;
  state.batch = string_field(object, "batch");
  state.tokens = string_field(object, "tokens");
  state.model_width = string_field(object, "model_width");
  state.head_width = string_field(object, "head_width");
  state.input = editable_of(object["input"]);
  state.query_weight = editable_of(object["query_weight"]);
  state.key_weight = editable_of(object["key_weight"]);
  state.value_weight = editable_of(object["value_weight"]);
  state.query_upstream = editable_of(object["query_upstream"]);
  state.key_upstream = editable_of(object["key_upstream"]);
  state.value_upstream = editable_of(object["value_upstream"]);
  return state;
}

// The one place where a C++ exception could still arise (an allocation the browser cannot give): it is
// turned into a typed error here, inside C++.
template <class F>
val guarded(F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return error_val("allocation", "not enough memory for the requested sizes");
  } catch (const std::exception& error) {
    return error_val("internal", error.what());
  }
}

const qkv::ChapterEvidence& fixture_evidence() {
  static const qkv::ChapterEvidence evidence = qkv::compute_chapter_evidence(qkv::chapter_fixture()).value();
  return evidence;
}

val fixture_state() {
  return guarded([] {
    val out = val::object();
    out.set("ok", true);
    out.set("state", state_val(qkv::fixture_state()));
    out.set("maxExtent", static_cast<double>(qkv::kMaxEditableExtent));
    return out;
  });
}

val evaluate_lesson(val state) {
  return guarded([&] {
    const qkv::LessonEvaluation evaluation = qkv::evaluate_lesson(state_of(state));
    val out = val::object();
    if (evaluation.error) {
      const qkv::FieldError& e = *evaluation.error;
      out = error_val(e.kind, e.message, e.field, e.index);
    } else {
      out.set("ok", true);
      out.set("evidence", evidence_val(*evaluation.evidence));
    }
    out.set("state", state_val(evaluation.state));
    return out;
  });
}

val check_exercise(std::string id, val responses) {
  return guarded([&] {
    auto check = qkv::check_exercise(id, strings_of(responses), fixture_evidence());
    if (!check) return error_val("exercise", check.error());
    val out = val::object();
    out.set("ok", true);
    out.set("correct", check->correct);
    out.set("expected", check->expected);
    out.set("problem", check->problem);
    return out;
  });
}

val exercise_ids() { return array_of_strings(qkv::exercise_ids()); }

val chapter_text(bool trace) {
  return guarded([&] {
    val out = val::object();
    out.set("ok", true);
    out.set("text", trace ? qkv::render_trace(fixture_evidence()) : qkv::render_report(fixture_evidence()));
    return out;
  });
}

val report() { return chapter_text(false); }
val trace() { return chapter_text(true); }

}  // namespace

EMSCRIPTEN_BINDINGS(qkv_lesson) {
  emscripten::function("fixtureState", &fixture_state);
  emscripten::function("evaluateLesson", &evaluate_lesson);
  emscripten::function("checkExercise", &check_exercise);
  emscripten::function("exerciseIds", &exercise_ids);
  emscripten::function("report", &report);
  emscripten::function("trace", &trace);
}

// numpy's legacy randn and the self-bias experiment (lesson/numpy_random.hpp, lesson/self_bias.hpp).
// A block of its own, after the chapter's bindings; it reuses guarded() and error_val() from above. JS
// numbers for seeds and sizes are checked here (kind "arguments": a number, an integer, a safe one);
// ranges are the library's (kind "random" or "self_bias", with its own message).
#include <cmath>
#include <string>
#include <vector>

#include "selfscore/numpy_random.hpp"
#include "selfscore/self_bias.hpp"

namespace {

// Each draw reaches JavaScript as a number and a string, so hand out at most this many at once.
constexpr std::int64_t kMaxRandnCount = 100000;
constexpr double kMaxSafeInteger = 9007199254740991.0;  // Number.MAX_SAFE_INTEGER, 2^53 - 1

// "null", "undefined", "a string", "an object", ... for messages about a value of the wrong type.
std::string type_phrase(const val& value) {
  if (value.isNull()) return "null";
  const std::string type = value.typeOf().as<std::string>();
  if (type == "undefined") return type;
  return (type[0] == 'o' ? "an " : "a ") + type;  // typeof never begins with another vowel
}

// A JS value that is a number holding a safe integer, or the message saying why not.
qkv::Result<std::int64_t, std::string> whole_number(const val& value, const std::string& name) {
  if (value.typeOf().as<std::string>() != "number") {
    return qkv::fail(name + " must be a number, got " + type_phrase(value));
  }
  const double number = value.as<double>();
  if (std::isnan(number) || std::trunc(number) != number) {
    return qkv::fail(name + " must be an integer, got " + qkv::format_shortest(number));
  }
  if (std::fabs(number) > kMaxSafeInteger) {
    return qkv::fail(name + " must be an integer from -9007199254740991 to 9007199254740991, got " +
                     qkv::format_shortest(number));
  }
  return static_cast<std::int64_t>(number);
}

// Also two decimals for display (np.round(s, 2) prints the module's matrices that way).
val rounded_val(const std::vector<double>& numbers) {
  val out = numbers_val(numbers);
  val rounded = val::array();
  for (double value : numbers) rounded.call<void>("push", qkv::format_fixed(value, 2));
  out.set("rounded", rounded);
  return out;
}

val indices_val(const std::vector<std::size_t>& indices) {
  val out = val::array();
  for (std::size_t index : indices) out.call<void>("push", static_cast<double>(index));
  return out;
}

val summary_val(const qkv::ScoreSummary& summary) {
  val out = val::object();
  out.set("scores", rounded_val(summary.scores));  // flat [n * n], row-major
  out.set("argmax", indices_val(summary.argmax));
  out.set("diagonalRows", indices_val(summary.diagonal_rows));
  out.set("guaranteedRows", indices_val(summary.guaranteed_rows));
  return out;
}

// Validation order: seed (integer, then range), count (integer, then range).
val numpy_randn(val seed, val count) {
  return guarded([&] {
    const auto seed_number = whole_number(seed, "seed");
    if (!seed_number) return error_val("arguments", seed_number.error());
    auto rng = qkv::NumpyLegacyRandom::seeded(*seed_number);
    if (!rng) return error_val("random", rng.error().message());
    const auto draws = whole_number(count, "count");
    if (!draws) return error_val("arguments", draws.error());
    if (*draws < 1 || *draws > kMaxRandnCount) {
      return error_val("arguments", "count must be between 1 and " + std::to_string(kMaxRandnCount) +
                                        ", got " + std::to_string(*draws));
    }
    val out = numbers_val(rng->randn(static_cast<std::size_t>(*draws)), qkv::format_significant17);
    out.set("ok", true);
    return out;
  });
}

// Validation order: seed, tokens, dim are each checked to be integers, then the library checks their
// The request field a self-bias error is about, so the page can mark that input.
std::string field_of(const qkv::SelfBiasError& error) {
  switch (error.kind) {
    case qkv::SelfBiasErrorKind::SeedOutOfRange:
      return "seed";
    case qkv::SelfBiasErrorKind::TokensOutOfRange:
      return "tokens";
    case qkv::SelfBiasErrorKind::DimOutOfRange:
      return "dim";
    case qkv::SelfBiasErrorKind::SeedCountOutOfRange:
      return "count";
  }
  return "";
}

// ranges in the same order.
val self_bias(val seed, val tokens, val dim) {
  return guarded([&] {
    qkv::SelfBiasRequest request;
    const std::pair<const char*, std::int64_t*> fields[] = {
        {"seed", &request.seed}, {"tokens", &request.tokens}, {"dim", &request.dim}};
    const val* const inputs[] = {&seed, &tokens, &dim};
    for (std::size_t i = 0; i < 3; ++i) {
      const auto number = whole_number(*inputs[i], fields[i].first);
      if (!number) return error_val("arguments", number.error(), fields[i].first);
      *fields[i].second = *number;
    }
    const auto computed = qkv::run_self_bias(request);
    if (!computed) return error_val("self_bias", computed.error().message(), field_of(computed.error()));
    const qkv::SelfBiasResult& r = *computed;
    val result = val::object();
    result.set("seed", static_cast<double>(request.seed));
    result.set("tokens", static_cast<double>(r.tokens));
    result.set("dim", static_cast<double>(r.dim));
    result.set("x", numbers_val(r.x, qkv::format_significant17));
    result.set("wq", numbers_val(r.wq, qkv::format_significant17));
    result.set("wk", numbers_val(r.wk, qkv::format_significant17));
    result.set("norms", rounded_val(r.norms));
    result.set("projectedNorms", rounded_val(r.projected_norms));
    result.set("none", summary_val(r.none));
    result.set("separate", summary_val(r.separate));
    result.set("tied", summary_val(r.tied));
    val out = val::object();
    out.set("ok", true);
    out.set("result", result);
    return out;
  });
}

// Validation order: kind, then start, count, tokens, dim as integers, then the library's ranges
// (start, count, tokens, dim).
val find_off_diagonal_seed(val kind, val start, val count, val tokens, val dim) {
  return guarded([&] {
    qkv::CounterexampleSearch search;
    const bool is_string = kind.typeOf().as<std::string>() == "string";
    const std::string kind_text = is_string ? kind.as<std::string>() : "";
    if (kind_text == "none") {
      search.kind = qkv::ScoreKind::None;
    } else if (kind_text == "tied") {
      search.kind = qkv::ScoreKind::Tied;
    } else {
      return error_val("arguments", "kind must be \"none\" or \"tied\", got " +
                                        (is_string ? "\"" + kind_text + "\"" : type_phrase(kind)));
    }
    const std::pair<const char*, std::int64_t*> fields[] = {{"start", &search.start_seed},
                                                            {"count", &search.max_seeds},
                                                            {"tokens", &search.tokens},
                                                            {"dim", &search.dim}};
    const val* const inputs[] = {&start, &count, &tokens, &dim};
    for (std::size_t i = 0; i < 4; ++i) {
      const auto number = whole_number(*inputs[i], fields[i].first);
      if (!number) return error_val("arguments", number.error(), fields[i].first);
      *fields[i].second = *number;
    }
    const auto found = qkv::find_off_diagonal_seed(search);
    if (!found) return error_val("self_bias", found.error().message(), field_of(found.error()));
    val out = val::object();
    out.set("ok", true);
    out.set("found", found->has_value());
    out.set("seed", *found ? val(static_cast<double>((*found)->seed)) : val::null());
    out.set("row", *found ? val(static_cast<double>((*found)->row)) : val::null());
    out.set("argmax", *found ? val(static_cast<double>((*found)->argmax)) : val::null());
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(qkv_numpy) {
  emscripten::function("numpyRandn", &numpy_randn);
  emscripten::function("selfBias", &self_bias);
  emscripten::function("findOffDiagonalSeed", &find_off_diagonal_seed);
}
