#include "learner/practice_streak.hpp"

#include <algorithm>
#include <utility>

namespace qkv {

PracticeStreak after_check(PracticeStreak streak, const std::string& seed, bool right) {
  if (seed.empty() || std::find(streak.checked.begin(), streak.checked.end(), seed) != streak.checked.end())
    return streak;
  streak.checked.push_back(seed);
  if (streak.checked.size() > kMaxPracticeChecked) streak.checked.erase(streak.checked.begin());
  streak.run = right ? streak.run + 1 : 0;
  return streak;
}

bool has_it(std::size_t run) { return run >= kPracticeStreakEnough; }

std::string practice_streak_text(std::size_t run) {
  if (run == 0) return "";
  if (has_it(run)) return std::to_string(run) + " drawn problems right in a row: you have it.";
  return "Drawn problems right in a row: " + std::to_string(run) + " (" +
         std::to_string(kPracticeStreakEnough) + " shows you have it).";
}

}  // namespace qkv
