// The calls the front ends make: typed text in, {ok, ...} or {ok: false, error} out, with the field and a
// sentence for the learner; nothing read or rounded outside this layer.
#include "api/lesson_api.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "chapter26/score_changes.hpp"
#include "fixture.hpp"
#include "response/fields.hpp"
#include "text/format.hpp"

namespace qkv::api {
namespace {

// The rounding bound the fixture's gradcheck allows for (computed by the evidence, not by this test).
double fixture_evidence_bound() {
  return compute_chapter_evidence(chapter_fixture()).value().primary.gradcheck->loss_rounding_bound;
}

TEST(LessonApi, FixtureHasTheSizeLimitsTheLegendStates) {
  const FixtureResponse out = fixture();
  ASSERT_EQ(out.size_limits.size(), 4u);
  EXPECT_EQ(out.size_limits[0].field, "batch");
  EXPECT_EQ(out.size_limits[0].min, 0u);
  EXPECT_EQ(out.size_limits[2].field, "model_width");
  EXPECT_EQ(out.size_limits[2].min, 1u);
  EXPECT_EQ(out.size_limits[3].max, 8u);
}

TEST(LessonApi, FixtureBringsItsEvidenceAsEvaluateShowsIt) {
  const FixtureResponse out = fixture();
  const LessonResponse evaluated = evaluate({out.state});
  ASSERT_TRUE(evaluated.ok);
  EXPECT_EQ(out.evidence.query.text, evaluated.evidence->query.text);
  EXPECT_EQ(out.evidence.scores.values, evaluated.evidence->scores.values);
  EXPECT_EQ(out.evidence.input_gradient.text, evaluated.evidence->input_gradient.text);
  EXPECT_EQ(out.evidence.loss.text, evaluated.evidence->loss.text);
  EXPECT_EQ(out.evidence.initialization_state_after, evaluated.evidence->initialization_state_after);
}

// The sentence under the score figure is the one chapter26's own_token_peaks writes for the numbers shown
// (its words are tested in chapter26_test.cpp), and there is none when the token axis is empty.
TEST(LessonApi, EvidenceCarriesTheOwnTokenPeaksSentenceForTheNumbersShown) {
  const ChapterEvidence chapter = compute_chapter_evidence(chapter_fixture()).value();
  const auto peaks = own_token_peaks(chapter.request.input, chapter.primary.scores).value();
  ASSERT_TRUE(peaks.has_value());
  const LessonResponse shown = evaluate({fixture().state});
  ASSERT_TRUE(shown.ok);
  EXPECT_EQ(shown.evidence->own_token_peaks, peaks->sentence);
  LessonState empty = fixture().state;
  empty.tokens = "0";
  empty.input = {{1, 0, 3}, {}};
  empty.query_upstream = empty.key_upstream = empty.value_upstream = {{1, 0, 2}, {}};
  const LessonResponse none = evaluate({empty});
  ASSERT_TRUE(none.ok) << none.error->message;
  EXPECT_FALSE(none.evidence->own_token_peaks.has_value());
}

// The preview's output row written out from numpy's weights (fixtures/numpy/value_preview.json, four
// decimals) and the fixture's V: "w₀ · v₀ + w₁ · v₁".
TEST(LessonApi, ThePreviewWritesOutItsMixtureOfV) {
  const test::json numpy = test::json::parse(test::read_file(test::fixture_path("numpy/value_preview.json")));
  const test::json file = test::load_fixture();
  const test::json& value = file.at("expected").at("value");
  const std::size_t width = value.at("shape").back().get<std::size_t>();
  const auto weights = numpy.at("weights").get<std::vector<double>>();
  const auto entries = value.at("values").get<std::vector<double>>();
  std::string expected;
  for (std::size_t j = 0; j < weights.size(); ++j) {
    expected += (j > 0 ? " + " : "") + with_minus_sign(format_fixed(weights[j], 4)) + " · [";
    for (std::size_t c = 0; c < width; ++c)
      expected += (c > 0 ? ", " : "") + format_prose(entries[j * width + c]);
    expected += "]";
  }
  const LessonResponse shown = evaluate({fixture().state});
  ASSERT_TRUE(shown.ok && shown.evidence->value_preview);
  EXPECT_EQ(shown.evidence->value_preview->mixture_text, expected);
}

TEST(LessonApi, GradcheckStatesItsNumbersShortlyAndItsRulesAsApplied) {
  const ChecksResponse checks = numerical_checks(fixture().state);
  ASSERT_TRUE(checks.ok);
  const GradcheckView& g = checks.gradcheck.value();
  // The largest difference with 3 significant digits; the exact value stays in `value`.
  EXPECT_EQ(g.max_error.text, format_significant(g.max_error.value, 3));
  EXPECT_LE(g.max_error.text.size(), 8u) << g.max_error.text;
  EXPECT_LT(std::fabs(std::strtod(g.max_error.text.c_str(), nullptr) / g.max_error.value - 1), 5e-3);
  // The step and the tolerance are written exactly: the text reads back to the same double.
  EXPECT_EQ(g.step.text, "1e-6");
  EXPECT_EQ(g.tolerance.text, "2e-6");
  EXPECT_EQ(std::strtod(g.step.text.c_str(), nullptr), GradcheckOptions{}.step);
  EXPECT_EQ(std::strtod(g.tolerance.text.c_str(), nullptr), GradcheckOptions{}.tolerance);
  // gradcheck.cpp: h = step · max(1, |x|); pass when |a/s − n/s| <= tolerance + 2·ε / (h′·s).
  const GradcheckRules& rules = fixture().gradcheck_rules;
  EXPECT_EQ(rules.step_rule,
            "Each checked number x is moved down and up by h = 1e-6 · max(1, |x|) (1e-6 when |x| ≤ 1).");
  EXPECT_EQ(
      rules.pass_rule,
      "A number passes when |a/s − n/s| ≤ 2e-6 + r, with s = max(1, |a|, |n|) and the rounding allowance "
      "r = 2 · ε / (h′ · s), where ε bounds how far rounding can move L at these numbers and h′ is the "
      "smaller of the two steps x − (x − h) and (x + h) − x as floating point gives them. A number whose "
      "2e-6 + r reaches 0.5 is not judged: there rounding in L could hide a gradient off by a factor of two "
      "or of the wrong sign.");
  // ε, the one number the rules depend on, comes with each check; the rules, the same for every state, come
  // once, with the fixture.
  EXPECT_EQ(test::bits_of(g.rounding_bound.value), test::bits_of(fixture_evidence_bound()));
  EXPECT_EQ(g.rounding_bound.text, format_significant(fixture_evidence_bound(), 3));
  // At the fixture's scale every number probed is judged, and the words say the gradients agree.
  EXPECT_EQ(g.unjudged, 0u);
  EXPECT_EQ(g.verdict, "the gradients agree");
  EXPECT_LT(g.max_allowance.value, GradcheckOptions{}.judgeable);
}

TEST(LessonApi, GradcheckSaysWhatItCouldNotJudgeAtALargeScaleInsteadOfPassingIt) {
  // X[0] = 1e12: L's rounding swamps the small slopes, so most numbers cannot be judged (issue 18, item 3).
  LessonState state = fixture().state;
  state.input.cells[0] = "1e12";
  const LessonResponse out = evaluate({state});
  ASSERT_TRUE(out.ok);
  const ChecksResponse checks = numerical_checks(out.state);
  ASSERT_TRUE(checks.ok);
  const GradcheckView& g = checks.gradcheck.value();
  ASSERT_GT(g.unjudged, 0u);
  ASSERT_GT(g.checks, 0u);
  EXPECT_TRUE(g.passed);
  EXPECT_EQ(g.verdict,
            "the gradients agree at the " + std::to_string(g.checks) + " numbers that could be judged; " +
                std::to_string(g.unjudged) + " of " + std::to_string(g.checks + g.unjudged) +
                " numbers could not be checked at this scale (rounding in L could hide any error there)");
}

// A fixture tensor's values as fixtures/chapter26.json writes them (integers there, so "-1", not "-1.0"),
// and its shape as the page writes shapes ("[1, 2, 2]": format_test pins the separator).
std::vector<std::string> written(const test::json& tensor) {
  std::vector<std::string> texts;
  for (const test::json& value : tensor.at("values")) texts.push_back(value.dump());
  return texts;
}
std::string shape_written(const test::json& tensor) {
  std::string text = "[";
  for (const test::json& extent : tensor.at("shape")) text += (text.size() > 1 ? ", " : "") + extent.dump();
  return text + "]";
}

TEST(LessonApi, EvaluateReturnsEvidenceOrATypedError) {
  const test::json file = test::load_fixture();
  const test::json& expected = file.at("expected");
  LessonResponse ok = evaluate({fixture().state});
  ASSERT_TRUE(ok.ok);
  EXPECT_EQ(ok.evidence->query.text, written(expected.at("query")));
  EXPECT_EQ(ok.evidence->query.shape_text, shape_written(expected.at("query")));
  EXPECT_EQ(ok.evidence->initialization_state_after,
            file.at("seed26").at("generator_state").get<std::string>());
  EXPECT_EQ(ok.evidence->scores.shape_text, shape_written(expected.at("scores")));
  EXPECT_EQ(ok.evidence->scores.text, written(expected.at("scores")));
  // Not a fixture value: the lesson's own words for its two tokens (token_word, cpp/chapter26/chapter26.cpp).
  EXPECT_EQ(ok.evidence->token_names, (std::vector<std::string>{"fresh", "bread"}));
  LessonState bad = fixture().state;
  bad.batch = "x";
  const LessonResponse refused = evaluate({bad});
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error->kind, "size");
  EXPECT_EQ(refused.error->field, "batch");
  EXPECT_EQ(refused.error->sentence, "Batch B is outside the sizes this lesson accepts.");
  bad = fixture().state;
  bad.key_weight.cells[4] = "abc";
  EXPECT_EQ(evaluate({bad}).error->sentence, "Cell 5 of W_K could not be read as a number.");
}

// The page's numbers come first and the gradcheck after: evaluate() leaves it out, and numerical_checks()
// checks the numbers on screen (one projection evidence, its gradcheck, without the chapter's other work) or
// refuses a state it cannot read with the same error evaluate() gives.
TEST(LessonApi, TheGradcheckComesOnItsOwnForTheNumbersOnScreen) {
  LessonState edited = fixture().state;
  edited.query_weight.cells[2] = "0.5";
  const LessonResponse shown = evaluate({edited});
  ASSERT_TRUE(shown.ok);
  EXPECT_FALSE(shown.evidence->gradcheck.has_value());
  EXPECT_FALSE(shown.evidence->bitwise.has_value());
  EXPECT_FALSE(fixture().evidence.gradcheck.has_value());
  EXPECT_FALSE(fixture().evidence.bitwise.has_value());
  const std::uint64_t runs = projection_evidence_runs();
  const ChecksResponse checks = numerical_checks(shown.state);
  // The bitwise checks compute three times (the same again, W_Q[0,0] + 1, U_K[0] + 1); the kept gradients are
  // checked as they are, not computed again.
  const std::uint64_t bitwise_runs = 3;
  EXPECT_EQ(projection_evidence_runs(), runs + bitwise_runs);
  ASSERT_TRUE(checks.ok);
  EXPECT_TRUE(checks.gradcheck->passed);
  EXPECT_EQ(checks.gradcheck->checks, 24u);  // every number of X [1, 2, 3] and the three [3, 2] weights
  EXPECT_EQ(checks.gradcheck->verdict, "the gradients agree");
  ASSERT_TRUE(checks.bitwise.has_value());
  EXPECT_TRUE(checks.bitwise->replay_bitwise);
  EXPECT_TRUE(checks.bitwise->query_changed && checks.bitwise->key_unchanged &&
              checks.bitwise->value_unchanged);
  EXPECT_TRUE(checks.bitwise->key_gradient_changed && checks.bitwise->query_gradient_unchanged &&
              checks.bitwise->value_gradient_unchanged && checks.bitwise->input_gradient_changed);
  const std::uint64_t before_fixture = projection_evidence_runs();
  const ChecksResponse fixture_checks = numerical_checks(fixture().state);
  ASSERT_TRUE(fixture_checks.ok);
  EXPECT_EQ(projection_evidence_runs(), before_fixture + bitwise_runs) << "the fixture's kept gradients too";
  // What the chapter's evidence of the fixture says, computed whole.
  const BitwiseChecks whole = *compute_chapter_evidence(chapter_fixture())->bitwise;
  EXPECT_EQ(fixture_checks.bitwise->replay_bitwise, whole.replay_bitwise);
  EXPECT_EQ(fixture_checks.bitwise->query_changed, whole.query_changed);
  EXPECT_EQ(fixture_checks.bitwise->key_unchanged, whole.key_unchanged);
  EXPECT_EQ(fixture_checks.bitwise->value_unchanged, whole.value_unchanged);
  EXPECT_EQ(fixture_checks.bitwise->key_gradient_changed, whole.key_gradient_changed);
  EXPECT_EQ(fixture_checks.bitwise->query_gradient_unchanged, whole.query_gradient_unchanged);
  EXPECT_EQ(fixture_checks.bitwise->value_gradient_unchanged, whole.value_gradient_unchanged);
  EXPECT_EQ(fixture_checks.bitwise->input_gradient_changed, whole.input_gradient_changed);

  // Once other numbers were evaluated, the edited ones are computed again, gradcheck included: the same
  // summary.
  LessonState other = edited;
  other.input.cells[0] = "2";
  ASSERT_TRUE(evaluate({other}).ok);
  const std::uint64_t before = projection_evidence_runs();
  const ChecksResponse computed = numerical_checks(shown.state);
  EXPECT_EQ(projection_evidence_runs(), before + 1 + bitwise_runs);
  ASSERT_TRUE(computed.ok);
  EXPECT_EQ(computed.gradcheck->checks, checks.gradcheck->checks);
  EXPECT_EQ(computed.gradcheck->verdict, checks.gradcheck->verdict);
  EXPECT_EQ(computed.gradcheck->unjudged, checks.gradcheck->unjudged);
  EXPECT_EQ(test::bits_of(computed.gradcheck->max_error.value),
            test::bits_of(checks.gradcheck->max_error.value));
  EXPECT_EQ(test::bits_of(computed.gradcheck->max_allowance.value),
            test::bits_of(checks.gradcheck->max_allowance.value));
  LessonState unreadable = edited;
  unreadable.key_weight.cells[4] = "abc";
  const ChecksResponse refused = numerical_checks(unreadable);
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error->sentence, evaluate({unreadable}).error->sentence);
}

