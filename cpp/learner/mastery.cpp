#include "learner/mastery.hpp"

#include <algorithm>
#include <cmath>

#include "text/format.hpp"
#include "text/template.hpp"

namespace qkv {
namespace {

Result<bool, LessonError> options_refusal(const std::vector<QuestionStanding>& shown,
                                          const GradingOptions& options) {
  if (!(options.passing >= 0.0 && options.passing <= 1.0))
    return fail(LessonError{ErrorKind::Arguments, "the passing fraction must be from 0 to 1", "passing"});
  if (options.attempts_allowed > kMaxAttemptsAllowed)
    return fail(LessonError{ErrorKind::Arguments,
                            fill("the attempts allowed per question must be from 0 (unlimited) to {0}",
                                 {std::to_string(kMaxAttemptsAllowed)}),
                            "attempts"});
  if (!options.graded) return true;
  for (const std::string& id : *options.graded) {
    const bool known = std::any_of(shown.begin(), shown.end(),
                                   [&](const QuestionStanding& question) { return question.id == id; });
    if (!known)
      return fail(LessonError{
          ErrorKind::Arguments,
          fill("graded question \"{0}\" is not one of the questions shown", {shortened(id)}), "graded"});
  }
  return true;
}

// The words for a question's result, in this order: a success, an answer shown, checks used up, a check.
std::string standing_words(const QuestionResult& result) {
  if (result.right) return "Right";
  if (result.revealed) return "Answer shown: not counted as right";
  if (result.out_of_attempts) return "Not right: no checks left";
  if (result.attempts > 0) return "Not right";
  return "Not yet answered";
}

std::string checks_note(std::size_t allowed) {
  return fill(
      "No checks are left ({0} allowed for this question), so it is settled as not right. You may show "
      "the answer; it does not count.",
      {std::to_string(allowed)});
}

QuestionResult result_of(const QuestionStanding& question, const GradingOptions& options) {
  QuestionResult out;
  out.id = question.id;
  out.counted = counted(question.id, options);
  out.right = question.checked && question.counts;
  out.revealed = question.revealed;
  out.attempts = question.attempts;
  const std::size_t allowed = attempts_allowed_for(question.id, options);
  out.out_of_attempts = !out.right && allowed > 0 && question.attempts >= allowed;
  out.settled = question.checked || question.revealed || out.out_of_attempts;
  out.standing = standing_words(out);
  if (out.out_of_attempts) out.checks_note = checks_note(options.attempts_allowed);
  return out;
}

}  // namespace

Result<Mastery, LessonError> mastery(const std::vector<QuestionStanding>& shown,
                                     const GradingOptions& options) {
  if (auto refused = options_refusal(shown, options); !refused) return fail(refused.error());
  Mastery out;
  out.shown = shown.size();
  for (const QuestionStanding& question : shown) {
    out.questions.push_back(result_of(question, options));
    const QuestionResult& result = out.questions.back();
    if (!result.counted) continue;  // practice: never changes the score
    ++out.counted;
    if (result.right) ++out.right;
    if (result.settled) ++out.settled;
  }
  if (out.counted > 0) {
    out.scaled = static_cast<double>(out.right) / static_cast<double>(out.counted);
    out.percent =
        std::round(10000.0 * static_cast<double>(out.right) / static_cast<double>(out.counted)) / 100.0;
  }
  out.completed = out.counted > 0 && out.settled == out.counted;
  out.passed = out.completed && out.scaled >= options.passing;
  return out;
}

Result<Mastery, LessonError> mastery(const std::vector<QuestionStanding>& shown, double passing) {
  GradingOptions options;
  options.passing = passing;
  return mastery(shown, options);
}

bool counted(const std::string& id, const GradingOptions& options) {
  return !options.graded ||
         std::find(options.graded->begin(), options.graded->end(), id) != options.graded->end();
}

std::size_t attempts_allowed_for(const std::string& id, const GradingOptions& options) {
  return counted(id, options) ? options.attempts_allowed : 0;
}

Result<bool, LessonError> check_allowed(std::size_t used, std::size_t allowed) {
  if (allowed > 0 && used >= allowed)
    return fail(LessonError{ErrorKind::Attempts,
                            fill("no checks are left: {0} of {1} allowed are used",
                                 {std::to_string(used), std::to_string(allowed)}),
                            "attempts"});
  return true;
}

}  // namespace qkv
