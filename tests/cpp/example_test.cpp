// An author's example file: an accepted one becomes the state and words it says, and every problem the
// reader checks is refused with its kind, field and exact message (docs/examples.md lists them).
#include "learner/example.hpp"

#include <gtest/gtest.h>

#include <string>

namespace qkv {
namespace {

NumberOrText n(double value) { return {value, {}}; }
NumberOrText t(const std::string& text) { return {std::nullopt, text}; }

// Two tokens, d_model 2, d_head 2: a valid file that each test breaks in one place.
ExampleFile valid() {
  ExampleFile file;
  file.title = "Cats sleep";
  file.tokens = {"cats", "sleep"};
  file.X = {{{n(1), n(0)}, {n(0), t("0.1")}}};
  file.W_Q = {{n(1), n(0)}, {n(0), n(1)}};
  file.W_K = {{n(0.5), n(0)}, {n(0), n(2)}};
  file.W_V = {{n(1), n(1)}, {n(-1), n(0)}};
  return file;
}

void expect_refused(const ExampleFile& file, ErrorKind kind, const std::string& field,
                    const std::string& message) {
  auto read = read_example(file);
  ASSERT_FALSE(read) << "accepted, expected: " << message;
  EXPECT_EQ(read.error().kind, kind);
  EXPECT_EQ(read.error().field, field);
  EXPECT_EQ(read.error().message, message);
}

TEST(Example, AcceptedFileGivesItsStateAndWords) {
  auto read = read_example(valid());
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->title, "Cats sleep");
  EXPECT_EQ(read->token_names, (std::vector<std::string>{"cats", "sleep"}));
  EXPECT_EQ(read->state.batch, "1");
  EXPECT_EQ(read->state.tokens, "2");
  EXPECT_EQ(read->state.model_width, "2");
  EXPECT_EQ(read->state.head_width, "2");
  EXPECT_EQ(read->state.input.shape, (Shape{1, 2, 2}));
  // Numbers written shortest; text kept as the author typed it.
  EXPECT_EQ(read->state.input.cells, (std::vector<std::string>{"1", "0", "0", "0.1"}));
  EXPECT_EQ(read->state.key_weight.cells, (std::vector<std::string>{"0.5", "0", "0", "2"}));
  // Without upstreams, each is all ones.
  EXPECT_EQ(read->state.value_upstream.cells, (std::vector<std::string>(4, "1")));
}

TEST(Example, UpstreamsAreTakenWhenGiven) {
  ExampleFile file = valid();
  file.U_K = ExampleBatch{{{n(2), n(0)}, {n(0), n(-1)}}};
  auto read = read_example(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->state.key_upstream.cells, (std::vector<std::string>{"2", "0", "0", "-1"}));
  EXPECT_EQ(read->state.query_upstream.cells, (std::vector<std::string>(4, "1")));
}

TEST(Example, RefusesAMissingOrLongTitle) {
  ExampleFile file = valid();
  file.title = "  ";
  expect_refused(file, ErrorKind::Arguments, "title", "title: the example needs a title");
  file.title = std::string(81, 'a');
  expect_refused(file, ErrorKind::Size, "title", "title: 81 characters, at most 80");
  file.title = std::string(40, 'a') + std::string(40, 'x');
  EXPECT_TRUE(read_example(file));
}

TEST(Example, RefusesMissingTooManyOrLongWords) {
  ExampleFile file = valid();
  file.tokens = {};
  expect_refused(file, ErrorKind::Size, "tokens", "tokens: 0 words; an example has 1 to 8");
  file.tokens = std::vector<std::string>(9, "a");
  expect_refused(file, ErrorKind::Size, "tokens", "tokens: 9 words; an example has 1 to 8");
  file.tokens = {"cats", ""};
  expect_refused(file, ErrorKind::Arguments, "tokens", "tokens[1]: a token needs a word");
  file.tokens = {"cats", "überlangeswörterbuch"};  // 20 characters, more bytes
  expect_refused(file, ErrorKind::Size, "tokens",
                 "tokens[1]: \"überlangeswörterbuch\" has 20 characters, at most 16");
}

TEST(Example, RefusesXThatDoesNotFitTheWords) {
  ExampleFile file = valid();
  file.X = {};
  expect_refused(file, ErrorKind::Size, "input", "X has 0 batch items, expected 1 to 8");
  file = valid();
  file.tokens = {"cats", "sleep", "here"};
  expect_refused(file, ErrorKind::Size, "input", "X item 0 has 2 rows, expected 3 (one per word in tokens)");
  file = valid();
  file.X[0][1].push_back(n(3));
  expect_refused(file, ErrorKind::Size, "input",
                 "X item 0 row 1 has 3 numbers, expected 2 (as X item 0 row 0 has)");
  file = valid();
  for (auto& row : file.X[0]) row.resize(9, n(0));
  expect_refused(file, ErrorKind::Size, "input", "X has 9 numbers per row, expected 1 to 8");
}

TEST(Example, RefusesWeightsThatDoNotFitX) {
  ExampleFile file = valid();
  file.W_K.pop_back();
  expect_refused(file, ErrorKind::Size, "key_weight",
                 "W_K has 1 rows, expected 2 (one per number in a row of X)");
  file = valid();
  file.W_V[1].push_back(n(1));
  expect_refused(file, ErrorKind::Size, "value_weight",
                 "W_V row 1 has 3 numbers, expected 2 (as W_Q row 0 has)");
  file = valid();
  for (auto* weights : {&file.W_Q, &file.W_K, &file.W_V})
    for (auto& row : *weights) row.resize(9, n(0));
  expect_refused(file, ErrorKind::Size, "query_weight", "W_Q has 9 numbers per row, expected 1 to 8");
}

TEST(Example, RefusesAnUpstreamThatDoesNotFit) {
  ExampleFile file = valid();
  file.U_V = ExampleBatch{{{n(1), n(1)}}};
  expect_refused(file, ErrorKind::Size, "value_upstream",
                 "U_V item 0 has 1 rows, expected 2 (one per word in tokens)");
}

TEST(Example, RefusesNumbersTheCoreRefuses) {
  ExampleFile file = valid();
  file.W_Q[1][0] = t("two");
  auto read = read_example(file);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, ErrorKind::Number);
  EXPECT_EQ(read.error().field, "query_weight");
  EXPECT_EQ(read.error().index, 2);
  EXPECT_EQ(read.error().message, "\"two\" is not read: expected a number such as −1.5, 3/2 or 2e-3");
}

}  // namespace
}  // namespace qkv
