// The editable lesson: sizes and cells as typed, read with the one reader, conformed to the sizes with
// nothing lost, and one typed error naming the field and cell.
#include "learner/editable_state.hpp"

#include <gtest/gtest.h>

namespace qkv {
namespace {

const std::string kMinus = "\xE2\x88\x92";

TEST(EditableState, TheFixtureEvaluatesToTheChapterEvidence) {
  const LessonEvaluation evaluation = evaluate_lesson(fixture_state());
  ASSERT_TRUE(evaluation.evidence) << evaluation.error->message;
  EXPECT_EQ(evaluation.evidence->primary.query.values(), (std::vector<double>{0, 3, 2, -1}));
  EXPECT_TRUE(evaluation.notes.empty());
}

TEST(EditableState, CellsAreReadWithTheOneReader) {
  LessonState state = fixture_state();
  state.input.cells[2] = kMinus + "1";  // the page's own minus sign
  state.input.cells[3] = "0/2";
  const LessonEvaluation evaluation = evaluate_lesson(state);
  ASSERT_TRUE(evaluation.evidence) << evaluation.error->message;
  EXPECT_EQ(evaluation.evidence->primary.query.values(), (std::vector<double>{0, 3, 2, -1}));
}

TEST(EditableState, AnUnreadableCellIsATypedErrorNamingItsFieldAndCell) {
  LessonState state = fixture_state();
  state.key_weight.cells[4] = "abc";
  const LessonEvaluation evaluation = evaluate_lesson(state);
  ASSERT_TRUE(evaluation.error);
  EXPECT_EQ(evaluation.error->kind, ErrorKind::Number);
  EXPECT_EQ(evaluation.error->field, "key_weight");
  EXPECT_EQ(evaluation.error->index, 4);
  EXPECT_EQ(evaluation.error->message,
            "\"abc\" is not read: expected a number such as " + kMinus + "1.5, 3/2 or 2e-3");
  EXPECT_EQ(field_label(evaluation.error->field), "W_K");  // the sentence: lesson_api_test
  EXPECT_FALSE(evaluation.evidence);
}

TEST(EditableState, SizesSayWhatEachAccepts) {
  LessonState state = fixture_state();
  state.model_width = "9";
  LessonEvaluation evaluation = evaluate_lesson(state);
  ASSERT_TRUE(evaluation.error);
  EXPECT_EQ(evaluation.error->kind, ErrorKind::Size);
  EXPECT_EQ(evaluation.error->field, "model_width");
  EXPECT_EQ(evaluation.error->message,
            "Model width d_model: \"9\" is not read: expected a whole number from 1 to 8");
  state.model_width = "0";
  EXPECT_EQ(evaluate_lesson(state).error->message,
            "Model width d_model: \"0\" is not read: expected a whole number from 1 to 8");
  state = fixture_state();
  state.tokens = "0";
  evaluation = evaluate_lesson(state);
  ASSERT_TRUE(evaluation.evidence) << evaluation.error->message;
  EXPECT_EQ(evaluation.state.input.shape, (Shape{1, 0, 3}));
}

TEST(EditableState, ShrinkingToZeroAndBackRestoresEveryNumber) {
  const LessonState fixture = fixture_state();
  for (std::string LessonState::*size : {&LessonState::batch, &LessonState::tokens}) {
    LessonState state = fixture;
    state.*size = "0";
    LessonEvaluation shrunk = evaluate_lesson(state);
    ASSERT_TRUE(shrunk.evidence);
    EXPECT_TRUE(shrunk.state.input.cells.empty());
    LessonState grown = shrunk.state;
    grown.*size = fixture.*size;
    const LessonEvaluation back = evaluate_lesson(grown);
    ASSERT_TRUE(back.evidence);
    EXPECT_EQ(back.state.input.cells, fixture.input.cells);
    EXPECT_EQ(back.state.query_upstream.cells, fixture.query_upstream.cells);
    EXPECT_EQ(back.evidence->primary.gradients->loss,
              evaluate_lesson(fixture).evidence->primary.gradients->loss);
  }
}

TEST(EditableState, GrowingKeepsCellsAtTheirIndexAndFillsNewOnesWithZero) {
  LessonState state = fixture_state();
  state.head_width = "3";
  const LessonEvaluation grown = evaluate_lesson(state);
  ASSERT_TRUE(grown.evidence) << grown.error->message;
  EXPECT_EQ(grown.state.query_weight.cells,
            (std::vector<std::string>{"1", "0", "0", "0", "1", "0", "1", "-1", "0"}));
}

TEST(EditableState, LinkValuesThatDoNotFitAreReportedNotSilentlyZeroed) {
  LessonState state = fixture_state();
  state.input = EditableTensor{{}, {"1", "2", "3"}, {}};  // ?x=1,2,3 where [1, 2, 3] needs 6
  const LessonEvaluation evaluation = evaluate_lesson(state);
  ASSERT_TRUE(evaluation.evidence);
  ASSERT_EQ(evaluation.notes.size(), 1u);
  EXPECT_EQ(evaluation.notes[0],
            "The link gave 3 numbers for X, which needs 6 numbers at [1, 2, 3]; the missing ones are 0.");
  EXPECT_EQ(evaluation.state.input.cells, (std::vector<std::string>{"1", "2", "3", "0", "0", "0"}));
}

// Issue 18: a kept shape of [1e9, 1, 1] stopped the core (std::abort, a RuntimeError in WebAssembly), and
// one just under 2^26 cells took 30 s and 1.6 GB. Every shape the page sends back is checked against the
// size limits before any cell is visited.
TEST(EditableState, AShapeOutsideTheSizeLimitsIsRefusedBeforeAnyCellIsVisited) {
  const std::string limits =
      " is not accepted: expected [] or 3 axes within the size limits [8, 8, 8], at most 512 numbers";
  const struct {
    Shape shape;
    std::string message;
  } cases[] = {
      {{1000000000, 1, 1}, "X: kept shape [1000000000, 1, 1]" + limits},
      {{64, 64, 64, 64}, "X: kept shape [64, 64, 64, 64]" + limits},
      {{8, 8, 9}, "X: kept shape [8, 8, 9]" + limits},                    // just over
      {{1, 1 << 13, 1 << 13}, "X: kept shape [1, 8192, 8192]" + limits},  // just under 2^26 cells
      {{8, 64}, "X: kept shape [8, 64]" + limits},                        // 512 numbers, but not X's axes
  };
  for (const auto& entry : cases) {
    LessonState state = fixture_state();
    state.batch = "2";  // a new size, so that the kept cells are merged in
    state.input.kept = EditableCells{entry.shape, {"1"}};
    const LessonEvaluation evaluation = evaluate_lesson(state);
    ASSERT_TRUE(evaluation.error) << entry.message;
    EXPECT_EQ(evaluation.error->kind, ErrorKind::Size);
    EXPECT_EQ(evaluation.error->field, "input");
    EXPECT_EQ(evaluation.error->message, entry.message);
    EXPECT_EQ(field_label(evaluation.error->field), "X");
    EXPECT_FALSE(evaluation.evidence);
  }
  // A tensor's own shape, and the weights' limits.
  LessonState state = fixture_state();
  state.key_weight.shape = {1000000000, 2};
  EXPECT_EQ(
      evaluate_lesson(state).error->message,
      "W_K: shape [1000000000, 2] is not accepted: expected [] or 2 axes within the size limits [8, 8], "
      "at most 64 numbers");
  state = fixture_state();
  state.value_upstream.kept.shape = {9, 1, 1};
  EXPECT_EQ(
      evaluate_lesson(state).error->message,
      "U_V: kept shape [9, 1, 1] is not accepted: expected [] or 3 axes within the size limits [8, 8, 8], "
      "at most 512 numbers");
}

TEST(EditableState, KeptCellsAtTheSizeLimitsComeBack) {
  LessonState state = fixture_state();
  state.input.kept = EditableCells{{8, 8, 8}, std::vector<std::string>(512, "5")};
  state.batch = state.tokens = state.model_width = "8";
  const LessonEvaluation evaluation = evaluate_lesson(state);
  ASSERT_TRUE(evaluation.evidence) << evaluation.error->message;
  EXPECT_EQ(evaluation.state.input.kept.shape, (Shape{8, 8, 8}));
  EXPECT_EQ(evaluation.state.input.cells[0], fixture_state().input.cells[0]);
  EXPECT_EQ(evaluation.state.input.cells[511], "5");
}

}  // namespace
}  // namespace qkv