// A response written out whole through its field list: every field's name, and numbers by their bits, so
// that two responses are equal as text only when every field is.
struct FieldsText {
  using Out = std::string;
  template <class T>
  static constexpr bool converts = std::is_arithmetic_v<T> || std::is_same_v<T, std::string>;
  template <class T>
  static std::string convert(const T& value) {
    if constexpr (std::is_same_v<T, std::string>)
      return "\"" + value + "\"";
    else if constexpr (std::is_floating_point_v<T>)
      return std::to_string(test::bits_of(value));
    else
      return std::to_string(value);
  }
  static std::string array() { return "["; }
  static std::string object() { return "{"; }
  // Each item's length first: nested lists and objects stay unambiguous without closing brackets.
  static void push(std::string& list, std::size_t, const std::string& item) {
    list += std::to_string(item.size()) + ":" + item;
  }
  static void set(std::string& object, const char* key, const std::string& item) {
    object += std::string(key) + "=" + std::to_string(item.size()) + ":" + item;
  }
};
std::string every_field(const ChecksResponse& response) { return write_fields<FieldsText>(response); }

// In steps, as the page asks for them (one per idle moment): X, W_Q, W_K and W_V's gradcheck one per call,
// then the bitwise checks, and the same response as numerical_checks() gives at once. Asking for other
// numbers starts their steps afresh; numbers not on screen are checked in one call.
TEST(LessonApi, TheNumericalChecksComeInStepsWithTheSameResult) {
  const LessonState state = fixture().state;
  const ChecksResponse whole = numerical_checks(state);
  ASSERT_TRUE(whole.ok && whole.done);
  const auto steps_until_done = [](const LessonState& checked) {
    std::size_t steps = 0;
    for (;;) {
      ChecksResponse step = numerical_checks_step(checked);
      ++steps;
      EXPECT_TRUE(step.ok);
      if (!step.ok || step.done) return std::make_pair(steps, step);
      EXPECT_FALSE(step.gradcheck.has_value()) << "step " << steps;
      EXPECT_FALSE(step.bitwise.has_value()) << "step " << steps;
    }
  };
  const auto [steps, stepped] = steps_until_done(state);
  EXPECT_EQ(steps, 5u);  // four tensors, then the bitwise checks
  EXPECT_EQ(every_field(stepped), every_field(whole));

  // Two steps into the fixture's checks, other numbers are put on screen and checked: theirs start at the
  // first step, and the fixture's, asked again, start over.
  ASSERT_FALSE(numerical_checks_step(state).done);
  ASSERT_FALSE(numerical_checks_step(state).done);
  LessonState edited = state;
  edited.input.cells[1] = "0.5";
  ASSERT_TRUE(evaluate({edited}).ok);
  const auto [edited_steps, edited_checks] = steps_until_done(edited);
  EXPECT_EQ(edited_steps, 5u);
  EXPECT_EQ(every_field(edited_checks), every_field(numerical_checks(edited)));
  EXPECT_EQ(steps_until_done(state).first, 5u);

  LessonState elsewhere = state;
  elsewhere.input.cells[2] = "7";  // never evaluated: not on screen
  const ChecksResponse at_once = numerical_checks_step(elsewhere);
  ASSERT_TRUE(at_once.ok);
  EXPECT_TRUE(at_once.done);
  EXPECT_TRUE(at_once.gradcheck->passed);
}

