#include "chapter26/projection_evidence.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "autograd/ops.hpp"
#include "chapter26/evidence_cost.hpp"
#include "response/tensor_names.hpp"

namespace qkv {
namespace {
// The field an error about X names (its page key).
constexpr const char* kInputKey = tensor_name<TensorRole::Input>().key;
}  // namespace

LessonError lesson_error(const TensorError& error, std::string field) {
  return {ErrorKind::Tensor, error.message(), std::move(field)};
}
LessonError lesson_error(const InitializationError& error, std::string field) {
  if (error.kind == InitializationErrorKind::Tensor) return lesson_error(*error.tensor, std::move(field));
  return {ErrorKind::Initialization, error.message(), std::move(field)};
}
LessonError lesson_error(const QkvError& error, std::string field) {
  return {ErrorKind::Qkv, error.message(), std::move(field)};
}

Result<QkvProjections, LessonError> projections_from_weights(const Tensor& query_weight,
                                                             const Tensor& key_weight,
                                                             const Tensor& value_weight) {
  const std::string prefix = kParameterPrefix;
  auto query = NamedParameter::create(prefix + ".query.weight", query_weight);
  if (!query) return fail(lesson_error(query.error(), tensor_name<TensorRole::Weight>(0).key));
  auto key = NamedParameter::create(prefix + ".key.weight", key_weight);
  if (!key) return fail(lesson_error(key.error(), tensor_name<TensorRole::Weight>(1).key));
  auto value = NamedParameter::create(prefix + ".value.weight", value_weight);
  if (!value) return fail(lesson_error(value.error(), tensor_name<TensorRole::Weight>(2).key));
  auto layer = QkvProjections::from_weights(std::move(*query), std::move(*key), std::move(*value));
  if (!layer) return fail(lesson_error(layer.error()));
  return std::move(*layer);
}

namespace {

// Σ over every axis of output ⊙ upstream, by repeated sum_axis(0).
Result<TensorValue, TensorError> inner_product(const TensorValue& output, const TensorValue& upstream) {
  auto total = mul(output, upstream);
  while (total && !total->shape().empty()) total = sum_axis(*total, 0);
  return total;
}

Result<Upstreams, LessonError> check_upstreams(const Upstreams& upstream, const QkvOutputs& outputs) {
  const Tensor* tensors[] = {&upstream.query, &upstream.key, &upstream.value};
  for (std::size_t branch = 0; branch < 3; ++branch) {
    const Tensor* tensor = tensors[branch];
    // "key upstream must ...", about the field key_upstream
    const char* output = tensor_name<TensorRole::Output>(branch).key;
    const char* field = tensor_name<TensorRole::Upstream>(branch).key;
    if (tensor->shape() != outputs.query.shape()) {
      return fail(LessonError{ErrorKind::Upstream,
                              std::string(output) + " upstream must have the output shape " +
                                  format_shape(outputs.query.shape()) + ", got " +
                                  format_shape(tensor->shape()),
                              field});
    }
    if (first_non_finite(*tensor) >= 0) {
      auto rejected = TensorValue::constant(*tensor);
      return fail(lesson_error(rejected.error(), field));
    }
  }
  return upstream;
}

// L at a probe point: a fresh layer with the probed tensor substituted, and X as a constant.
Result<double, std::string> objective_at(const ProjectionRequest& request) {
  // Without the tape: the forward pass's own kernels in its order (X · W for each branch, then
  // Σ output ⊙ upstream by repeated sums over axis 0, added (q + k) + v), so the value has the tape's bits,
  // but a probe builds no layer, no named parameters and no graph.
  const Tensor* weights[3] = {&request.query_weight, &request.key_weight, &request.value_weight};
  const Tensor* upstreams[3] = {&request.upstream->query, &request.upstream->key, &request.upstream->value};
  double terms[3];
  for (int i = 0; i < 3; ++i) {
    auto output = matmul(request.input, *weights[i]);
    if (!output) return fail(output.error().message());
    auto product = multiply(*output, *upstreams[i]);
    if (!product) return fail(product.error().message());
    Tensor total = std::move(*product);
    while (total.rank() > 0) {
      auto summed = sum_axis(total, 0);
      if (!summed) return fail(summed.error().message());
      total = std::move(*summed);
    }
    terms[i] = total[0];
  }
  return (terms[0] + terms[1]) + terms[2];
}

// A bound on the rounding error of L near the request's point (X [B, T, d], weights [d, h]). Each term
// x·w·u of L passes through at most k = d + B + T + h + 2 roundings (the matmul's d, the product with U,
// the sums over B, T and h, the two additions of the branches), so |fl(L) - L| <= k·u/(1 - k·u) · M with
// u = eps/2 and M = Σ |x||w||u| over every term; k·eps·M is that bound with room to spare.
double loss_rounding_bound(const ProjectionRequest& request) {
  const Shape& shape = request.input.shape();
  const std::size_t d = shape[2], h = request.query_weight.shape()[1], rows = shape[0] * shape[1];
  const std::vector<double>& x = request.input.values();
  const std::pair<const Tensor*, const Tensor*> branches[] = {
      {&request.query_weight, &request.upstream->query},
      {&request.key_weight, &request.upstream->key},
      {&request.value_weight, &request.upstream->value}};
  double magnitude = 0.0;
  for (const auto& [weight, upstream] : branches) {
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t j = 0; j < h; ++j) {
        double row = 0.0;
        for (std::size_t k = 0; k < d; ++k) row += std::fabs(x[r * d + k]) * std::fabs((*weight)[k * h + j]);
        magnitude += row * std::fabs((*upstream)[r * h + j]);
      }
    }
  }
  const double roundings = static_cast<double>(d + shape[0] + shape[1] + h + 2);
  return roundings * std::numeric_limits<double>::epsilon() * magnitude;
}

