// The grading rules a course relies on: a shown answer never counts, and the lesson's outcome follows from
// each question's standing (learner/mastery.hpp).
#include "learner/mastery.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "learner/exercise.hpp"

namespace qkv {
namespace {

TEST(Grading, AMatchingCheckCountsOnlyWhenTheAnswerWasNotShownFirst) {
  EXPECT_TRUE(counts_as_success(true, false));
  EXPECT_FALSE(counts_as_success(true, true));
  EXPECT_FALSE(counts_as_success(false, false));
  EXPECT_FALSE(counts_as_success(false, true));
}

TEST(Mastery, RightIsALastCheckThatCountsAndSettledIsCheckedOrShown) {
  const std::vector<QuestionStanding> shown = {
      {true, true, false},   // right on its own
      {true, false, true},   // right after the answer was shown: settled, not right
      {false, false, true},  // answer shown, never checked: settled
      {false, false, false}  // untouched
  };
  const auto outcome = mastery(shown, kDefaultPassingFraction);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->shown, 4u);
  EXPECT_EQ(outcome->right, 1u);
  EXPECT_EQ(outcome->settled, 3u);
  EXPECT_EQ(outcome->scaled, 0.25);
  EXPECT_EQ(outcome->percent, 25.0);
  EXPECT_FALSE(outcome->completed);
  EXPECT_FALSE(outcome->passed);  // never passed before it is completed
}

TEST(Mastery, PassesWhenCompletedAndTheScoreReachesThePassingFraction) {
  // 18 of 19 right is 94.74 %, 17 of 19 is 89.47 % (the honest and dishonest scores).
  std::vector<QuestionStanding> shown(19, {true, true, false});
  shown[3] = {true, false, true};
  auto outcome = mastery(shown, 0.9);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->percent, 94.74);
  EXPECT_TRUE(outcome->completed);
  EXPECT_TRUE(outcome->passed);
  shown[4] = {true, false, false};  // a wrong last check
  outcome = mastery(shown, 0.9);
  EXPECT_EQ(outcome->percent, 89.47);
  EXPECT_FALSE(outcome->passed);
  EXPECT_TRUE(mastery(shown, 17.0 / 19.0)->passed);  // reaching the fraction is enough
}

TEST(Mastery, NothingShownIsNeitherCompletedNorPassedAndABadFractionIsRefused) {
  const auto none = mastery({}, 0.8);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->scaled, 0.0);
  EXPECT_FALSE(none->completed);
  for (double bad : {-0.01, 1.01, std::nan("")}) {
    const auto refused = mastery({{true, true, false}}, bad);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().message, "the passing fraction must be from 0 to 1");
  }
}

}  // namespace
}  // namespace qkv
