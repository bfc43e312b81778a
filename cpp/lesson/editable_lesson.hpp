// The lesson as the learner edits it: sizes and cells as typed text, conformed to the sizes, parsed, and
// turned into chapter 26's evidence, or into one error that names the field it is about.
#pragma once

#include <optional>

#include "lesson/chapter26.hpp"

namespace qkv {

// Each size of the editable diagram is at most this, so that every table stays readable on a phone.
inline constexpr Extent kMaxEditableExtent = 8;

struct EditableTensor {
  Shape shape;
  std::vector<std::string> cells;  // row-major, as typed
};

struct LessonState {
  std::string batch, tokens, model_width, head_width;
  EditableTensor input, query_weight, key_weight, value_weight;
  EditableTensor query_upstream, key_upstream, value_upstream;
};

struct FieldError {
  std::string field;  // "batch", ..., "input", "query_weight", ..., "query_upstream", ...; "" for the layer
  std::int64_t index = -1;  // the cell, for a cell's error
  std::string kind;         // "size" | "number" | a LessonError kind
  std::string message;
};

struct LessonEvaluation {
  LessonState state;  // the cells reshaped to the sizes (kept where the old and new shapes overlap, else "0")
  std::optional<ChapterEvidence> evidence;
  std::optional<FieldError> error;
};

// The frozen fixture, every cell written as the shortest decimal that reads back to the same double.
LessonState fixture_state();
LessonEvaluation evaluate_lesson(const LessonState& state);

}  // namespace qkv
