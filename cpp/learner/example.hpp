// An author's own example (docs/examples.md): a title, the tokens' words, X and the weights as an author
// writes them, checked and turned into a state the page loads like a `state=` link's, or refused with the
// first problem found, named by its field and cell, in the core's usual kinds and words.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "learner/editable_state.hpp"
#include "response/fields.hpp"

namespace qkv {

using api::NumberOrText;
using ExampleMatrix = std::vector<std::vector<NumberOrText>>;  // [rows][columns]
using ExampleBatch = std::vector<ExampleMatrix>;               // [batch][tokens][width]

inline constexpr std::size_t kMaxExampleTitle = 80;  // characters: a heading on a phone
inline constexpr std::size_t kMaxExampleWord = 16;   // characters: a table's column head

// The file's fields, as JSON names them. Without upstreams, each is all ones (the gradient of the sum of
// that output's cells).
struct ExampleFile {
  std::string title;
  std::vector<std::string> tokens;            // [T]
  ExampleBatch X;                             // [B][T][d_model]
  ExampleMatrix W_Q, W_K, W_V;                // [d_model][d_head]
  std::optional<ExampleBatch> U_Q, U_K, U_V;  // [B][T][d_head]
};

struct Example {
  std::string title;
  LessonState state;
  std::vector<std::string> token_names;  // [T]
};

// Checks, in order: the title, the words, the sizes (X's batch, tokens and width against the words and
// the size limits; each weight and upstream against them), then every cell as the core reads a typed one,
// then the evidence for the whole state. The first problem is the error.
Result<Example, LessonError> read_example(const ExampleFile& file);

}  // namespace qkv