// Explaining a cell of the numbers on screen reads the evaluation that computed them (the fixture's or the
// last one): no projection evidence is computed again, and the answer is the one a fresh computation gives.
TEST(LessonApi, ProvenanceReadsTheNumbersOnScreenInsteadOfComputingThemAgain) {
  const LessonState fixture_numbers = fixture().state;
  LessonState edited = fixture_numbers;
  edited.input.cells[0] = "3";
  LessonState other = fixture_numbers;
  other.input.cells[1] = "5";
  const LessonResponse shown = evaluate({edited});
  ASSERT_TRUE(shown.ok);

  std::uint64_t runs = projection_evidence_runs();
  const ProvenanceResponse kept = provenance({shown.state, "query", 1});
  ASSERT_TRUE(kept.ok);
  EXPECT_EQ(projection_evidence_runs(), runs) << "the last evaluation's numbers are read";
  EXPECT_TRUE(provenance({fixture_numbers, "scores", 0}).ok);
  EXPECT_EQ(projection_evidence_runs(), runs) << "the fixture's numbers are read";

  ASSERT_TRUE(evaluate({other}).ok);  // the edited numbers are no longer the last evaluation's
  runs = projection_evidence_runs();
  const ProvenanceResponse computed = provenance({shown.state, "query", 1});
  EXPECT_EQ(projection_evidence_runs(), runs + 1) << "numbers not on screen are computed";
  ASSERT_TRUE(computed.ok);
  EXPECT_EQ(kept.expression, computed.expression);
  EXPECT_EQ(kept.description, computed.description);
  EXPECT_NE(kept.expression, provenance({other, "query", 1}).expression) << "each state's own numbers";
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
  // The self-score settings are named by the API (page_label), the lesson's sizes by the learner.
  EXPECT_EQ(self_score({"-1", "5", "8"}).error->sentence, "The experiment did not run with the seed.");
  EXPECT_EQ(refused.error->sentence, "The experiment did not run with Tokens T.");
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
  EXPECT_EQ(listed.exercises.size(), 21u);
  EXPECT_EQ(listed.exercises[4].id, "ch26-parameter-count");
  EXPECT_EQ(listed.exercises[4].kind, "count");
  EXPECT_EQ(listed.exercises[4].answer, (std::vector<std::string>{"18"}));
  const AnswerResponse right = check_answer({"ch26-parameter-count", {"1.8e1"}, {"1", "5", "8"}});
  ASSERT_TRUE(right.ok);
  EXPECT_TRUE(right.correct);
  EXPECT_EQ(right.read, (std::vector<std::string>{"18"}));
  const AnswerResponse unread = check_answer({"ch26-parameter-count", {"lots"}, {"1", "5", "8"}});
  ASSERT_FALSE(unread.ok);
  EXPECT_EQ(unread.error->kind, "number");
  EXPECT_EQ(check_answer({"no-such", {""}, {"1", "5", "8"}}).error->message, "unknown exercise \"no-such\"");
}

