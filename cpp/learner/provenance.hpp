// Where one computed cell comes from: the cells of the inputs it was computed from, and the computation
// written out with the actual numbers ("Q[0,0,1] = 1·0 + 2·1 + (−1)·(−1) = 3"), so that every number on
// the page can explain itself. The right-hand side is always the core's own value for that cell.
#pragma once

#include <string>
#include <vector>

#include "chapter26/chapter26.hpp"

namespace qkv {

// Cells of one tensor, as row-major flat indices. `tensor` is the page's key ("input", "query_weight").
struct SourceCells {
  std::string tensor;
  std::vector<Extent> indices;
};

struct CellProvenance {
  std::string target;                // "Q[0,0,1]"
  std::vector<SourceCells> sources;  // in the order the expression uses them
  std::string expression;            // the sum with every term's numbers, "= " the core's value
  std::string description;           // the same in words: "row b0 t0 of X times column 1 of W_Q"
};

// The computed tensors a cell can be asked about: query, key, value, scores (S[b,i,j] = q_{b,i}·k_{b,j}),
// input_gradient and the three *_weight_gradient. Numbers are written as the page writes them (shortest round
// trip, U+2212 minus); negative factors are parenthesised. Refuses an unknown tensor or an index outside it.
// The writers every sum on the page goes through. One factor: "2", "(−1)" (negative ones in parentheses).
std::string written_factor(double value);
// "a·b + c·d + …" over the pairs (left[i], right[i]); "(empty sum)" for none.
std::string written_products(const std::vector<double>& left, const std::vector<double>& right);

// `evidence` needs the forward, the scores and the gradients of `request` (no gradcheck: provenance runs for
// every cell a learner focuses, and the check adds nothing to any cell's sum).
Result<CellProvenance, LessonError> cell_provenance(const ProjectionRequest& request,
                                                    const ProjectionEvidence& evidence,
                                                    const std::string& tensor, Extent index);
// The same, from the chapter's whole evidence.
Result<CellProvenance, LessonError> cell_provenance(const ChapterEvidence& evidence,
                                                    const std::string& tensor, Extent index);

}  // namespace qkv
