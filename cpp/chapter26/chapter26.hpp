// Chapter 26's evidence: everything the report, the trace and the diagram show, computed for any valid
// input, weights and upstreams (the frozen fixture is one such request).
#pragma once

#include <cstdint>

#include "chapter26/projection_evidence.hpp"

namespace qkv {

// Output shapes of one forward probe on a constant input of shape `input`.
struct ShapeProbe {
  Shape input;
  Shape query, key, value;
};

// A deliberately bad construction or input: the layer's message, and whether it was exactly the expected
// variant with the expected fields.
struct RejectionProbe {
  std::string message;
  bool expected_variant = false;
};

// Seed-26 initialisation at the request's widths.
struct InitializationEvidence {
  std::uint64_t seed = 26;
  bool reproducible = false;   // two layers from the same seed: same values, same final state
  bool independent = false;    // three distinct nodes with pairwise different values
  bool transactional = false;  // a rejected create(prefix, d, 0) leaves the generator at the seed
  std::uint64_t state_after = 0;
};

// Where attention's inputs come from, before and after self-attention (a retrospective analogy).
struct HistoryEvidence {
  const char* earlier_left = "decoder-state";
  const char* earlier_right = "encoder-annotations";
  const char* transformer_source = "one-sequence";
  const char* mapping = "retrospective";
};

// The implementers' checks of one computation, each by comparing bit patterns with the computation itself.
struct BitwiseChecks {
  // W_Q[0,0] + 1 with everything else the same: did Q change, and are K and V bit for bit the same?
  bool query_changed = false, key_unchanged = false, value_unchanged = false;
  // U_K has no cell to change (an empty batch or token axis): the four verdicts below are then all false.
  bool key_upstream_empty = false;
  // U_K[0] + 1 with everything else the same, backward run again: which gradients changed, bit for bit?
  bool key_gradient_changed = false, query_gradient_unchanged = false, value_gradient_unchanged = false,
       input_gradient_changed = false;
  bool replay_bitwise = false;  // the primary computation twice, compared by bit pattern
};

struct ChapterEvidence {
  ProjectionRequest request;   // with upstreams
  ProjectionEvidence primary;  // forward, the query–key scores, gradients, gradcheck
  Extent model_width = 0, head_width = 0;
  ShapeProbe batch;               // X twice along the batch axis
  ShapeProbe empty_batch;         // [0, T, d]
  ShapeProbe empty_token;         // [2B, 0, d]
  ShapeProbe report_empty_token;  // [B, 0, d]
  RejectionProbe rank;            // input [T, d]
  RejectionProbe width;           // input [B, T, d+1]
  RejectionProbe model_mismatch;  // key weight [d+1, h]
  RejectionProbe head_mismatch;   // key weight [d, h+1]
  RejectionProbe duplicate_name;  // query and key both named "same"
  InitializationEvidence initialization;
  HistoryEvidence history;
  std::optional<BitwiseChecks> bitwise;  // left out when asked to (a caller that checks later: check_bitwise)
};

// The frozen fixture: X [1,2,3], the three [3,2] weights and the three [1,2,2] upstreams.
ProjectionRequest chapter_fixture();

// The word the chapter's fixture story gives token position `position` ("fresh bread"): "fresh" for 0,
// "bread" for 1, "token N" for any further position N. The one place these words live.
std::string token_name(Extent position);
// token_name for positions 0 to tokens - 1.
std::vector<std::string> token_names(Extent tokens);

// Without `gradcheck`, primary.gradcheck is left out: it is most of the work (two forward passes per number
// probed); without `bitwise`, the bitwise checks (two and a half computations more). The page asks for both
// on their own once the numbers are on screen (api::numerical_checks_step).
Result<ChapterEvidence, LessonError> compute_chapter_evidence(const ProjectionRequest& request,
                                                              bool gradcheck = true, bool bitwise = true);

// The bitwise checks of `primary`, the computation compute_projection_evidence made for `request` (with
// scores and gradients): the same computation again, W_Q[0,0] + 1, and U_K[0] + 1 with backward.
Result<BitwiseChecks, LessonError> check_bitwise(const ProjectionRequest& request,
                                                 const ProjectionEvidence& primary);

// The course's report (28 lines) and diagram trace (17 records), byte for byte.
std::string render_report(const ChapterEvidence& evidence);
std::string render_trace(const ChapterEvidence& evidence);

// Bit patterns equal, shape included (so -0.0 differs from +0.0, and NaN equals itself).
bool same_bits(const Tensor& left, const Tensor& right);

}  // namespace qkv
