// The run of drawn problems right in a row ("Another one", issue 40): a grading rule, so it lives here and
// the page shows what it returns. A drawn problem's first check extends the run when it is right and ends it
// when it is wrong; later checks of the same problem change nothing (trying again until right is not "in a
// row").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace qkv {

// Three in a row, as practice systems (Khan Academy's "got it" streaks) take for having it.
inline constexpr std::size_t kPracticeStreakEnough = 3;
// Drawn problems remembered as checked; the oldest is forgotten past this (a learner checks a handful).
inline constexpr std::size_t kMaxPracticeChecked = 1000;

struct PracticeStreak {
  std::size_t run = 0;               // problems right in a row
  std::vector<std::string> checked;  // the seeds of the drawn problems already checked, oldest first
};

// The streak after a check of the drawn problem `seed` (empty: not a drawn problem, nothing changes).
PracticeStreak after_check(PracticeStreak streak, const std::string& seed, bool right);
bool has_it(std::size_t run);
// What the page says of a run: nothing for 0, the count and the goal below it, "you have it" from it on.
std::string practice_streak_text(std::size_t run);

}  // namespace qkv
