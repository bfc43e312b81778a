// Provenance of computed cells, for the frozen fixture: X = [[1, 2, −1], [0, 1, 2]], W_Q = [[1, 0], [0, 1],
// [1, −1]], W_K = [[0, 1], [1, 0], [−1, 1]], W_V = [[1, 1], [1, −1], [0, 2]], U_Q = [[1, 0], [−1, 2]],
// U_K = [[0.5, −1], [1, 0]], U_V = [[2, 1], [0, −0.5]]. Every expected string was written by hand from
// these numbers (independently of the code), and each right-hand side is the fixture's expected value.
#include "learner/provenance.hpp"

#include <gtest/gtest.h>

#include "fixture.hpp"

namespace qkv {
namespace {

const ChapterEvidence& fixture() {
  static const ChapterEvidence evidence = compute_chapter_evidence(chapter_fixture()).value();
  return evidence;
}

CellProvenance explain(const std::string& tensor, Extent index) {
  auto cell = cell_provenance(fixture(), tensor, index);
  EXPECT_TRUE(cell) << tensor << "[" << index << "]: " << (cell ? "" : cell.error().message);
  return cell ? *cell : CellProvenance{};
}

TEST(Provenance, QueryCellIsARowOfXTimesAColumnOfTheWeight) {
  const CellProvenance cell = explain("query", 1);
  EXPECT_EQ(cell.target, "Q[0,0,1]");
  EXPECT_EQ(cell.expression, "Q[0,0,1] = 1·0 + 2·1 + (−1)·(−1) = 3");
  EXPECT_EQ(cell.description, "Row b0 t0 of X times column 1 of W_Q.");
  ASSERT_EQ(cell.sources.size(), 2u);
  EXPECT_EQ(cell.sources[0].tensor, "input");
  EXPECT_EQ(cell.sources[0].indices, (std::vector<Extent>{0, 1, 2}));
  EXPECT_EQ(cell.sources[1].tensor, "query_weight");
  EXPECT_EQ(cell.sources[1].indices, (std::vector<Extent>{1, 3, 5}));
}

TEST(Provenance, KeyAndValueCellsUseTheirOwnWeights) {
  EXPECT_EQ(explain("key", 2).expression, "K[0,1,0] = 0·0 + 1·1 + 2·(−1) = −1");
  const CellProvenance value = explain("value", 3);
  EXPECT_EQ(value.expression, "V[0,1,1] = 0·1 + 1·(−1) + 2·2 = 3");
  EXPECT_EQ(value.sources[0].indices, (std::vector<Extent>{3, 4, 5}));
  EXPECT_EQ(value.sources[1].tensor, "value_weight");
}

TEST(Provenance, InputGradientCellAddsThreePaths) {
  const CellProvenance cell = explain("input_gradient", 0);
  EXPECT_EQ(cell.expression, "X̄[0,0,0] = (1·1 + 0·0) + (0.5·0 + (−1)·1) + (2·1 + 1·1) = 3");
  ASSERT_EQ(cell.sources.size(), 6u);
  const char* tensors[] = {"query_upstream", "query_weight",   "key_upstream",
                           "key_weight",     "value_upstream", "value_weight"};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(cell.sources[i].tensor, tensors[i]);
    EXPECT_EQ(cell.sources[i].indices, (std::vector<Extent>{0, 1})) << tensors[i];
  }
  EXPECT_EQ(explain("input_gradient", 5).expression,
            "X̄[0,1,2] = ((−1)·1 + 2·(−1)) + (1·(−1) + 0·1) + (0·0 + (−0.5)·2) = −5");
}

TEST(Provenance, WeightGradientCellSumsOverTheRows) {
  const CellProvenance key = explain("key_weight_gradient", 5);
  EXPECT_EQ(key.target, "W̄_K[2,1]");
  EXPECT_EQ(key.expression, "W̄_K[2,1] = (−1)·(−1) + 2·0 = 1");
  EXPECT_EQ(key.description,
            "Column 2 of X dotted with column 1 of U_K: one product per batch item and token, summed.");
  EXPECT_EQ(key.sources[0].tensor, "input");
  EXPECT_EQ(key.sources[0].indices, (std::vector<Extent>{2, 5}));
  EXPECT_EQ(key.sources[1].tensor, "key_upstream");
  EXPECT_EQ(key.sources[1].indices, (std::vector<Extent>{1, 3}));
  EXPECT_EQ(explain("value_weight_gradient", 3).expression, "W̄_V[1,1] = 2·1 + 1·(−0.5) = 1.5");
  EXPECT_EQ(explain("query_weight_gradient", 4).expression, "W̄_Q[2,0] = (−1)·1 + 2·(−1) = −3");
}

TEST(Provenance, EachScoreIsAQueryRowDottedWithAKeyRow) {
  // Q = [[0, 3], [2, −1]], K = [[3, 0], [−1, 2]]: S[0,i,j] = q_i · k_j, raw (not scaled).
  const struct {
    Extent index;
    const char* target;
    const char* expression;
    std::vector<Extent> query, key;
    const char* description;
  } cells[] = {
      {0,
       "S[0,0,0]",
       "S[0,0,0] = 0·3 + 3·0 = 0",
       {0, 1},
       {0, 1},
       "Query of token 0 (row b0 t0 of Q) dotted with key of token 0 (row b0 t0 of K)."},
      {1,
       "S[0,0,1]",
       "S[0,0,1] = 0·(−1) + 3·2 = 6",
       {0, 1},
       {2, 3},
       "Query of token 0 (row b0 t0 of Q) dotted with key of token 1 (row b0 t1 of K)."},
      {2,
       "S[0,1,0]",
       "S[0,1,0] = 2·3 + (−1)·0 = 6",
       {2, 3},
       {0, 1},
       "Query of token 1 (row b0 t1 of Q) dotted with key of token 0 (row b0 t0 of K)."},
      {3,
       "S[0,1,1]",
       "S[0,1,1] = 2·(−1) + (−1)·2 = −4",
       {2, 3},
       {2, 3},
       "Query of token 1 (row b0 t1 of Q) dotted with key of token 1 (row b0 t1 of K)."},
  };
  for (const auto& expected : cells) {
    const CellProvenance cell = explain("scores", expected.index);
    EXPECT_EQ(cell.target, expected.target);
    EXPECT_EQ(cell.expression, expected.expression);
    EXPECT_EQ(cell.description, expected.description);
    ASSERT_EQ(cell.sources.size(), 2u) << expected.target;
    EXPECT_EQ(cell.sources[0].tensor, "query");
    EXPECT_EQ(cell.sources[0].indices, expected.query) << expected.target;
    EXPECT_EQ(cell.sources[1].tensor, "key");
    EXPECT_EQ(cell.sources[1].indices, expected.key) << expected.target;
  }
  auto outside = cell_provenance(fixture(), "scores", 4);
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error().message, "scores has 4 cells, so cell 4 does not exist");
}

