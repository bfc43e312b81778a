// What a course records of a whole lesson: how many of the questions shown count as right, whether the
// learner has finished, and whether that passes. The rules, once (docs/grading.md says them in words):
// - right: the question's last check counts as a success (counts_as_success in exercise.hpp);
// - settled: the question has been checked, or its answer was shown;
// - score: right ÷ shown; completed: every question shown is settled; passed: completed and the score reaches
//   the passing fraction.
#pragma once

#include <cstddef>
#include <vector>

#include "support/lesson_error.hpp"
#include "support/result.hpp"

namespace qkv {

// The courses' default passing fraction (the SCORM packages declare it as 80 / 0.8).
inline constexpr double kDefaultPassingFraction = 0.8;

// One question shown, as the lesson kept it.
struct QuestionStanding {
  bool checked = false;   // checked at least once
  bool counts = false;    // its last check counts as a success
  bool revealed = false;  // its answer was shown (by the learner's request or by the lesson)
};

struct Mastery {
  std::size_t shown = 0, right = 0, settled = 0;
  double scaled = 0;   // right ÷ shown, 0 when nothing is shown
  double percent = 0;  // 100 × scaled to two decimals, as LMSs grade a raw score out of 100
  bool completed = false;
  bool passed = false;  // completed and scaled ≥ the passing fraction
};

// Refuses (kind "arguments") a passing fraction outside [0, 1] or not a number.
Result<Mastery, LessonError> mastery(const std::vector<QuestionStanding>& shown, double passing);

}  // namespace qkv
