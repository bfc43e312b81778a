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

// An author's options (GradingOptions): which questions count, attempts allowed per question.
QuestionStanding standing(const std::string& id, bool checked, bool counts, std::size_t attempts = 1) {
  QuestionStanding question;
  question.id = id;
  question.checked = checked;
  question.counts = counts;
  question.attempts = attempts;
  return question;
}

TEST(Mastery, QuestionsNotGradedArePracticeAndNeverChangeTheOutcome) {
  GradingOptions options;
  options.graded = std::vector<std::string>{"a", "b"};
  // "c" is wrong and "d" untouched: practice, so the run is complete and fully right.
  const std::vector<QuestionStanding> shown = {standing("a", true, true), standing("b", true, true),
                                               standing("c", true, false), standing("d", false, false, 0)};
  const auto outcome = mastery(shown, options);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->shown, 4u);
  EXPECT_EQ(outcome->counted, 2u);
  EXPECT_EQ(outcome->right, 2u);
  EXPECT_EQ(outcome->percent, 100.0);
  EXPECT_TRUE(outcome->completed);
  EXPECT_TRUE(outcome->passed);
  ASSERT_EQ(outcome->questions.size(), 4u);
  EXPECT_TRUE(outcome->questions[0].counted);
  EXPECT_FALSE(outcome->questions[2].counted);
  EXPECT_FALSE(outcome->questions[2].right);
  // Practice is never out of checks, however many it had under an allowance.
  options.attempts_allowed = 1;
  const auto allowed = mastery(shown, options);
  ASSERT_TRUE(allowed);
  EXPECT_FALSE(allowed->questions[2].out_of_attempts);
  // Without the option every question shown counts: the same standings neither complete nor pass.
  const auto every = mastery(shown, kDefaultPassingFraction);
  EXPECT_EQ(every->counted, 4u);
  EXPECT_FALSE(every->completed);
}

TEST(Mastery, AGradedIdThatIsNotShownIsRefusedByName) {
  GradingOptions options;
  options.graded = std::vector<std::string>{"a", "q-nowhere"};
  const auto refused = mastery({standing("a", true, true)}, options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::Arguments);
  EXPECT_EQ(refused.error().message, "graded question \"q-nowhere\" is not one of the questions shown");
}

TEST(Mastery, AnAllowanceUsedWithoutASuccessSettlesTheQuestionAsNotRight) {
  GradingOptions options;
  options.attempts_allowed = 2;
  const std::vector<QuestionStanding> shown = {standing("a", true, false, 2), standing("b", true, false, 1),
                                               standing("c", true, true, 2)};
  const auto outcome = mastery(shown, options);
  ASSERT_TRUE(outcome);
  EXPECT_TRUE(outcome->questions[0].out_of_attempts);
  EXPECT_FALSE(outcome->questions[0].right);
  EXPECT_FALSE(outcome->questions[1].out_of_attempts);  // one check left
  EXPECT_FALSE(outcome->questions[2].out_of_attempts);  // right with its last allowed check
  EXPECT_EQ(outcome->questions[0].attempts, 2u);
  // Unlimited (0): the same standings are never out of attempts.
  EXPECT_FALSE(mastery(shown, kDefaultPassingFraction)->questions[0].out_of_attempts);
  options.attempts_allowed = kMaxAttemptsAllowed + 1;
  ASSERT_FALSE(mastery(shown, options));
}

TEST(Mastery, EachResultIsSaidInTheCoresWordsAndOnlyAQuestionOutOfChecksGetsTheNote) {
  GradingOptions options;
  options.attempts_allowed = 2;
  QuestionStanding shown_answer = standing("d", false, false, 0);
  shown_answer.revealed = true;
  const std::vector<QuestionStanding> shown = {standing("a", true, true, 2), standing("b", true, false, 2),
                                               standing("c", true, false, 1), shown_answer,
                                               standing("e", false, false, 0)};
  const auto outcome = mastery(shown, options);
  ASSERT_TRUE(outcome);
  const std::vector<std::string> words = {"Right", "Not right: no checks left", "Not right",
                                          "Answer shown: not counted as right", "Not yet answered"};
  for (std::size_t i = 0; i < words.size(); ++i) EXPECT_EQ(outcome->questions[i].standing, words[i]) << i;
  EXPECT_EQ(
      outcome->questions[1].checks_note,
      "No checks are left (2 allowed for this question), so it is settled as not right. You may show the "
      "answer; it does not count.");
  for (std::size_t i : {0u, 2u, 3u, 4u}) EXPECT_EQ(outcome->questions[i].checks_note, "") << i;
}

TEST(Mastery, ACheckPastTheAllowanceIsRefusedWithItsOwnKind) {
  EXPECT_TRUE(check_allowed(0, 0));
  EXPECT_TRUE(check_allowed(1000, 0));  // 0 is unlimited
  EXPECT_TRUE(check_allowed(2, 3));
  const auto refused = check_allowed(3, 3);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::Attempts);
  EXPECT_EQ(refused.error().message, "no checks are left: 3 of 3 allowed are used");
}

}  // namespace
}  // namespace qkv
