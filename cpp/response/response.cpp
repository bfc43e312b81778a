#include "response/response.hpp"

namespace qkv::api {

std::string sentence(const LessonError& error, const std::string& where) {
  switch (error.kind) {
    case ErrorKind::Number:
      if (error.index >= 0)
        return "Cell " + std::to_string(error.index + 1) + " of " + where + " could not be read as a number.";
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
    case ErrorKind::Attempts:
      return "No checks are left for this question.";
    case ErrorKind::Allocation:
      return "There was not enough memory for these sizes; try smaller ones.";
    case ErrorKind::Io:
      return "A file or stream could not be read or written.";
    case ErrorKind::Interrupted:
      return "The computation was stopped before it finished.";
    case ErrorKind::Internal:
      return "Something went wrong inside the lesson; please report it.";
  }
  return "Something went wrong inside the lesson; please report it.";
}

ErrorView error_view(const LessonError& error, FieldLabel label) {
  const std::string where = error.field.empty() ? "" : label ? label(error.field) : error.field;
  return {kind_name(error.kind), error.message, error.field, error.index, sentence(error, where)};
}

}  // namespace qkv::api