TEST(LessonApi, ACheckAfterTheAnswerWasShownIsRightButNeverCounts) {
  const AnswerResponse earned = check_answer({"ch26-parameter-count", {"18"}, {"1", "5", "8"}, false});
  ASSERT_TRUE(earned.ok);
  EXPECT_TRUE(earned.correct);
  EXPECT_TRUE(earned.counts);
  const AnswerResponse shown = check_answer({"ch26-parameter-count", {"18"}, {"1", "5", "8"}, true});
  ASSERT_TRUE(shown.ok);
  EXPECT_TRUE(shown.correct);
  EXPECT_FALSE(shown.counts);
  const AnswerResponse wrong = check_answer({"ch26-parameter-count", {"17"}, {"1", "5", "8"}, false});
  EXPECT_FALSE(wrong.counts);
}

TEST(LessonApi, TheOutcomeGradesTheQuestionsShownWithTheDefaultOrTheCoursesPassingFraction) {
  OutcomeRequest request;
  request.questions = {{true, true, false}, {true, true, false}, {true, false, true}, {false, false, true}};
  OutcomeResponse outcome = lesson_outcome(request);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.right, 2u);
  EXPECT_EQ(outcome.settled, 4u);
  EXPECT_EQ(outcome.percent, 50.0);
  EXPECT_EQ(outcome.passing, 0.8);
  EXPECT_TRUE(outcome.completed);
  EXPECT_FALSE(outcome.passed);
  request.passing = 0.5;
  EXPECT_TRUE(lesson_outcome(request).passed);
  request.passing = 2.0;
  EXPECT_EQ(lesson_outcome(request).error->kind, "arguments");
  request.passing.reset();
  request.questions.resize(kMaxOutcomeQuestions + 1);
  const OutcomeResponse refused = lesson_outcome(request);
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error->message, "at most 1024 questions are graded");
}

TEST(LessonApi, ACheckPastTheAuthorsAllowanceIsRefusedWithKindAttempts) {
  AnswerRequest request{"ch26-parameter-count", {"18"}, {"1", "5", "8"}, false};
  request.attempts_allowed = 2;
  request.attempts_used = 1;
  EXPECT_TRUE(check_answer(request).counts);  // the last allowed check
  request.attempts_used = 2;
  const AnswerResponse refused = check_answer(request);
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error->kind, "attempts");
  EXPECT_EQ(refused.error->message, "no checks are left: 2 of 2 allowed are used");
  EXPECT_EQ(refused.error->sentence, "No checks are left for this question.");
  request.attempts_allowed = 0;  // unlimited
  EXPECT_TRUE(check_answer(request).ok);
}

TEST(LessonApi, TheAllowanceLimitsOnlyTheQuestionsThatCount) {
  AnswerRequest request{"ch26-parameter-count", {"18"}, {"1", "5", "8"}, false};
  request.attempts_allowed = 1;
  request.attempts_used = 1;
  request.graded = std::vector<std::string>{"ch26-output-shapes"};  // this one is practice: unlimited
  EXPECT_TRUE(check_answer(request).ok);
  request.graded->push_back("ch26-parameter-count");  // now it counts: its one check is used
  EXPECT_EQ(check_answer(request).error->kind, "attempts");
  request.graded.reset();  // absent: every question counts
  EXPECT_EQ(check_answer(request).error->kind, "attempts");
}

TEST(LessonApi, TheOutcomeCountsOnlyTheGradedQuestionsAndListsEachForTheResultsView) {
  OutcomeRequest request;
  request.questions = {
      {true, true, false, "a", 1}, {true, false, false, "b", 2}, {false, false, true, "c", 0}};
  request.graded = std::vector<std::string>{"a", "b"};
  request.attempts = "2";
  request.passing = 0.5;
  const OutcomeResponse outcome = lesson_outcome(request);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.shown, 3u);
  EXPECT_EQ(outcome.counted, 2u);
  EXPECT_EQ(outcome.right, 1u);
  EXPECT_EQ(outcome.percent, 50.0);
  EXPECT_EQ(outcome.passing_percent, 50.0);
  EXPECT_EQ(outcome.attempts, 2u);
  EXPECT_TRUE(outcome.completed);  // "b" is out of attempts: settled
  EXPECT_TRUE(outcome.passed);
  ASSERT_EQ(outcome.questions.size(), 3u);
  EXPECT_EQ(outcome.questions[1].id, "b");
  EXPECT_TRUE(outcome.questions[1].out_of_attempts);
  EXPECT_EQ(outcome.questions[1].standing, "Not right: no checks left");  // the core's words, passed on
  EXPECT_EQ(outcome.questions[0].checks_note, "");
  EXPECT_EQ(outcome.questions[1].attempts, 2u);
  EXPECT_FALSE(outcome.questions[2].counted);
  EXPECT_TRUE(outcome.questions[2].revealed);
  request.passing.reset();
  request.passing_percent = "67";  // an author's pass mark: 1 of 2 right no longer passes
  EXPECT_EQ(lesson_outcome(request).passing, 0.67);
  EXPECT_FALSE(lesson_outcome(request).passed);
  request.passing_percent = "101";
  EXPECT_EQ(lesson_outcome(request).error->message, "the passing score must be a percent from 0 to 100");
  request.passing_percent = "most";  // read as an answer's number is, and refused in the reader's words
  EXPECT_EQ(lesson_outcome(request).error->message,
            "the passing score \"most\" is not read: expected a number such as \u22121.5, 3/2 or 2e-3");
  request.passing_percent = "135/2";  // 67.5, as an answer's "3/2" is read
  EXPECT_EQ(lesson_outcome(request).passing, 0.675);
  request.attempts = "two";
  EXPECT_EQ(lesson_outcome(request).error->field, "attempts");
  request.attempts = "2";
  request.passing_percent = "50";
  request.passing = 0.5;
  EXPECT_EQ(lesson_outcome(request).error->message,
            "give the passing fraction or the passing percent, not both");
  request.passing.reset();
  request.graded = std::vector<std::string>{"a", "zz"};
  const OutcomeResponse unknown = lesson_outcome(request);
  ASSERT_FALSE(unknown.ok);
  EXPECT_EQ(unknown.error->message, "graded question \"zz\" is not one of the questions shown");
}

