// Projection evidence: the forward views, the reverse-mode gradients and a gradcheck for any input and
// weights. The command line, the WebAssembly module and the chapter report all compute through here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "attention/qkv.hpp"
#include "autograd/gradcheck.hpp"
#include "support/lesson_error.hpp"

namespace qkv {

// Gradcheck costs three forward passes per checked coordinate. Up to this many coordinates per tensor are
// checked (every one for the chapter's fixture, 6 each); beyond it, this many spread evenly over the tensor,
// and fewer (at least one) when that many would pass kMaxGradcheckOperations (chapter26/evidence_cost.hpp).
inline constexpr std::size_t kGradcheckSamplesPerTensor = 32;

// Names the chapter gives its three weights.
inline constexpr const char* kParameterPrefix = "decoder.block.0.attention";

struct Upstreams {
  Tensor query;  // each [B, T, d_head]: the gradient flowing into Q, K, V from later layers
  Tensor key;
  Tensor value;
};

struct ProjectionRequest {
  Tensor input;  // [B, T, d_model]
  Tensor query_weight;
  Tensor key_weight;
  Tensor value_weight;
  std::optional<Upstreams> upstream;  // absent: forward only
};

struct GradcheckSummary {
  bool passed = false;
  std::size_t checks = 0;      // judged, over X, W_Q, W_K, W_V together
  std::size_t unjudged = 0;    // probed, but rounding in L could hide any error there (gradcheck.hpp)
  double max_allowance = 0.0;  // the largest τ + r a judged number had
  std::size_t input_checks = 0, query_checks = 0, key_checks = 0, value_checks = 0;
  double max_error = 0.0;
  double tolerance = 0.0;
  double loss_rounding_bound = 0.0;  // the bound on L's rounding error behind the pass rule's allowance
  std::string problem;               // why it could not run, when it could not (then passed is false)
};

struct ProjectionGradients {
  double loss = 0.0;  // L = Σ Q⊙U_Q + Σ K⊙U_K + Σ V⊙U_V
  Tensor input;
  Tensor query_weight;
  Tensor key_weight;
  Tensor value_weight;
};

struct ProjectionEvidence {
  std::vector<std::string> parameter_names;
  Extent parameter_count = 0;
  Tensor query;
  Tensor key;
  Tensor value;
  // [B, T, T] when asked for: scores[b,i,j] = q_{b,i}·k_{b,j} over d_head (raw dot products, not scaled
  // by 1/√d_head, no softmax); otherwise left at its default.
  Tensor scores;
  std::optional<ProjectionGradients> gradients;
  std::optional<GradcheckSummary> gradcheck;
};

LessonError lesson_error(const TensorError& error, std::string field = "");
LessonError lesson_error(const InitializationError& error, std::string field = "");
LessonError lesson_error(const QkvError& error, std::string field = "");

// Builds the chapter's layer from three weights (names "<prefix>.query.weight", ...).
Result<QkvProjections, LessonError> projections_from_weights(const Tensor& query_weight,
                                                             const Tensor& key_weight,
                                                             const Tensor& value_weight);
// L for given outputs and upstreams; each product reduced by repeated sum_axis(0), added (q + k) + v.
Result<TensorValue, TensorError> upstream_objective(const QkvOutputs& outputs, const Upstreams& upstream);

// What compute_projection_evidence computes beyond the forward pass (and, with upstreams, backward).
struct EvidenceParts {
  bool gradcheck = true;  // with upstreams: a gradcheck of X, W_Q, W_K and W_V
  bool scores = false;    // the query–key scores Q Kᵀ per batch item (the chapter's look-ahead)
};

// Forward always; with upstreams also backward and (parts.gradcheck) a gradcheck. A request whose cost
// passes kMaxEvidenceOperations is refused with kind "budget" before any of it runs.
Result<ProjectionEvidence, LessonError> compute_projection_evidence(const ProjectionRequest& request,
                                                                    EvidenceParts parts = {});

// The gradcheck of X, W_Q, W_K and W_V, one tensor at a time: compute_projection_evidence's own, and the
// check of gradients it computed without one, which a caller that kept them runs once it has time (no second
// forward and backward), spread over the page's idle moments if it likes: check_next() until done(), or
// finish(). A step's work is a quarter of the whole at most (each tensor's probes are capped alike).
class ProjectionGradcheck {
 public:
  // The checks of gradients compute_projection_evidence computed for `request`, with its samples and limits,
  // hence its summary; the request and the gradients are copied, so the caller need not keep them.
  static Result<ProjectionGradcheck, LessonError> start(const ProjectionRequest& request,
                                                        const ProjectionGradients& gradients);
  bool done() const;  // every tensor checked, or one could not be (summary().problem)
  void check_next();  // the next tensor's probes; nothing once done
  const GradcheckSummary& summary() const { return summary_; }
  const GradcheckSummary& finish();  // the tensors left, then the summary
  // With the samples per tensor already costed (compute_projection_evidence's own gradcheck).
  ProjectionGradcheck(ProjectionRequest request, ProjectionGradients gradients,
                      std::size_t samples_per_tensor);

 private:
  struct Probe;
  static constexpr std::size_t kSteps = 4;
  static const Probe kProbes[kSteps];
  ProjectionRequest request_;
  ProjectionGradients gradients_;
  std::size_t samples_;
  GradcheckOptions options_;
  GradcheckSummary summary_;
  std::size_t next_ = 0;
};

// How many times compute_projection_evidence has run in this process: the tests' way to see that a caller
// reused numbers it had instead of computing them again.
std::uint64_t projection_evidence_runs();

}  // namespace qkv
