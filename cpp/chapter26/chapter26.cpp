#include "chapter26/chapter26.hpp"

#include <array>
#include <cstring>
#include <map>

#include "text/format.hpp"

namespace qkv {
namespace {

Tensor tensor(Shape shape, std::vector<double> values) {
  return Tensor::from_values(std::move(shape), std::move(values)).value();
}

std::uint64_t bits_of(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

Result<ShapeProbe, LessonError> probe_shapes(const QkvProjections& layer, Shape input_shape) {
  auto zeros = Tensor::zeros(input_shape);
  if (!zeros) return fail(lesson_error(zeros.error()));
  auto input = TensorValue::constant(std::move(*zeros));
  auto outputs = layer.forward(*input);
  if (!outputs) return fail(lesson_error(outputs.error()));
  return ShapeProbe{std::move(input_shape), outputs->query.shape(), outputs->key.shape(),
                    outputs->value.shape()};
}

RejectionProbe rejected_input(const QkvProjections& layer, const Shape& input_shape, QkvErrorKind kind,
                              Extent expected, Extent actual) {
  auto zeros = Tensor::zeros(input_shape);
  if (!zeros) return {zeros.error().message(), false};
  auto outputs = layer.forward(TensorValue::constant(std::move(*zeros)).value());
  if (outputs) return {"accepted", false};
  const QkvError& error = outputs.error();
  const bool exact = error.kind == kind && error.actual == actual &&
                     (kind == QkvErrorKind::InputRank || error.expected == expected);
  return {error.message(), exact};
}

// from_weights with the key weight replaced; `check` says whether the error is exactly the one expected.
template <class Check>
RejectionProbe rejected_weights(const Tensor& weight, const std::string& query_name,
                                const std::string& key_name, const Shape& key_shape, Check check) {
  const std::string prefix = kParameterPrefix;
  auto key_zeros = Tensor::zeros(key_shape);
  if (!key_zeros) return {key_zeros.error().message(), false};
  auto query = NamedParameter::create(query_name, weight);
  auto key = NamedParameter::create(key_name, std::move(*key_zeros));
  auto value = NamedParameter::create(prefix + ".value.weight", weight);
  if (!query || !key || !value) return {"rejected before construction", false};
  auto layer = QkvProjections::from_weights(std::move(*query), std::move(*key), std::move(*value));
  if (layer) return {"accepted", false};
  return {layer.error().message(), check(layer.error())};
}

InitializationEvidence initialization_evidence(Extent model_width, Extent head_width) {
  InitializationEvidence evidence;
  SplitMix64 first_rng(evidence.seed), second_rng(evidence.seed);
  auto first = QkvProjections::create(kParameterPrefix, model_width, head_width, first_rng);
  auto second = QkvProjections::create(kParameterPrefix, model_width, head_width, second_rng);
  if (first && second) {
    evidence.state_after = first_rng.state();
    evidence.reproducible = first_rng == second_rng;
    for (std::size_t i = 0; i < 3; ++i) {
      const Tensor& a = first->parameters()[i].value().value();
      const Tensor& b = second->parameters()[i].value().value();
      evidence.reproducible = evidence.reproducible && same_bits(a, b);
    }
    evidence.independent = true;
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t j = i + 1; j < 3; ++j) {
        const TensorValue& a = first->parameters()[i].value();
        const TensorValue& b = first->parameters()[j].value();
        evidence.independent =
            evidence.independent && !a.is_same_node(b) && a.value().values() != b.value().values();
      }
    }
  }
  SplitMix64 rejected_rng(evidence.seed);
  auto rejected = QkvProjections::create(kParameterPrefix, model_width, 0, rejected_rng);
  evidence.transactional = !rejected && rejected_rng.state() == evidence.seed;
  return evidence;
}

bool same_primary_bits(const ProjectionEvidence& primary, const ProjectionEvidence& replay) {
  const ProjectionGradients& a = *primary.gradients;
  const ProjectionGradients& b = *replay.gradients;
  return same_bits(primary.query, replay.query) && same_bits(primary.key, replay.key) &&
         same_bits(primary.value, replay.value) && same_bits(primary.scores, replay.scores) &&
         same_bits(a.input, b.input) && same_bits(a.query_weight, b.query_weight) &&
         same_bits(a.key_weight, b.key_weight) && same_bits(a.value_weight, b.value_weight) &&
         bits_of(a.loss) == bits_of(b.loss) && primary.parameter_names == replay.parameter_names &&
         primary.parameter_count == replay.parameter_count;
}

}  // namespace