// ---- the page's worker: the summary, the facts it hands back, and bounded searches ----

TEST(LessonApi, SummaryShowsEveryScoreUpTo16TokensAndTheSameTextAsTheFullResponse) {
  const SelfScoreResponse full = self_score({"1", "5", "8"});
  const SelfScoreSummaryResponse summary = self_score_summary({"1", "5", "8"});
  ASSERT_TRUE(full.ok && summary.ok);
  const SelfScoreSummaryView& s = *summary.result;
  EXPECT_TRUE(s.complete);
  EXPECT_EQ(s.shown, 5u);
  EXPECT_EQ(s.separate.scores.text, full.result->separate.scores.text);
  EXPECT_EQ(s.separate.scores.rounded, full.result->separate.scores.rounded);
  EXPECT_EQ(s.norms.rounded, full.result->norms.rounded);
  EXPECT_EQ(s.separate.argmax, full.result->separate.argmax);
  EXPECT_EQ(s.separate.diagonal_count, 2u);  // rows 0 and 3
  EXPECT_EQ(s.separate.diagonal_rows, full.result->separate.diagonal_rows);
  EXPECT_EQ(s.separate.off_diagonal_count, 3u);
  ASSERT_EQ(s.separate.off_diagonal.size(), 3u);
  EXPECT_EQ(s.separate.off_diagonal[0].row, 1u);
  EXPECT_EQ(s.separate.off_diagonal[0].argmax, full.result->separate.argmax[1]);
  EXPECT_EQ(s.separate.off_diagonal[0].own, full.result->separate.scores.rounded[1 * 5 + 1]);
  EXPECT_EQ(s.separate.off_diagonal[0].peak,
            full.result->separate.scores.rounded[1 * 5 + s.separate.off_diagonal[0].argmax]);
  EXPECT_TRUE(s.separate.guaranteed_rows.empty());
  EXPECT_EQ(s.none.guaranteed_rows, full.result->none.guaranteed_rows);
}

TEST(LessonApi, SummaryAbove16TokensShowsTheCornerCountsAndFirstOffDiagonalRows) {
  const SelfScoreResponse full = self_score({"3", "40", "2"});
  const SelfScoreSummaryResponse summary = self_score_summary({"3", "40", "2"});
  ASSERT_TRUE(full.ok && summary.ok);
  const SelfScoreSummaryView& s = *summary.result;
  EXPECT_FALSE(s.complete);
  EXPECT_EQ(s.shown, 8u);
  ASSERT_EQ(s.tied.scores.text.size(), 64u);
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 8; ++j)
      EXPECT_EQ(s.tied.scores.text[i * 8 + j], full.result->tied.scores.text[i * 40 + j]) << i << "," << j;
  EXPECT_EQ(s.norms.text.size(), 8u);
  EXPECT_EQ(s.none.diagonal_count, full.result->none.diagonal_rows.size());
  EXPECT_EQ(s.none.diagonal_count + s.none.off_diagonal_count, 40u);
  // Width 2 in 40 tokens: many rows peak elsewhere; the first five are listed, in row order.
  ASSERT_EQ(s.none.off_diagonal.size(), kListedRows);
  std::size_t listed = 0;
  for (std::size_t row = 0; row < 40 && listed < kListedRows; ++row) {
    if (full.result->none.argmax[row] != row) {
      EXPECT_EQ(s.none.off_diagonal[listed++].row, row);
    }
  }
  EXPECT_EQ(s.facts.none_argmax, full.result->none.argmax);
  EXPECT_EQ(s.facts.tied_guaranteed_rows, full.result->tied.guaranteed_rows);
}

// Only qkv04-exercise-1 and -3 read the learner's experiment: every other exercise is the same for two
// different experiments, and those two are not (this pins the list lesson_api.cpp keeps).
TEST(LessonApi, OnlyTwoExercisesReadTheLearnersExperiment) {
  const ExercisesResponse a = exercises({"1", "5", "8"});
  const ExercisesResponse b = exercises({"2", "6", "3"});
  ASSERT_TRUE(a.ok && b.ok);
  ASSERT_EQ(a.exercises.size(), b.exercises.size());
  std::vector<std::string> differing;
  for (std::size_t i = 0; i < a.exercises.size(); ++i)
    if (a.exercises[i].answer != b.exercises[i].answer ||
        a.exercises[i].explanation != b.exercises[i].explanation)
      differing.push_back(a.exercises[i].id);
  EXPECT_EQ(differing, (std::vector<std::string>{"qkv04-exercise-1", "qkv04-exercise-3"}));
}

// The facts the worker's summary carries give the same exercises and verdicts as the experiment itself.
TEST(LessonApi, FactsFromTheSummaryGradeLikeTheExperiment) {
  for (const SelfScoreRequest& settings :
       {SelfScoreRequest{"1", "5", "8"}, SelfScoreRequest{"2", "5", "8"}, SelfScoreRequest{"7", "40", "2"}}) {
    SelfScoreRequest with = settings;
    with.experiment = self_score_summary(settings).result->facts;
    const ExercisesResponse computed = exercises(settings);
    const ExercisesResponse given = exercises(with);
    ASSERT_TRUE(computed.ok && given.ok);
    for (std::size_t i = 0; i < computed.exercises.size(); ++i) {
      EXPECT_EQ(given.exercises[i].answer, computed.exercises[i].answer) << computed.exercises[i].id;
      EXPECT_EQ(given.exercises[i].explanation, computed.exercises[i].explanation)
          << computed.exercises[i].id;
    }
    for (const char* answer : {"yes", "no"}) {
      const AnswerResponse a = check_answer({"qkv04-exercise-3", {answer}, settings});
      const AnswerResponse b = check_answer({"qkv04-exercise-3", {answer}, with});
      ASSERT_TRUE(a.ok && b.ok);
      EXPECT_EQ(a.correct, b.correct);
      EXPECT_EQ(a.explanation, b.explanation);
    }
  }
}