// The request's cost, refused before any work when it passes a limit. Only an input of rank three and the
// layer's width whose output fits the element cap is costed; any other input is refused by the layer's own
// checks at no cost, so their messages come first. B·d·h (the products the weight gradient sums, and once
// the [B, d, h] intermediate it built) is checked against the element cap here, as the documented limit on
// the batch, because backward cannot report an error once it runs.
Result<EvidenceCost, LessonError> evidence_cost_of(const ProjectionRequest& request,
                                                   const QkvProjections& layer, EvidenceParts parts) {
  const Shape& shape = request.input.shape();
  if (shape.size() != 3 || shape[2] != layer.model_width()) return EvidenceCost{};
  // An output over the element cap is likewise refused by the layer before it computes anything.
  if (!element_count({shape[0], shape[1], layer.head_width()})) return EvidenceCost{};
  const bool backward = request.upstream.has_value();
  const EvidenceCost cost =
      evidence_cost(static_cast<double>(shape[0]), static_cast<double>(shape[1]),
                    static_cast<double>(shape[2]), static_cast<double>(layer.head_width()), backward,
                    parts.gradcheck ? kGradcheckSamplesPerTensor : 0, parts.scores);
  if (parts.scores) {
    auto scores = element_count({shape[0], shape[1], shape[1]});
    if (!scores) return fail(lesson_error(scores.error(), kInputKey));
  }
  if (backward) {
    auto rows = element_count({shape[0], layer.model_width(), layer.head_width()});
    if (!rows) return fail(lesson_error(rows.error(), kInputKey));
  }
  if (cost.total() > kMaxEvidenceOperations)
    return fail(LessonError{ErrorKind::Budget,
                            BudgetError{"evidence request", cost.total(), kMaxEvidenceOperations}.message(),
                            ""});
  return cost;
}

}  // namespace

Result<TensorValue, TensorError> upstream_objective(const QkvOutputs& outputs, const Upstreams& upstream) {
  TensorValue terms[3] = {outputs.query, outputs.key, outputs.value};
  const Tensor* upstreams[3] = {&upstream.query, &upstream.key, &upstream.value};
  for (int i = 0; i < 3; ++i) {
    auto constant = TensorValue::constant(*upstreams[i]);
    if (!constant) return fail(constant.error());
    auto term = inner_product(terms[i], *constant);
    if (!term) return fail(term.error());
    terms[i] = std::move(*term);
  }
  auto query_plus_key = add(terms[0], terms[1]);
  if (!query_plus_key) return query_plus_key;
  return add(*query_plus_key, terms[2]);
}

// Which tensor of the request each step substitutes, its analytic gradient and its count in the summary, in
// the order the steps take them.
struct ProjectionGradcheck::Probe {
  Tensor ProjectionRequest::*tensor;
  Tensor ProjectionGradients::*analytic;
  std::size_t GradcheckSummary::*checks;
  const char* name;
};
const ProjectionGradcheck::Probe ProjectionGradcheck::kProbes[kSteps] = {
    {&ProjectionRequest::input, &ProjectionGradients::input, &GradcheckSummary::input_checks, "input"},
    {&ProjectionRequest::query_weight, &ProjectionGradients::query_weight, &GradcheckSummary::query_checks,
     "query weight"},
    {&ProjectionRequest::key_weight, &ProjectionGradients::key_weight, &GradcheckSummary::key_checks,
     "key weight"},
    {&ProjectionRequest::value_weight, &ProjectionGradients::value_weight, &GradcheckSummary::value_checks,
     "value weight"},
};