bool same_bits(const Tensor& left, const Tensor& right) {
  if (left.shape() != right.shape()) return false;
  for (std::size_t i = 0; i < left.size(); ++i) {
    if (bits_of(left[i]) != bits_of(right[i])) return false;
  }
  return true;
}

ProjectionRequest chapter_fixture() {
  return ProjectionRequest{
      tensor({1, 2, 3}, {1, 2, -1, 0, 1, 2}),
      tensor({3, 2}, {1, 0, 0, 1, 1, -1}),
      tensor({3, 2}, {0, 1, 1, 0, -1, 1}),
      tensor({3, 2}, {1, 1, 1, -1, 0, 2}),
      Upstreams{tensor({1, 2, 2}, {1, 0, -1, 2}), tensor({1, 2, 2}, {0.5, -1, 1, 0}),
                tensor({1, 2, 2}, {2, 1, 0, -0.5})},
  };
}

std::string token_name(Extent position) {
  static const char* const words[] = {"fresh", "bread"};
  return position < 2 ? words[position] : "token " + std::to_string(position);
}

std::vector<std::string> token_names(Extent tokens) {
  std::vector<std::string> out;
  for (Extent position = 0; position < tokens; ++position) out.push_back(token_name(position));
  return out;
}

namespace {

// What the chapter shows that depends only on the sizes, never on a value: the shape probes, the rejected
// inputs and the seed-26 initialisation.
struct SizeEvidence {
  ShapeProbe batch, empty_batch, empty_token, report_empty_token;
  RejectionProbe rank, width, model_mismatch, head_mismatch, duplicate_name;
  InitializationEvidence initialization;
};

Result<SizeEvidence, LessonError> compute_size_evidence(Extent batch, Extent tokens, Extent d, Extent h) {
  auto zeros = Tensor::zeros({d, h});
  if (!zeros) return fail(lesson_error(zeros.error()));
  auto layer = projections_from_weights(*zeros, *zeros, *zeros);
  if (!layer) return fail(layer.error());
  SizeEvidence out;
  const std::pair<ShapeProbe*, Shape> probes[] = {
      {&out.batch, {2 * batch, tokens, d}},
      {&out.empty_batch, {0, tokens, d}},
      {&out.empty_token, {2 * batch, 0, d}},
      {&out.report_empty_token, {batch, 0, d}},
  };
  for (const auto& [probe, shape] : probes) {
    auto shapes = probe_shapes(*layer, shape);
    if (!shapes) return fail(shapes.error());
    *probe = std::move(*shapes);
  }

  out.rank = rejected_input(*layer, {tokens, d}, QkvErrorKind::InputRank, 0, 2);
  out.width = rejected_input(*layer, {batch, tokens, d + 1}, QkvErrorKind::InputWidthMismatch, d, d + 1);
  const std::string prefix = kParameterPrefix;
  const std::string query_name = prefix + ".query.weight", key_name = prefix + ".key.weight";
  out.model_mismatch = rejected_weights(*zeros, query_name, key_name, {d + 1, h}, [&](const QkvError& e) {
    return e.kind == QkvErrorKind::BranchInputWidthMismatch && e.query == d && e.key == d + 1 && e.value == d;
  });
  out.head_mismatch = rejected_weights(*zeros, query_name, key_name, {d, h + 1}, [&](const QkvError& e) {
    return e.kind == QkvErrorKind::BranchOutputWidthMismatch && e.query == h && e.key == h + 1 &&
           e.value == h;
  });
  out.duplicate_name = rejected_weights(*zeros, "same", "same", {d, h}, [](const QkvError& e) {
    return e.kind == QkvErrorKind::Initialization &&
           e.initialization->kind == InitializationErrorKind::DuplicateName &&
           e.initialization->name == "same" && e.initialization->index == 0 &&
           e.initialization->repeat_index == 1;
  });
  out.initialization = initialization_evidence(d, h);
  return out;
}

// Computed once per (B, T, d_model, d_head) and reused for every edit of the values: an edit recomputes
// only what the values decide (forward, backward, gradcheck, replay, independence).
Result<const SizeEvidence*, LessonError> size_evidence(Extent batch, Extent tokens, Extent d, Extent h) {
  static std::map<std::array<Extent, 4>, SizeEvidence> cache;
  const std::array<Extent, 4> key{batch, tokens, d, h};
  if (auto found = cache.find(key); found != cache.end()) return &found->second;
  auto computed = compute_size_evidence(batch, tokens, d, h);
  if (!computed) return fail(computed.error());
  if (cache.size() >= 256) cache.clear();  // the lesson's sizes give far fewer; this only bounds memory
  return &cache.emplace(key, std::move(*computed)).first->second;
}

}  // namespace