TEST(Provenance, ScoresFollowTheShapeAtTwoBatchItemsOfThreeTokens) {
  // X [2, 3, 3]: batch 1 holds x₀ = [2, 0, 0] and x₂ = [1, 2, 3], so q_{1,2} = x₂ W_Q = [4, −1] and
  // k_{1,0} = x₀ W_K = [0, 2]: S[1,2,0] = 4·0 + (−1)·2 = −2 (worked by hand).
  const ProjectionRequest request = test::with_input(chapter_fixture(), test::two_items_of_three_tokens());
  const ChapterEvidence evidence = compute_chapter_evidence(request).value();
  EXPECT_EQ(evidence.primary.scores.shape(), (Shape{2, 3, 3}));
  auto cell = cell_provenance(evidence, "scores", 1 * 9 + 2 * 3 + 0);
  ASSERT_TRUE(cell) << cell.error().message;
  EXPECT_EQ(cell->target, "S[1,2,0]");
  EXPECT_EQ(cell->expression, "S[1,2,0] = 4·0 + (−1)·2 = −2");
  EXPECT_EQ(cell->description,
            "Query of token 2 (row b1 t2 of Q) dotted with key of token 0 (row b1 t0 of K).");
  EXPECT_EQ(cell->sources[0].indices, (std::vector<Extent>{10, 11}));
  EXPECT_EQ(cell->sources[1].indices, (std::vector<Extent>{6, 7}));
  EXPECT_FALSE(cell_provenance(evidence, "scores", 18));
}

TEST(Provenance, OnlyTheForwardProductsPairXWithAWeightColumn) {
  // Q, K and V take a row of X times a column of the weight; no gradient's description says so.
  EXPECT_NE(explain("key", 2).description.find("of X times column 0 of W_K"), std::string::npos);
  for (const char* tensor : {"input_gradient", "query_weight_gradient", "key_weight_gradient",
                             "value_weight_gradient", "scores"}) {
    const std::string description = explain(tensor, 0).description;
    EXPECT_EQ(description.find("X times column"), std::string::npos) << tensor << ": " << description;
    EXPECT_EQ(description.find("column 0 of W_"), std::string::npos) << tensor << ": " << description;
  }
}

TEST(Provenance, AnEmptyBatchGivesAnEmptySum) {
  const ProjectionRequest request = test::with_input(chapter_fixture(), Tensor::zeros({0, 2, 3}).value());
  const ChapterEvidence evidence = compute_chapter_evidence(request).value();
  auto cell = cell_provenance(evidence, "query_weight_gradient", 0);
  ASSERT_TRUE(cell);
  EXPECT_EQ(cell->expression, "W̄_Q[0,0] = (empty sum) = 0");
  EXPECT_TRUE(cell->sources[0].indices.empty());
}

TEST(Provenance, RefusesUnknownTensorsAndCellsOutside) {
  auto outside = cell_provenance(fixture(), "query", 4);
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error().message, "query has 4 cells, so cell 4 does not exist");
  auto input = cell_provenance(fixture(), "input", 0);
  ASSERT_FALSE(input);
  EXPECT_EQ(input.error().field, "tensor");
}

}  // namespace
}  // namespace qkv
