#include "learner/example.hpp"

#include <utility>

#include "response/tensor_names.hpp"
#include "text/format.hpp"
#include "text/template.hpp"

namespace qkv {
namespace {

// Characters, not bytes: a UTF-8 continuation byte does not start one.
std::size_t characters(const std::string& text) {
  std::size_t count = 0;
  for (unsigned char byte : text) count += (byte & 0xC0) != 0x80;
  return count;
}

bool blank(const std::string& text) { return text.find_first_not_of(" \t\r\n") == std::string::npos; }

LessonError example_error(ErrorKind kind, std::string message, std::string field) {
  return LessonError{kind, std::move(message), std::move(field)};
}

std::optional<LessonError> refuse_title(const std::string& title) {
  if (blank(title)) return example_error(ErrorKind::Arguments, "title: the example needs a title", "title");
  if (characters(title) > kMaxExampleTitle)
    return example_error(ErrorKind::Size,
                         fill("title: {0} characters, at most {1}",
                              {std::to_string(characters(title)), std::to_string(kMaxExampleTitle)}),
                         "title");
  return std::nullopt;
}

std::optional<LessonError> refuse_words(const std::vector<std::string>& tokens) {
  const SizeLimit& limit = kSizeLimits[1];
  if (tokens.empty() || tokens.size() > limit.max)
    return example_error(ErrorKind::Size,
                         fill("tokens: {0} words; an example has 1 to {1}",
                              {std::to_string(tokens.size()), std::to_string(limit.max)}),
                         "tokens");
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string where = fill("tokens[{0}]: ", {std::to_string(i)});
    if (blank(tokens[i]))
      return example_error(ErrorKind::Arguments, fill("{0}a token needs a word", {where}), "tokens");
    if (characters(tokens[i]) > kMaxExampleWord)
      return example_error(
          ErrorKind::Size,
          fill("{0}\"{1}\" has {2} characters, at most {3}",
               {where, tokens[i], std::to_string(characters(tokens[i])), std::to_string(kMaxExampleWord)}),
          "tokens");
  }
  return std::nullopt;
}

// "X item 0 has 2 rows, expected 3 (one per word in tokens)".
std::optional<LessonError> refuse_count(std::size_t count, std::size_t expected, const std::string& field,
                                        const std::string& where, const std::string& unit,
                                        const std::string& because) {
  if (count == expected) return std::nullopt;
  return example_error(
      ErrorKind::Size,
      fill("{0}{1} has {2} {3}, expected {4} ({5})",
           {field_label(field), where, std::to_string(count), unit, std::to_string(expected), because}),
      field);
}

std::optional<LessonError> refuse_matrix(const ExampleMatrix& matrix, std::size_t rows, std::size_t columns,
                                         const std::string& field, const std::string& where,
                                         const std::string& rows_because,
                                         const std::string& columns_because) {
  if (auto refused = refuse_count(matrix.size(), rows, field, where, "rows", rows_because)) return refused;
  for (std::size_t r = 0; r < matrix.size(); ++r)
    if (auto refused = refuse_count(matrix[r].size(), columns, field, where + " row " + std::to_string(r),
                                    "numbers", columns_because))
      return refused;
  return std::nullopt;
}

std::optional<LessonError> refuse_batch(const ExampleBatch& batch, std::size_t items, std::size_t tokens,
                                        std::size_t width, const std::string& field,
                                        const std::string& width_because) {
  if (auto refused = refuse_count(batch.size(), items, field, "", "batch items", "as X has")) return refused;
  for (std::size_t b = 0; b < batch.size(); ++b)
    if (auto refused = refuse_matrix(batch[b], tokens, width, field, " item " + std::to_string(b),
                                     "one per word in tokens", width_because))
      return refused;
  return std::nullopt;
}

// "X has 9 batch items, expected 1 to 8".
std::optional<LessonError> refuse_size(std::size_t size, std::size_t min, std::size_t max,
                                       const std::string& field, const std::string& what) {
  if (size >= min && size <= max) return std::nullopt;
  return example_error(
      ErrorKind::Size,
      fill("{0} has {1} {2}, expected {3} to {4}",
           {field_label(field), std::to_string(size), what, std::to_string(min), std::to_string(max)}),
      field);
}

struct ExampleSizes {
  std::size_t batch, tokens, model_width, head_width;
};

// The sizes X and W_Q give, every tensor checked against them.
Result<ExampleSizes, LessonError> read_sizes(const ExampleFile& file) {
  const char* const x = tensor_name<TensorRole::Input>().key;
  const ExampleSizes sizes{file.X.size(), file.tokens.size(),
                           file.X.empty() || file.X[0].empty() ? 0 : file.X[0][0].size(),
                           file.W_Q.empty() ? 0 : file.W_Q[0].size()};
  if (auto refused = refuse_size(sizes.batch, 1, kSizeLimits[0].max, x, "batch items")) return fail(*refused);
  if (auto refused =
          refuse_batch(file.X, sizes.batch, sizes.tokens, sizes.model_width, x, "as X item 0 row 0 has"))
    return fail(*refused);
  if (auto refused = refuse_size(sizes.model_width, 1, kSizeLimits[2].max, x, "numbers per row"))
    return fail(*refused);
  const ExampleMatrix* weights[] = {&file.W_Q, &file.W_K, &file.W_V};
  for (std::size_t i = 0; i < 3; ++i) {
    const char* const field = tensor_name<TensorRole::Weight>(i).key;
    if (auto refused = refuse_matrix(*weights[i], sizes.model_width, sizes.head_width, field, "",
                                     "one per number in a row of X", "as W_Q row 0 has"))
      return fail(*refused);
    if (auto refused = refuse_size(sizes.head_width, 1, kSizeLimits[3].max, field, "numbers per row"))
      return fail(*refused);
  }
  const std::optional<ExampleBatch>* upstreams[] = {&file.U_Q, &file.U_K, &file.U_V};
  for (std::size_t i = 0; i < 3; ++i)
    if (*upstreams[i])
      if (auto refused = refuse_batch(**upstreams[i], sizes.batch, sizes.tokens, sizes.head_width,
                                      tensor_name<TensorRole::Upstream>(i).key, "as a row of W_Q has"))
        return fail(*refused);
  return sizes;
}

std::string cell_text(const NumberOrText& cell) {
  return cell.number ? format_shortest(*cell.number) : cell.text;
}

EditableTensor editable(const Shape& shape, std::vector<std::string> cells) {
  EditableTensor out{shape, std::move(cells), {}};
  out.kept = {shape, out.cells};
  return out;
}

EditableTensor editable_matrix(const ExampleMatrix& matrix, const Shape& shape) {
  std::vector<std::string> cells;
  for (const auto& row : matrix)
    for (const NumberOrText& cell : row) cells.push_back(cell_text(cell));
  return editable(shape, std::move(cells));
}

// An upstream as given, or all ones.
EditableTensor editable_batch(const std::optional<ExampleBatch>& batch, const Shape& shape) {
  if (!batch) return editable(shape, std::vector<std::string>(element_count(shape).value(), "1"));
  std::vector<std::string> cells;
  for (const ExampleMatrix& item : *batch)
    for (const auto& row : item)
      for (const NumberOrText& cell : row) cells.push_back(cell_text(cell));
  return editable(shape, std::move(cells));
}

LessonState state_for(const ExampleFile& file, const ExampleSizes& sizes) {
  const Shape x{sizes.batch, sizes.tokens, sizes.model_width}, w{sizes.model_width, sizes.head_width},
      u{sizes.batch, sizes.tokens, sizes.head_width};
  return LessonState{
      std::to_string(sizes.batch),      std::to_string(sizes.tokens), std::to_string(sizes.model_width),
      std::to_string(sizes.head_width), editable_batch(file.X, x),    editable_matrix(file.W_Q, w),
      editable_matrix(file.W_K, w),     editable_matrix(file.W_V, w), editable_batch(file.U_Q, u),
      editable_batch(file.U_K, u),      editable_batch(file.U_V, u)};
}

}  // namespace

Result<Example, LessonError> read_example(const ExampleFile& file) {
  if (auto refused = refuse_title(file.title)) return fail(*refused);
  if (auto refused = refuse_words(file.tokens)) return fail(*refused);
  auto sizes = read_sizes(file);
  if (!sizes) return fail(sizes.error());
  Example example{file.title, state_for(file, *sizes), file.tokens};
  // Every cell as the core reads a typed one, and the evidence: numbers it refuses are refused here.
  LessonEvaluation evaluation = evaluate_lesson(example.state, false, false);
  if (evaluation.error) return fail(*evaluation.error);
  return example;
}

}  // namespace qkv