TEST(LessonApi, FactsForOtherSettingsAreRefused) {
  SelfScoreRequest other{"1", "5", "8"};
  other.experiment = self_score_summary({"2", "5", "8"}).result->facts;
  const AnswerResponse refused = check_answer({"qkv04-exercise-1", {"yes"}, other});
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error->kind, "arguments");
  EXPECT_EQ(refused.error->field, "experiment");
  EXPECT_EQ(refused.error->message,
            "experiment describes seed 2, 5 tokens, width 8, not the settings asked for");
  SelfScoreRequest broken{"1", "5", "8"};
  broken.experiment = self_score_summary({"1", "5", "8"}).result->facts;
  broken.experiment->tied_argmax[2] = 5;
  EXPECT_EQ(exercises(broken).error->message, "experiment names a column past the last token");
}

// check_facts: each list of guaranteed rows must name rows of the experiment in strictly ascending order
// (as the experiment reports them), so a list out of order, repeated or past the last token is refused.
TEST(LessonApi, FactsWhoseGuaranteedRowsAreNotAscendingRowsAreRefused) {
  const SelfScoreRequest settings{"1", "5", "8"};
  const ExperimentFacts facts = self_score_summary(settings).result->facts;
  const auto with_rows = [&](std::vector<std::size_t> none, std::vector<std::size_t> tied) {
    SelfScoreRequest request = settings;
    request.experiment = facts;
    request.experiment->none_guaranteed_rows = std::move(none);
    request.experiment->tied_guaranteed_rows = std::move(tied);
    return exercises(request);
  };
  const std::string refusal = "experiment guaranteed rows must be ascending rows of the experiment";
  const ExercisesResponse descending = with_rows({3, 1}, {});
  ASSERT_FALSE(descending.ok);
  EXPECT_EQ(descending.error->kind, "arguments");
  EXPECT_EQ(descending.error->field, "experiment");
  EXPECT_EQ(descending.error->message, refusal);
  EXPECT_EQ(with_rows({2, 2}, {}).error->message, refusal);     // repeated
  EXPECT_EQ(with_rows({}, {4, 0}).error->message, refusal);     // the tied list is checked too
  EXPECT_EQ(with_rows({}, {0, 2, 1}).error->message, refusal);  // out of order after the first pair
  EXPECT_EQ(with_rows({5}, {}).error->message, refusal);        // 5 tokens: rows 0 to 4
  EXPECT_TRUE(with_rows({1, 3}, {0, 4}).ok);                    // ascending rows of the experiment
}

// Without facts, the page's own thread never computes a large experiment: the two exercises about it
// wait (kind "budget"), the rest are listed and graded as usual.
TEST(LessonApi, LargeExperimentWithoutFactsLeavesItsTwoExercisesPending) {
  ASSERT_GT(self_score_cost(512, 512), kInlineExperimentWork);
  const SelfScoreRequest large{"1", "512", "512"};
  const ExercisesResponse listed = exercises(large);
  ASSERT_TRUE(listed.ok);
  for (const ExerciseView& view : listed.exercises) {
    const bool pending = view.id == "qkv04-exercise-1" || view.id == "qkv04-exercise-3";
    EXPECT_EQ(view.answer.empty(), pending) << view.id;
  }
  const AnswerResponse waiting = check_answer({"qkv04-exercise-1", {"yes"}, large});
  ASSERT_FALSE(waiting.ok);
  EXPECT_EQ(waiting.error->kind, "budget");
  EXPECT_EQ(
      waiting.error->message,
      "this exercise asks about the experiment at 512 tokens of width 512, which is still being computed; "
      "check again once its summary is shown");
  EXPECT_TRUE(check_answer({"ch26-parameter-count", {"18"}, large}).correct);
  EXPECT_TRUE(check_answer({"qkv04-quiz-3", {"2 of 5"}, large}).ok);
  EXPECT_LE(self_score_cost(64, 64), kInlineExperimentWork);  // the sizes up to 64 still compute inline
}

TEST(LessonApi, SearchOverTheBudgetIsRefusedWithKindBudget) {
  const SeedSearchResponse refused = find_seed({"tied", "1", "1000", "512", "512"});
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error->kind, "budget");
  EXPECT_EQ(refused.error->field, "count");
  EXPECT_EQ(refused.error->message,
            "a search of 1,000 seeds at 294,937,000 multiply-adds each exceeds the limit of 5,000,000,000 "
            "multiply-adds per search; at these sizes at most 16 seeds fit");
  std::vector<std::int64_t> reports;
  const SeedSearchResponse searched =
      find_seed({"none", "", "2500", "1", "8"}, [&](std::int64_t tried) { reports.push_back(tried); });
  ASSERT_TRUE(searched.ok);
  EXPECT_FALSE(searched.found);
  // A report every ceil(2e7 / 25409) = 788 seeds (self_score_test.cpp:
  // SearchReportsProgressEveryStretchOfWork).
  EXPECT_EQ(reports, (std::vector<std::int64_t>{788, 1576, 2364}));
}

// ---- questions from the numbers on screen, and new numbers on demand (issue 40, items 1 and 2) ----

const std::string kMinus = "\xE2\x88\x92";

const ExerciseView& listed(const ExercisesResponse& response, const std::string& id) {
  for (const ExerciseView& exercise : response.exercises)
    if (exercise.id == id) return exercise;
  throw std::runtime_error("no exercise " + id);
}

// The fixture with a third token x₂ = [1, 0, 1]: k₂ = [−1, 2] equals k₁, so q₀ = [0, 3] scores 6 with both,
// a tie for the best key between k₁ and k₂ that the options (k₀, k₁, their tie) do not name.
LessonState three_tokens_with_a_tie() {
  return state_of(test::with_input(chapter_fixture(),
                                   Tensor::from_values({1, 3, 3}, {1, 2, -1, 0, 1, 2, 1, 0, 1}).value()));
}