Result<BitwiseChecks, LessonError> check_bitwise(const ProjectionRequest& request,
                                                 const ProjectionEvidence& primary) {
  BitwiseChecks checks;
  EvidenceParts parts;
  parts.scores = true;
  parts.gradcheck = false;
  auto replay = compute_projection_evidence(request, parts);
  if (!replay) return fail(replay.error());
  checks.replay_bitwise = same_primary_bits(primary, *replay);

  ProjectionRequest changed = request;
  changed.upstream.reset();
  changed.query_weight.mutable_values()[0] += 1.0;
  auto changed_evidence = compute_projection_evidence(changed);
  if (!changed_evidence) return fail(changed_evidence.error());
  checks.query_changed = !same_bits(changed_evidence->query, primary.query);
  checks.key_unchanged = same_bits(changed_evidence->key, primary.key);
  checks.value_unchanged = same_bits(changed_evidence->value, primary.value);

  checks.key_upstream_empty = !request.upstream || request.upstream->key.values().empty();
  if (!checks.key_upstream_empty) {
    ProjectionRequest upstream_changed = request;
    upstream_changed.upstream->key.mutable_values()[0] += 1.0;
    EvidenceParts backward_only;
    backward_only.gradcheck = false;
    auto rerun = compute_projection_evidence(upstream_changed, backward_only);
    if (!rerun) return fail(rerun.error());
    const ProjectionGradients& before = *primary.gradients;
    const ProjectionGradients& after = *rerun->gradients;
    checks.key_gradient_changed = !same_bits(after.key_weight, before.key_weight);
    checks.query_gradient_unchanged = same_bits(after.query_weight, before.query_weight);
    checks.value_gradient_unchanged = same_bits(after.value_weight, before.value_weight);
    checks.input_gradient_changed = !same_bits(after.input, before.input);
  }
  return checks;
}

Result<ChapterEvidence, LessonError> compute_chapter_evidence(const ProjectionRequest& request,
                                                              bool gradcheck, bool bitwise) {
  if (!request.upstream)
    return fail(LessonError{ErrorKind::Upstream, "chapter evidence needs the three upstream tensors"});
  EvidenceParts parts;
  parts.scores = true;
  parts.gradcheck = gradcheck;
  auto primary = compute_projection_evidence(request, parts);
  if (!primary) return fail(primary.error());

  ChapterEvidence evidence;
  evidence.request = request;
  evidence.primary = std::move(*primary);
  const Shape& x = request.input.shape();  // rank three: the forward above accepted it
  const Extent d = x[2], h = request.query_weight.shape()[1];
  evidence.model_width = d;
  evidence.head_width = h;
  auto sizes = size_evidence(x[0], x[1], d, h);
  if (!sizes) return fail(sizes.error());
  const SizeEvidence& s = **sizes;
  evidence.batch = s.batch;
  evidence.empty_batch = s.empty_batch;
  evidence.empty_token = s.empty_token;
  evidence.report_empty_token = s.report_empty_token;
  evidence.rank = s.rank;
  evidence.width = s.width;
  evidence.model_mismatch = s.model_mismatch;
  evidence.head_mismatch = s.head_mismatch;
  evidence.duplicate_name = s.duplicate_name;
  evidence.initialization = s.initialization;
  if (bitwise) {
    auto checks = check_bitwise(request, evidence.primary);
    if (!checks) return fail(checks.error());
    evidence.bitwise = *checks;
  }
  return evidence;
}

