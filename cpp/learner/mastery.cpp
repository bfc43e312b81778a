#include "learner/mastery.hpp"

#include <cmath>

namespace qkv {

Result<Mastery, LessonError> mastery(const std::vector<QuestionStanding>& shown, double passing) {
  if (!(passing >= 0.0 && passing <= 1.0))
    return fail(LessonError{ErrorKind::Arguments, "the passing fraction must be from 0 to 1", "passing"});
  Mastery out;
  out.shown = shown.size();
  for (const QuestionStanding& question : shown) {
    if (question.checked && question.counts) ++out.right;
    if (question.checked || question.revealed) ++out.settled;
  }
  if (out.shown > 0) {
    out.scaled = static_cast<double>(out.right) / static_cast<double>(out.shown);
    out.percent =
        std::round(10000.0 * static_cast<double>(out.right) / static_cast<double>(out.shown)) / 100.0;
  }
  out.completed = out.shown > 0 && out.settled == out.shown;
  out.passed = out.completed && out.scaled >= passing;
  return out;
}

}  // namespace qkv