TEST(LessonApi, WithoutAStateTheQuestionsNameTheFixturesNumbers) {
  const ExercisesResponse fixture_list = exercises({"1", "5", "8"});
  ASSERT_TRUE(fixture_list.ok);
  const ExerciseView& first = listed(fixture_list, "ch26-first-token");
  EXPECT_EQ(first.question,
            "For the frozen fixture, compute q₀, k₀ and v₀: the first token “fresh”, x₀ = [1, 2, " + kMinus +
                "1], times W_Q, W_K and W_V.");
  EXPECT_FALSE(first.not_graded);
  EXPECT_EQ(listed(fixture_list, "ch26-best-key").choice_texts,
            (std::vector<std::string>{"Its own key, k₀ (“fresh”)", "The key of token 1, k₁ (“bread”)",
                                      "Both keys equally"}));
  EXPECT_EQ(listed(fixture_list, "ch26-history").question, "");  // no numbers: the page's prose stands
  // The fixture's own state is the fixture.
  const ExercisesResponse same = exercises_for({{"1", "5", "8"}, fixture_state(), std::nullopt});
  EXPECT_EQ(listed(same, "ch26-first-token").question, first.question);
}

TEST(LessonApi, AnEditToXChangesTheFirstTokensQuestionAndItsAcceptedAnswer) {
  LessonState state = fixture_state();
  state.input.cells[0] = "2";
  state.input.cells[1] = "0";
  state.input.cells[2] = "1";  // x₀ = [2, 0, 1]: q₀ = [2·1 + 1·1, 1·(−1)] = [3, −1]
  const ExercisesResponse edited = exercises_for({{"1", "5", "8"}, state, std::nullopt});
  ASSERT_TRUE(edited.ok) << edited.error->message;
  const ExerciseView& first = listed(edited, "ch26-first-token");
  EXPECT_EQ(first.question,
            "For the numbers on screen, compute q₀, k₀ and v₀: the first token “fresh”, x₀ = [2, 0, 1], "
            "times W_Q, W_K and W_V.");
  EXPECT_EQ(first.answer[0], "[3, " + kMinus + "1]");
  AnswerRequest check{"ch26-first-token", {"[3, -1]", first.answer[1], first.answer[2]}, {"1", "5", "8"}};
  check.state = state;
  const AnswerResponse right = check_answer(check);
  ASSERT_TRUE(right.ok) << right.error->message;
  EXPECT_TRUE(right.correct);
  check.responses[0] = "[0, 3]";  // the fixture's q₀ is wrong for these numbers
  EXPECT_FALSE(check_answer(check).correct);
  check.state.reset();  // and right for the fixture's
  check.responses = {"[0, 3]", "[3, 0]", "[3, -3]"};
  EXPECT_TRUE(check_answer(check).correct);
}

TEST(LessonApi, ATieForTheBestKeyTheOptionsDoNotNameIsNotGradedAndItsCheckIsRefused) {
  const LessonState state = three_tokens_with_a_tie();
  const ExercisesResponse listed_now = exercises_for({{"1", "5", "8"}, state, std::nullopt});
  ASSERT_TRUE(listed_now.ok) << listed_now.error->message;
  const ExerciseView& best = listed(listed_now, "ch26-best-key");
  ASSERT_TRUE(best.not_graded);
  EXPECT_EQ(*best.not_graded,
            "q₀·k₀ = 0·3 + 3·0, q₀·k₁ = 0·(" + kMinus + "1) + 3·2 and q₀·k₂ = 0·(" + kMinus +
                "1) + 3·2: k₁ (“bread”) and k₂ (“token 2”) tie for the best score, 6, which no option names. "
                "Change a number so that k₀ or k₁ (or both alike) wins.");
  EXPECT_TRUE(best.answer.empty());
  EXPECT_EQ(best.question,
            "A query matches a key well when their dot product is large. In the numbers on screen, which of "
            "the 3 keys does token 0’s (“fresh”) query match best?");
  EXPECT_FALSE(listed(listed_now, "ch26-first-token").not_graded);  // the other questions are graded
  for (const char* option : {"token-0", "token-1", "tie"}) {
    AnswerRequest check{"ch26-best-key", {option}, {"1", "5", "8"}};
    check.state = state;
    const AnswerResponse refused = check_answer(check);
    ASSERT_FALSE(refused.ok);
    EXPECT_EQ(refused.error->kind, "exercise");
    EXPECT_EQ(refused.error->message, *best.not_graded);
  }
}

TEST(LessonApi, AnEmptyTokenAxisLeavesTheQuestionsAboutToken0NotGraded) {
  LessonState state = fixture_state();
  state.tokens = "0";
  const ExercisesResponse empty = exercises_for({{"1", "5", "8"}, state, std::nullopt});
  ASSERT_TRUE(empty.ok) << empty.error->message;
  for (const char* id : {"ch26-first-token", "ch26-best-key", "ch26-preview-weights"}) {
    ASSERT_TRUE(listed(empty, id).not_graded) << id;
    EXPECT_NE(listed(empty, id).not_graded->find("[1, 0, 3]"), std::string::npos) << id;
    EXPECT_TRUE(listed(empty, id).answer.empty());
  }
  EXPECT_FALSE(listed(empty, "ch26-output-shapes").not_graded);
}

TEST(LessonApi, AStateOrTokenWordsThatDoNotFitAreRefusedByField) {
  LessonState state = fixture_state();
  state.input.cells[0] = "abc";
  const ExercisesResponse unread = exercises_for({{"1", "5", "8"}, state, std::nullopt});
  ASSERT_FALSE(unread.ok);
  EXPECT_EQ(unread.error->field, "input");
  const ExercisesResponse words =
      exercises_for({{"1", "5", "8"}, std::nullopt, std::vector<std::string>{"one"}});
  ASSERT_FALSE(words.ok);
  EXPECT_EQ(words.error->message, "token_names needs one word per token: 2 tokens, got 1 words");
  const ExercisesResponse blank =
      exercises_for({{"1", "5", "8"}, std::nullopt, std::vector<std::string>{"a", ""}});
  ASSERT_FALSE(blank.ok);
  EXPECT_EQ(blank.error->field, "token_names");
}