namespace {

const char* flag(bool value) { return value ? "true" : "false"; }

std::string names_list(const std::vector<std::string>& names) {
  std::string text = "[";
  for (std::size_t i = 0; i < names.size(); ++i) text += (i > 0 ? "," : "") + names[i];
  return text + "]";
}

std::string underscored(std::string text) {
  for (char& c : text) c = c == '-' ? '_' : c;
  return text;
}

std::string shape_rule(const ShapeProbe& probe) {
  return format_shape(probe.input) + "->three*" + format_shape(probe.query);
}

std::string tensor_line(const char* name, const Tensor& tensor) {
  return std::string(name) + "=shape:" + format_shape(tensor.shape()) +
         " values:" + format_vector6(tensor.values()) + "\n";
}

}  // namespace

std::string render_report(const ChapterEvidence& e) {
  const ProjectionRequest& r = e.request;
  const ProjectionGradients& g = *e.primary.gradients;
  const GradcheckSummary& check = *e.primary.gradcheck;
  const Shape& x = r.input.shape();
  const ShapeProbe primary{x, e.primary.query.shape(), e.primary.key.shape(), e.primary.value.shape()};
  std::string out;
  out += "chapter=26-qkv-projections\n";
  out += "prediction=three independent bias-free projections preserve batch and token axes\n";
  out += "config=batch:" + std::to_string(x[0]) + " tokens:" + std::to_string(x[1]) +
         " d_model:" + std::to_string(e.model_width) + " d_head:" + std::to_string(e.head_width) +
         " bias:false\n";
  out += tensor_line("input", r.input);
  out += tensor_line("query_weight", r.query_weight);
  out += tensor_line("key_weight", r.key_weight);
  out += tensor_line("value_weight", r.value_weight);
  out += tensor_line("query", e.primary.query);
  out += tensor_line("key", e.primary.key);
  out += tensor_line("value", e.primary.value);
  out += "parameter_names=" + names_list(e.primary.parameter_names) + "\n";
  out += "parameter_count=" + std::to_string(e.primary.parameter_count) +
         " independent:" + flag(e.initialization.independent) + "\n";
  out += "shape_rule=" + shape_rule(primary) + "\n";
  out += "batch_probe=" + shape_rule(e.batch) + "\n";
  out += "empty_tokens=" + shape_rule(e.report_empty_token) + "\n";
  out += "history=additive_query:" + underscored(e.history.earlier_left) +
         " additive_key_value:" + underscored(e.history.earlier_right) +
         " self_attention_qkv:hidden_sequence\n";
  out += "upstream_query=" + format_vector6(r.upstream->query.values()) + "\n";
  out += "upstream_key=" + format_vector6(r.upstream->key.values()) + "\n";
  out += "upstream_value=" + format_vector6(r.upstream->value.values()) + "\n";
  out += "input_gradient=" + format_vector6(g.input.values()) + "\n";
  out += "query_weight_gradient=" + format_vector6(g.query_weight.values()) + "\n";
  out += "key_weight_gradient=" + format_vector6(g.key_weight.values()) + "\n";
  out += "value_weight_gradient=" + format_vector6(g.value_weight.values()) + "\n";
  out += "gradcheck=input_checks:" + std::to_string(check.input_checks) +
         " query_checks:" + std::to_string(check.query_checks) +
         " key_checks:" + std::to_string(check.key_checks) +
         " value_checks:" + std::to_string(check.value_checks) +
         " tolerance:" + format_fixed6(check.tolerance) + " passed:" + flag(check.passed) + "\n";
  out += "initialization=seed:" + std::to_string(e.initialization.seed) +
         " transactional:" + flag(e.initialization.transactional) +
         " independent:" + flag(e.initialization.independent) + "\n";
  out += std::string("errors=rank:") + flag(e.rank.expected_variant) +
         " width:" + flag(e.width.expected_variant) +
         " model_mismatch:" + flag(e.model_mismatch.expected_variant) +
         " head_mismatch:" + flag(e.head_mismatch.expected_variant) +
         " duplicate_name:" + flag(e.duplicate_name.expected_variant) + "\n";
  out += std::string("same_fixture_replays_bitwise=") + flag(e.bitwise->replay_bitwise) + "\n";
  out += "next=compare queries with keys and mix values\n";
  return out;
}

