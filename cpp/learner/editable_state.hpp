// The lesson as the learner edits it: sizes and cells as typed text, conformed to the sizes, read with the
// one answer reader, and turned into chapter 26's evidence, or into one error that names the field and
// cell it is about. Nothing typed is lost: cells outside smaller sizes are kept and come back when the
// sizes grow again, and numbers a link could not use are reported, not silently replaced.
#pragma once

#include <optional>

#include "chapter26/chapter26.hpp"

namespace qkv {

// What each size of the editable diagram accepts: every table stays readable on a phone, and the layer
// refuses widths of 0.
struct SizeLimit {
  const char* field;
  Extent min, max;
};
inline constexpr SizeLimit kSizeLimits[] = {
    {"batch", 0, 8}, {"tokens", 0, 8}, {"model_width", 1, 8}, {"head_width", 1, 8}};

// The page's name for a field of the lesson's state: "Batch B", "X", "W_Q", "U_K", ... (any other field
// is called by its own name).
std::string field_label(const std::string& field);

struct EditableCells {
  Shape shape;                     // empty when read from a link: the sizes decide it
  std::vector<std::string> cells;  // row-major, as typed
};

struct EditableTensor {
  Shape shape;
  std::vector<std::string> cells;  // row-major, as typed
  // Every cell typed at any size since the last reset, on the union of those shapes, so that shrinking a
  // size to 0 and growing it back restores the numbers.
  EditableCells kept;
};

struct LessonState {
  std::string batch, tokens, model_width, head_width;
  EditableTensor input, query_weight, key_weight, value_weight;
  EditableTensor query_upstream, key_upstream, value_upstream;
};

// The same text in every field and cell (provenance finds the numbers it was shown by state).
inline bool operator==(const EditableCells& a, const EditableCells& b) {
  return a.shape == b.shape && a.cells == b.cells;
}
inline bool operator==(const EditableTensor& a, const EditableTensor& b) {
  return a.shape == b.shape && a.cells == b.cells && a.kept == b.kept;
}
inline bool operator==(const LessonState& a, const LessonState& b) {
  return a.batch == b.batch && a.tokens == b.tokens && a.model_width == b.model_width &&
         a.head_width == b.head_width && a.input == b.input && a.query_weight == b.query_weight &&
         a.key_weight == b.key_weight && a.value_weight == b.value_weight &&
         a.query_upstream == b.query_upstream && a.key_upstream == b.key_upstream &&
         a.value_upstream == b.value_upstream;
}

struct LessonEvaluation {
  LessonState state;  // the cells conformed to the sizes
  std::optional<ChapterEvidence> evidence;
  std::optional<LessonError> error;
  std::vector<std::string> notes;  // what was used instead of values that did not fit (from a link)
};

// The state read and checked, as a request, without computing anything (provenance computes only the
// parts it needs); the same validation, in the same order, as evaluate_lesson.
struct LessonRequest {
  LessonState state;  // the cells conformed to the sizes
  std::optional<ProjectionRequest> request;
  std::optional<LessonError> error;
  std::vector<std::string> notes;
};
LessonRequest read_lesson_request(const LessonState& state);

// A request's numbers as the page edits them, every cell written as the shortest decimal that reads back
// to the same double (the request must have its upstreams, and a rank-3 input and rank-2 weights).
LessonState state_of(const ProjectionRequest& request);
// The frozen fixture's state_of.
LessonState fixture_state();
// gradcheck and bitwise: as compute_chapter_evidence takes them.
LessonEvaluation evaluate_lesson(const LessonState& state, bool gradcheck = true, bool bitwise = true);

}  // namespace qkv