ProjectionGradcheck::ProjectionGradcheck(ProjectionRequest request, ProjectionGradients gradients,
                                         std::size_t samples_per_tensor)
    : request_(std::move(request)), gradients_(std::move(gradients)), samples_(samples_per_tensor) {
  summary_.tolerance = GradcheckOptions{}.tolerance;
  summary_.passed = true;
  options_.objective_error = loss_rounding_bound(request_);
  summary_.loss_rounding_bound = options_.objective_error;
}

const GradcheckSummary& ProjectionGradcheck::finish() {
  while (!done()) check_next();
  return summary_;
}

bool ProjectionGradcheck::done() const { return next_ == kSteps || !summary_.problem.empty(); }

void ProjectionGradcheck::check_next() {
  if (done()) return;
  const Probe& probe = kProbes[next_++];
  ProjectionRequest trial = request_;
  const Objective objective = [&trial, &probe](const Tensor& point) {
    trial.*probe.tensor = point;
    return objective_at(trial);
  };
  const Tensor& point = request_.*probe.tensor;
  auto report =
      gradcheck(point, gradients_.*probe.analytic, objective, std::min(point.size(), samples_), options_);
  if (!report) {
    summary_.passed = false;
    summary_.problem = std::string(probe.name) + ": " + report.error().message();
    return;
  }
  summary_.*probe.checks = report->checks;
  summary_.checks += report->checks;
  summary_.unjudged += report->unjudged;
  summary_.max_allowance = std::max(summary_.max_allowance, report->max_allowance);
  summary_.max_error = std::max(summary_.max_error, report->max_error);
  summary_.passed = summary_.passed && report->passed;
  // Nothing judged proves nothing: at such a scale the check cannot pass.
  if (next_ == kSteps && summary_.checks == 0) summary_.passed = false;
}

Result<ProjectionGradcheck, LessonError> ProjectionGradcheck::start(const ProjectionRequest& request,
                                                                    const ProjectionGradients& gradients) {
  auto layer = projections_from_weights(request.query_weight, request.key_weight, request.value_weight);
  if (!layer) return fail(layer.error());
  auto cost = evidence_cost_of(request, *layer, EvidenceParts{});
  if (!cost) return fail(cost.error());
  return ProjectionGradcheck(request, gradients, cost->samples_per_tensor);
}

namespace {
std::atomic<std::uint64_t> evidence_runs{0};
}  // namespace

std::uint64_t projection_evidence_runs() { return evidence_runs.load(); }

Result<ProjectionEvidence, LessonError> compute_projection_evidence(const ProjectionRequest& request,
                                                                    EvidenceParts parts) {
  ++evidence_runs;
  auto layer = projections_from_weights(request.query_weight, request.key_weight, request.value_weight);
  if (!layer) return fail(layer.error());
  auto cost = evidence_cost_of(request, *layer, parts);
  if (!cost) return fail(cost.error());
  // X is a parameter only when a gradient for it is wanted.
  auto input =
      request.upstream ? TensorValue::parameter(request.input) : TensorValue::constant(request.input);
  if (!input) return fail(lesson_error(input.error(), kInputKey));
  auto outputs = layer->forward(*input);
  if (!outputs) return fail(lesson_error(outputs.error(), kInputKey));

  ProjectionEvidence evidence;
  for (const NamedParameter& parameter : layer->parameters())
    evidence.parameter_names.push_back(parameter.name());
  evidence.parameter_count = layer->parameter_count();
  evidence.query = outputs->query.value();
  evidence.key = outputs->key.value();
  evidence.value = outputs->value.value();
  if (parts.scores) {
    // scores[b,i,j] = Σ_k Q[b,i,k]·K[b,j,k]: Q [B, T, h] times Kᵀ [B, h, T], each sum from +0.0 upwards in k.
    auto keys = transpose_last(evidence.key);
    if (!keys) return fail(lesson_error(keys.error(), kInputKey));
    auto scores = matmul(evidence.query, *keys);
    if (!scores) return fail(lesson_error(scores.error(), kInputKey));
    evidence.scores = std::move(*scores);
  }
  if (!request.upstream) return evidence;

  auto upstream = check_upstreams(*request.upstream, *outputs);
  if (!upstream) return fail(upstream.error());
  auto loss = upstream_objective(*outputs, *upstream);
  if (!loss) return fail(lesson_error(loss.error()));
  auto backward = loss->backward();
  if (!backward) return fail(lesson_error(backward.error()));

  ProjectionGradients gradients;
  gradients.loss = loss->value()[0];
  gradients.input = *input->gradient();
  gradients.query_weight = *layer->query().weight().value().gradient();
  gradients.key_weight = *layer->key().weight().value().gradient();
  gradients.value_weight = *layer->value().weight().value().gradient();
  if (parts.gradcheck)
    evidence.gradcheck = ProjectionGradcheck(request, gradients, cost->samples_per_tensor).finish();
  evidence.gradients = std::move(gradients);
  return evidence;
}

}  // namespace qkv
