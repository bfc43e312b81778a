// Provenance of computed cells, for the frozen fixture: X = [[1, 2, −1], [0, 1, 2]], W_Q = [[1, 0], [0, 1],
// [1, −1]], W_K = [[0, 1], [1, 0], [−1, 1]], W_V = [[1, 1], [1, −1], [0, 2]], U_Q = [[1, 0], [−1, 2]],
// U_K = [[0.5, −1], [1, 0]], U_V = [[2, 1], [0, −0.5]]. Every expected string was written by hand from
// these numbers (independently of the code), and each right-hand side is the fixture's expected value.
#include "learner/provenance.hpp"

#include <gtest/gtest.h>

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
  EXPECT_EQ(key.sources[0].tensor, "input");
  EXPECT_EQ(key.sources[0].indices, (std::vector<Extent>{2, 5}));
  EXPECT_EQ(key.sources[1].tensor, "key_upstream");
  EXPECT_EQ(key.sources[1].indices, (std::vector<Extent>{1, 3}));
  EXPECT_EQ(explain("value_weight_gradient", 3).expression, "W̄_V[1,1] = 2·1 + 1·(−0.5) = 1.5");
  EXPECT_EQ(explain("query_weight_gradient", 4).expression, "W̄_Q[2,0] = (−1)·1 + 2·(−1) = −3");
}

TEST(Provenance, AnEmptyBatchGivesAnEmptySum) {
  ProjectionRequest request = chapter_fixture();
  request.input = Tensor::zeros({0, 2, 3}).value();
  request.upstream->query = Tensor::zeros({0, 2, 2}).value();
  request.upstream->key = Tensor::zeros({0, 2, 2}).value();
  request.upstream->value = Tensor::zeros({0, 2, 2}).value();
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
