// The run of drawn problems right in a row: only a problem's first check counts, a wrong one ends the run.
#include "learner/practice_streak.hpp"

#include <gtest/gtest.h>

#include <string>

namespace qkv {
namespace {

TEST(PracticeStreak, AProblemsFirstCheckExtendsOrEndsTheRun) {
  PracticeStreak streak;
  streak = after_check(streak, "11", true);
  streak = after_check(streak, "12", true);
  EXPECT_EQ(streak.run, 2u);
  streak = after_check(streak, "13", false);
  EXPECT_EQ(streak.run, 0u);
  streak = after_check(streak, "13", true);  // right on a second try: not in a row
  EXPECT_EQ(streak.run, 0u);
  for (const char* seed : {"14", "15", "16"}) streak = after_check(streak, seed, true);
  EXPECT_EQ(streak.run, 3u);
  streak = after_check(streak, "16", false);  // a later wrong check of a counted problem changes nothing
  EXPECT_EQ(streak.run, 3u);
  EXPECT_EQ(after_check(streak, "", false).run, 3u);  // not a drawn problem
}

TEST(PracticeStreak, ThreeInARowIsHavingIt) {
  EXPECT_FALSE(has_it(2));
  EXPECT_TRUE(has_it(3));
  EXPECT_EQ(practice_streak_text(0), "");
  EXPECT_EQ(practice_streak_text(2), "Drawn problems right in a row: 2 (3 shows you have it).");
  EXPECT_EQ(practice_streak_text(4), "4 drawn problems right in a row: you have it.");
}

TEST(PracticeStreak, TheOldestCheckedProblemIsForgottenPastTheLimit) {
  PracticeStreak streak;
  for (std::size_t seed = 0; seed <= kMaxPracticeChecked; ++seed)
    streak = after_check(streak, std::to_string(seed), true);
  EXPECT_EQ(streak.checked.size(), kMaxPracticeChecked);
  EXPECT_EQ(streak.checked.front(), "1");
  EXPECT_EQ(streak.run, kMaxPracticeChecked + 1);
}

}  // namespace
}  // namespace qkv
