// The calls the front ends make: typed text in, {ok, ...} or {ok: false, error} out, with the field and a
// sentence for the learner; nothing read or rounded outside this layer.
#include "api/lesson_api.hpp"

#include <gtest/gtest.h>

namespace qkv::api {
namespace {

TEST(LessonApi, FixtureHasTheSizeLimitsTheLegendStates) {
  const FixtureResponse out = fixture();
  ASSERT_EQ(out.size_limits.size(), 4u);
  EXPECT_EQ(out.size_limits[0].field, "batch");
  EXPECT_EQ(out.size_limits[0].min, 0u);
  EXPECT_EQ(out.size_limits[2].field, "model_width");
  EXPECT_EQ(out.size_limits[2].min, 1u);
  EXPECT_EQ(out.size_limits[3].max, 8u);
}

TEST(LessonApi, EvaluateReturnsEvidenceOrATypedError) {
  LessonResponse ok = evaluate(fixture().state);
  ASSERT_TRUE(ok.ok);
  EXPECT_EQ(ok.evidence->query.text, (std::vector<std::string>{"0", "3", "2", "-1"}));
  EXPECT_EQ(ok.evidence->query.shape_text, "[1, 2, 2]");
  EXPECT_EQ(ok.evidence->initialization_state_after, "0x1fe68f0af33cb994");
  LessonState bad = fixture().state;
  bad.batch = "x";
  const LessonResponse refused = evaluate(bad);
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error->kind, "size");
  EXPECT_EQ(refused.error->field, "batch");
  EXPECT_EQ(refused.error->sentence, "Batch B is outside the sizes this lesson accepts.");
}

TEST(LessonApi, SelfScoreReadsTypedSettingsAndNamesTheFieldItRefuses) {
  const SelfScoreResponse ok = self_score({"1", "5", "8"});
  ASSERT_TRUE(ok.ok);
  EXPECT_EQ(ok.result->separate.diagonal_rows, (std::vector<std::size_t>{0, 3}));
  const SelfScoreResponse refused = self_score({"1", "513", "8"});
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error->field, "tokens");
  EXPECT_EQ(refused.error->kind, "self_score");
  EXPECT_EQ(self_score({"-1", "5", "8"}).error->field, "seed");
}

TEST(LessonApi, SeedSearchStartsWhereAskedAndWraps) {
  const SeedSearchResponse first = find_seed({"none", "", "1000", "5", "8"});
  ASSERT_TRUE(first.ok && first.found);
  const SeedSearchResponse next = find_seed({"none", std::to_string(first.seed), "1000", "5", "8"});
  ASSERT_TRUE(next.ok && next.found);
  EXPECT_GT(next.seed, first.seed);
  const SeedSearchResponse wrapped = find_seed({"none", "4294967295", "1000", "5", "8"});
  ASSERT_TRUE(wrapped.ok && wrapped.found);
  EXPECT_EQ(wrapped.seed, first.seed);  // after the last seed comes seed 0
  EXPECT_EQ(find_seed({"sideways", "", "1", "5", "8"}).error->field, "kind");
}

TEST(LessonApi, ExercisesAndAnswersComeFromOneRegistry) {
  const ExercisesResponse listed = exercises({"1", "5", "8"});
  ASSERT_TRUE(listed.ok);
  EXPECT_EQ(listed.exercises.size(), 17u);
  EXPECT_EQ(listed.exercises[3].id, "ch26-parameter-count");
  EXPECT_EQ(listed.exercises[3].kind, "count");
  EXPECT_EQ(listed.exercises[3].answer, (std::vector<std::string>{"18"}));
  const AnswerResponse right = check_answer({"ch26-parameter-count", {"1.8e1"}, {"1", "5", "8"}});
  ASSERT_TRUE(right.ok);
  EXPECT_TRUE(right.correct);
  EXPECT_EQ(right.read, (std::vector<std::string>{"18"}));
  const AnswerResponse unread = check_answer({"ch26-parameter-count", {"lots"}, {"1", "5", "8"}});
  ASSERT_FALSE(unread.ok);
  EXPECT_EQ(unread.error->kind, "number");
  EXPECT_EQ(check_answer({"no-such", {""}, {"1", "5", "8"}}).error->message, "unknown exercise \"no-such\"");
}

}  // namespace
}  // namespace qkv::api