TEST(LessonApi, AVariantIsAStateThePageLoadsAndItsQuestionsNameItsWords) {
  const VariantResponse drawn = variant({"7"});
  ASSERT_TRUE(drawn.ok) << drawn.error->message;
  EXPECT_EQ(drawn.seed, 7u);
  const LessonResponse shown = evaluate({drawn.state});
  ASSERT_TRUE(shown.ok);
  EXPECT_TRUE(shown.notes.empty());
  EXPECT_TRUE(shown.state == drawn.state);  // already conformed: it loads as it is
  const ExercisesResponse questions = exercises_for({{"1", "5", "8"}, drawn.state, drawn.token_names});
  ASSERT_TRUE(questions.ok) << questions.error->message;
  EXPECT_NE(listed(questions, "ch26-first-token").question.find("“" + drawn.token_names[0] + "”"),
            std::string::npos);
  for (const ExerciseView& exercise : questions.exercises) EXPECT_FALSE(exercise.not_graded) << exercise.id;
  EXPECT_TRUE(variant({"7"}).state == drawn.state);
  for (const char* bad : {"-1", "9007199254740992", "x", ""}) {
    const VariantResponse refused = variant({bad});
    ASSERT_FALSE(refused.ok) << bad;
    EXPECT_EQ(refused.error->field, "seed");
  }
  EXPECT_TRUE(variant({"9007199254740991"}).ok);
}

// A drawn problem's (or an example's) words come back in the evidence the core computed for its numbers,
// checked by the same rules as exercises_for's; without them, the fixture story's words.
TEST(LessonApi, EvaluateNamesTheTokensWithTheWordsItIsGiven) {
  const VariantResponse drawn = variant({"7"});
  ASSERT_TRUE(drawn.ok) << drawn.error->message;
  const LessonResponse named = evaluate({drawn.state, drawn.token_names});
  ASSERT_TRUE(named.ok) << named.error->message;
  EXPECT_EQ(named.evidence->token_names, drawn.token_names);
  const LessonResponse unnamed = evaluate({drawn.state});
  ASSERT_TRUE(unnamed.ok);
  EXPECT_NE(unnamed.evidence->token_names, drawn.token_names);
  const LessonResponse too_few = evaluate({drawn.state, std::vector<std::string>{"one"}});
  ASSERT_FALSE(too_few.ok);
  EXPECT_FALSE(too_few.evidence.has_value());
  EXPECT_EQ(too_few.error->field, "token_names");
  EXPECT_NE(too_few.error->message.find("token_names needs one word per token"), std::string::npos);
  std::vector<std::string> blank = drawn.token_names;
  blank.back() = "";
  EXPECT_EQ(evaluate({drawn.state, blank}).error->field, "token_names");
}

// The page keeps what practice_streak returns and shows its text; too long a list of checked problems is
// refused.
TEST(LessonApi, ThePracticeStreakIsTheCoresToKeep) {
  const PracticeStreakResponse first = practice_streak({2, {"11", "12"}, "13", true});
  ASSERT_TRUE(first.ok);
  EXPECT_EQ(first.run, 3u);
  EXPECT_TRUE(first.has_it);
  EXPECT_EQ(first.checked, (std::vector<std::string>{"11", "12", "13"}));
  EXPECT_EQ(first.text, "3 drawn problems right in a row: you have it.");
  const PracticeStreakResponse again = practice_streak({first.run, first.checked, "13", false});
  EXPECT_EQ(again.run, 3u);
  const PracticeStreakResponse restored = practice_streak({1, {}, "", false});
  EXPECT_EQ(restored.text, "Drawn problems right in a row: 1 (3 shows you have it).");
  const PracticeStreakResponse refused =
      practice_streak({0, std::vector<std::string>(kMaxPracticeChecked + 1, "1"), "2", true});
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error->field, "checked");
}

TEST(LessonApi, AnAttemptKeyDrawsItsOwnSeedsProblemAndIsNeverMixedWithASeed) {
  const VariantResponse drawn = variant({"", "scorm:learner-1:attempt-1"});
  ASSERT_TRUE(drawn.ok) << drawn.error->message;
  EXPECT_EQ(drawn.seed, attempt_seed("scorm:learner-1:attempt-1"));
  EXPECT_TRUE(drawn.state == variant({std::to_string(drawn.seed)}).state);  // the recorded seed redraws it
  EXPECT_FALSE(drawn.state == variant({"", "scorm:learner-1:attempt-2"}).state);
  const VariantResponse both = variant({"7", "scorm:learner-1:attempt-1"});
  ASSERT_FALSE(both.ok);
  EXPECT_EQ(both.error->field, "attempt_key");
  const VariantResponse long_key = variant({"", std::string(kMaxAttemptKeyLength + 1, 'k')});
  ASSERT_FALSE(long_key.ok);
  EXPECT_EQ(long_key.error->field, "attempt_key");
  EXPECT_TRUE(variant({"", std::string(kMaxAttemptKeyLength, 'k')}).ok);
}

}  // namespace
}  // namespace qkv::api

namespace qkv::api {
namespace {

TEST(LessonApi, HeatmapLevelsAreTheScoresOnADivergingScale) {
  const SelfScoreSummaryResponse out = self_score_summary({"1", "5", "8"});
  ASSERT_TRUE(out.ok);
  const KindSummaryView& none = out.result->none;
  ASSERT_EQ(none.heat.size(), 25u);
  // The largest |score| shown (14.11 at [0, 0]) is level 4; −2.79 rounds to −1; 5.53 to 2.
  EXPECT_EQ(none.heat[0], 4);
  EXPECT_EQ(none.scores.rounded[10], "-2.79");
  EXPECT_EQ(none.heat[10], -1);
  EXPECT_EQ(none.scores.rounded[1], "5.53");
  EXPECT_EQ(none.heat[1], 2);
  for (int level : out.result->separate.heat) {
    EXPECT_GE(level, -4);
    EXPECT_LE(level, 4);
  }
}

// The summary is complete up to 16 tokens (kCompleteTokens) and shows the 8 × 8 corner (kCornerTokens) from
// 17 on: both sides of the limit.
TEST(LessonApi, SummaryAtExactly16TokensIsStillComplete) {
  const SelfScoreSummaryResponse at16 = self_score_summary({"3", "16", "2"});
  ASSERT_TRUE(at16.ok);
  EXPECT_TRUE(at16.result->complete);
  EXPECT_EQ(at16.result->shown, 16u);
  EXPECT_EQ(at16.result->tied.scores.text.size(), 16u * 16u);
  const SelfScoreSummaryResponse at17 = self_score_summary({"3", "17", "2"});
  ASSERT_TRUE(at17.ok);
  EXPECT_FALSE(at17.result->complete);
  EXPECT_EQ(at17.result->shown, 8u);
  EXPECT_EQ(at17.result->tied.scores.text.size(), 8u * 8u);
}

}  // namespace
}  // namespace qkv::api
