#include "support/lesson_error.hpp"

namespace qkv {

const char* kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Tensor:
      return "tensor";
    case ErrorKind::Initialization:
      return "initialization";
    case ErrorKind::Qkv:
      return "qkv";
    case ErrorKind::Upstream:
      return "upstream";
    case ErrorKind::Size:
      return "size";
    case ErrorKind::Number:
      return "number";
    case ErrorKind::Exercise:
      return "exercise";
    case ErrorKind::Arguments:
      return "arguments";
    case ErrorKind::SelfScore:
      return "self_score";
    case ErrorKind::Budget:
      return "budget";
    case ErrorKind::Allocation:
      return "allocation";
    case ErrorKind::Io:
      return "io";
    case ErrorKind::Internal:
      return "internal";
  }
  return "internal";
}

std::string field_label(const std::string& field) {
  static const std::pair<const char*, const char*> labels[] = {
      {"batch", "Batch B"},
      {"tokens", "Tokens T"},
      {"model_width", "Model width d_model"},
      {"head_width", "Head width d_head"},
      {"input", "X"},
      {"query_weight", "W_Q"},
      {"key_weight", "W_K"},
      {"value_weight", "W_V"},
      {"query_upstream", "U_Q"},
      {"key_upstream", "U_K"},
      {"value_upstream", "U_V"},
      {"seed", "the seed"},
      {"dim", "the width d"},
      {"count", "the number of seeds"},
      {"start", "the first seed"},
  };
  for (const auto& [name, label] : labels)
    if (field == name) return label;
  return field;
}

std::string LessonError::sentence() const {
  const std::string where = field.empty() ? "" : field_label(field);
  switch (kind) {
    case ErrorKind::Number:
      if (index >= 0)
        return "Cell " + std::to_string(index + 1) + " of " + where + " could not be read as a number.";
      return (where.empty() ? "An entry" : where) + " could not be read as a number.";
    case ErrorKind::Size:
      return where + " is outside the sizes this lesson accepts.";
    case ErrorKind::Tensor:
    case ErrorKind::Initialization:
    case ErrorKind::Qkv:
    case ErrorKind::Upstream:
      return "The layer refused these numbers" + (where.empty() ? "" : " (" + where + ")") + ".";
    case ErrorKind::Exercise:
      return "This answer could not be checked.";
    case ErrorKind::Arguments:
      return "The page sent the lesson a request it could not use; please report it.";
    case ErrorKind::SelfScore:
      return "The experiment did not run with " + (where.empty() ? "these settings" : where) + ".";
    case ErrorKind::Budget:
      return "This is more work than the lesson allows at once; try smaller sizes.";
    case ErrorKind::Allocation:
      return "There was not enough memory for these sizes; try smaller ones.";
    case ErrorKind::Io:
      return "A file or stream could not be read or written.";
    case ErrorKind::Internal:
      return "Something went wrong inside the lesson; please report it.";
  }
  return "Something went wrong inside the lesson; please report it.";
}

}  // namespace qkv