std::string render_trace(const ChapterEvidence& e) {
  const ProjectionRequest& r = e.request;
  const ProjectionGradients& g = *e.primary.gradients;
  const GradcheckSummary& check = *e.primary.gradcheck;
  const auto unchanged = [](bool same) { return same ? "bitwise-unchanged" : "changed"; };
  std::string out;
  out += "META|input_shape=" + format_shape(r.input.shape()) +
         "|model_width=" + std::to_string(e.model_width) + "|head_width=" + std::to_string(e.head_width) +
         "|bias=false|parameter_count=" + std::to_string(e.primary.parameter_count) +
         "|branch_order=query,key,value\n";
  out += "INPUT|values=" + format_vector6(r.input.values()) + "\n";
  const struct {
    const char* role;
    const char* tensor;
    const Tensor& weight;
    const Tensor& output;
  } branches[] = {{"query", "Q", r.query_weight, e.primary.query},
                  {"key", "K", r.key_weight, e.primary.key},
                  {"value", "V", r.value_weight, e.primary.value}};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& b = branches[i];
    out += std::string("PROJECTION|role=") + b.role + "|tensor=" + b.tensor +
           "|parameter=" + e.primary.parameter_names[i] + "|weight_shape=" + format_shape(b.weight.shape()) +
           "|weights=" + format_vector6(b.weight.values()) +
           "|output_shape=" + format_shape(b.output.shape()) +
           "|output=" + format_vector6(b.output.values()) + "\n";
  }
  out += "BACKWARD|query_upstream=" + format_vector6(r.upstream->query.values()) +
         "|key_upstream=" + format_vector6(r.upstream->key.values()) +
         "|value_upstream=" + format_vector6(r.upstream->value.values()) +
         "|input_gradient_shape=" + format_shape(g.input.shape()) +
         "|input_gradient=" + format_vector6(g.input.values()) + "\n";
  const std::pair<const char*, const Tensor*> weight_gradients[] = {
      {"query", &g.query_weight}, {"key", &g.key_weight}, {"value", &g.value_weight}};
  for (const auto& [role, gradient] : weight_gradients) {
    out += std::string("WEIGHT_GRADIENT|role=") + role + "|shape=" + format_shape(gradient->shape()) +
           "|values=" + format_vector6(gradient->values()) + "\n";
  }
  out += std::string("INDEPENDENCE|changed=query|query_changed=") + flag(e.bitwise->query_changed) +
         "|key_output=" + unchanged(e.bitwise->key_unchanged) +
         "|value_output=" + unchanged(e.bitwise->value_unchanged) + "\n";
  out +=
      "EMPTY_SHAPES|batch_input=" + format_shape(e.empty_batch.input) +
      "|batch_query=" + format_shape(e.empty_batch.query) + "|batch_key=" + format_shape(e.empty_batch.key) +
      "|batch_value=" + format_shape(e.empty_batch.value) +
      "|token_input=" + format_shape(e.empty_token.input) +
      "|token_query=" + format_shape(e.empty_token.query) + "|token_key=" + format_shape(e.empty_token.key) +
      "|token_value=" + format_shape(e.empty_token.value) + "\n";
  const std::pair<const char*, const RejectionProbe*> errors[] = {
      {"rank-two", &e.rank}, {"input-width", &e.width}, {"branch-mismatch", &e.model_mismatch}};
  for (const auto& [name, probe] : errors) {
    out += std::string("ERROR|case=") + name + "|rejected=" + flag(probe->expected_variant) +
           "|message=" + probe->message + "\n";
  }
  out += std::string("HISTORY|earlier_left=") + e.history.earlier_left +
         "|earlier_right=" + e.history.earlier_right + "|transformer_source=" + e.history.transformer_source +
         "|mapping=" + e.history.mapping + "\n";
  out += "PROOF|input_checks=" + std::to_string(check.input_checks) +
         "|query_weight_checks=" + std::to_string(check.query_checks) +
         "|key_weight_checks=" + std::to_string(check.key_checks) +
         "|value_weight_checks=" + std::to_string(check.value_checks) +
         "|tolerance=" + format_fixed6(check.tolerance) + "|gradcheck=" + flag(check.passed) +
         "|replay=" + (e.bitwise->replay_bitwise ? "bitwise" : "mismatch") +
         "|names=" + (e.duplicate_name.expected_variant ? "unique" : "unchecked") +
         "|initialization=" + (e.initialization.transactional ? "transactional" : "partial") + "\n";
  out += "NEXT|chapter=27-self-attention\n";
  return out;
}

}  // namespace qkv
