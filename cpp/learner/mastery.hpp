// What a course records of a whole lesson: how many of the questions that count are right, whether the
// learner has finished, and whether that passes. The rules, once (docs/grading.md says them in words):
// - right: the question's last check counts as a success (counts_as_success in exercise.hpp);
// - settled: the question has been checked, or its answer was shown;
// - counted: the questions the author grades (GradingOptions::graded; default every question shown); the
//   others are practice and never change the score, completed or passed;
// - attempts: with an allowance, a check past it is refused (check_allowed) and a question whose allowance
//   is used without a success is settled as not right;
// - score: right ÷ counted; completed: every counted question is settled; passed: completed and the score
//   reaches the passing fraction.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "support/lesson_error.hpp"
#include "support/result.hpp"

namespace qkv {

// The courses' default passing fraction (the SCORM packages declare it as 80 / 0.8).
inline constexpr double kDefaultPassingFraction = 0.8;
// The most checks an author may allow per question (0 is unlimited).
inline constexpr std::size_t kMaxAttemptsAllowed = 100;

// One question shown, as the lesson kept it.
struct QuestionStanding {
  bool checked = false;      // checked at least once
  bool counts = false;       // its last check counts as a success
  bool revealed = false;     // its answer was shown (by the learner's request or by the lesson)
  std::string id;            // the exercise's id (for GradingOptions::graded and the breakdown)
  std::size_t attempts = 0;  // checks made
};

// An author's options for a graded run.
struct GradingOptions {
  double passing = kDefaultPassingFraction;        // from 0 to 1
  std::size_t attempts_allowed = 0;                // checks per question; 0 is unlimited
  std::optional<std::vector<std::string>> graded;  // the ids that count; absent: every question shown
};

// One question in the results: what the learner sees of it at the end.
struct QuestionResult {
  std::string id;
  bool counted = false;          // graded (else practice)
  bool right = false;            // its last check counts as a success
  bool settled = false;          // checked, or its answer shown
  bool revealed = false;         // its answer was shown
  bool out_of_attempts = false;  // its allowance is used up without a success
  std::size_t attempts = 0;      // checks made
  std::string standing;          // the results view's words for it ("Right", "Not right: no checks left"…)
  std::string checks_note;       // said beside its form when it is out of attempts ("" otherwise)
};

struct Mastery {
  std::size_t shown = 0, counted = 0, right = 0, settled = 0;  // right and settled: of the counted
  double scaled = 0;                                           // right ÷ counted, 0 when nothing counts
  double percent = 0;  // 100 × scaled to two decimals, as LMSs grade a raw score out of 100
  bool completed = false;
  bool passed = false;                    // completed and scaled ≥ the passing fraction
  std::vector<QuestionResult> questions;  // one per question shown, in the order given
};

// Refuses (kind "arguments") a passing fraction outside [0, 1] or not a number, an allowance over
// kMaxAttemptsAllowed, and a graded id that is not among the questions shown (the message names it).
Result<Mastery, LessonError> mastery(const std::vector<QuestionStanding>& shown,
                                     const GradingOptions& options);
// The default options with this passing fraction.
Result<Mastery, LessonError> mastery(const std::vector<QuestionStanding>& shown, double passing);

// Whether question `id` counts (one of the graded ids; every question when they are absent), and the checks
// it allows: the attempts limit applies only to questions that count, practice is unlimited (0).
bool counted(const std::string& id, const GradingOptions& options);
std::size_t attempts_allowed_for(const std::string& id, const GradingOptions& options);

// Whether one more check may be made after `used` checks: refused (kind "attempts") once an allowance
// (0: unlimited) is used up.
Result<bool, LessonError> check_allowed(std::size_t used, std::size_t allowed);

}  // namespace qkv
