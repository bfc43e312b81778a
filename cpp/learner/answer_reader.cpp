#include "learner/answer_reader.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

#include "support/decimal.hpp"
#include "text/format.hpp"

namespace qkv {
namespace {

constexpr const char* kNumberExpected = "a number such as −1.5, 3/2 or 2e-3";
// Read, but past what a double holds ("1e999", "1e300/1e-300"): the message names the limit, not the form.
constexpr const char* kFiniteExpected = "a number between −1.8e308 and 1.8e308 (the range of a double)";
constexpr const char* kDenominatorExpected = "a fraction whose denominator is not 0";
constexpr const char* kShapeExpected = "a shape such as [4, 7, 2] or 4 × 7 × 2";
constexpr const char* kVectorExpected = "numbers such as [−1, 1.5]";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string trimmed(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && is_space(text[begin])) ++begin;
  while (end > begin && is_space(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

// The page writes "−" (U+2212) and "×" (U+00D7); the grammar below speaks ASCII.
std::string ascii_signs(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "\xE2\x88\x92") == 0) {
      out += '-';
      i += 2;
    } else if (text.compare(i, 2, "\xC3\x97") == 0) {
      out += 'x';
      i += 1;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The value of a decimal (parse_decimal's grammar, which keeps out what strtod or JavaScript's Number()
// would also take: inf, nan, hex, "Infinity", "2e"), ±infinity when it is past a double's range
// (read_number refuses those).
std::optional<double> decimal(const std::string& text) { return parse_decimal(trimmed(text)); }

Failure<ReadError> not_read(const std::string& typed, std::string expected) {
  return fail(ReadError{shortened(trimmed(typed)), std::move(expected)});
}

// "[a, b]" or "(a, b)" without its brackets; a lone or mismatched bracket stays and is refused later.
std::string unbracketed(const std::string& text) {
  const std::string s = trimmed(text);
  if (s.size() >= 2 && ((s.front() == '[' && s.back() == ']') || (s.front() == '(' && s.back() == ')')))
    return s.substr(1, s.size() - 2);
  return s;
}

// Splits at any of `separators` (and spaces); empty items between separators are skipped.
std::vector<std::string> items(const std::string& text, const std::string& separators) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (is_space(c) || separators.find(c) != std::string::npos) {
      if (!out.back().empty()) out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

}  // namespace

std::string ReadError::message() const {
  if (typed.empty()) return "nothing typed: expected " + expected;
  return "\"" + typed + "\" is not read: expected " + expected;
}

Result<double, ReadError> read_number(const std::string& text) {
  const std::string s = ascii_signs(trimmed(text));
  const std::size_t slash = s.find('/');
  const auto numerator = decimal(s.substr(0, slash));
  const auto denominator =
      slash == std::string::npos ? std::optional<double>(1.0) : decimal(s.substr(slash + 1));
  if (!numerator || !denominator) return not_read(text, kNumberExpected);
  if (*denominator == 0.0) return not_read(text, kDenominatorExpected);
  // A part past a double's range is refused as such, even where the quotient would be finite (2/1e999).
  if (!std::isfinite(*numerator) || !std::isfinite(*denominator)) return not_read(text, kFiniteExpected);
  const double value = *numerator / *denominator;
  if (!std::isfinite(value)) return not_read(text, kFiniteExpected);
  return value;
}

// "3×3×2" as a count: every factor a whole number, written the way a shape is; the product in range.
static Result<Extent, ReadError> read_product(const std::string& text, Extent min, Extent max,
                                              const std::string& expected) {
  const std::vector<std::string> factors = items(ascii_signs(text), "xX*");
  if (factors.size() < 2) return not_read(text, expected);
  double product = 1.0;
  for (const std::string& factor : factors) {
    if (factor.find('/') != std::string::npos) return not_read(text, expected);
    auto extent = read_count(factor, 0, max);
    if (!extent) return not_read(text, expected);
    product *= static_cast<double>(*extent);
  }
  if (product < static_cast<double>(min) || product > static_cast<double>(max))
    return not_read(text, expected);
  return static_cast<Extent>(product);
}

Result<Extent, ReadError> read_count(const std::string& text, Extent min, Extent max,
                                     std::optional<Extent> question_total) {
  const std::string expected = "a whole number from " + format_count(min) + " to " + format_count(max);
  if (ascii_signs(text).find_first_of("xX*") != std::string::npos)
    return read_product(text, min, max, expected);
  // A count out of a total, the page's own "2 of 5" and the usual "2 out of 5", "2/5": the count is the
  // first number, never a quotient. The total must be a whole number at least as large as the count.
  std::vector<std::string> words = items(text, "");
  const std::size_t slash = text.find('/');
  if (slash != std::string::npos) {
    const std::vector<std::string> count = items(text.substr(0, slash), "");
    const std::vector<std::string> total = items(text.substr(slash + 1), "");
    if (count.size() != 1 || total.size() != 1) return not_read(text, expected);
    words = {count[0], "of", total[0]};
  }
  const auto is_word = [](const std::string& word, const char* lower) {
    if (word.size() != std::char_traits<char>::length(lower)) return false;
    for (std::size_t i = 0; i < word.size(); ++i)
      if ((word[i] >= 'A' && word[i] <= 'Z' ? word[i] - 'A' + 'a' : word[i]) != lower[i]) return false;
    return true;
  };
  if (words.size() == 4 && is_word(words[1], "out") && is_word(words[2], "of"))
    words.erase(words.begin() + 1);
  std::optional<double> total;
  if (words.size() == 3 && is_word(words[1], "of")) {
    const auto read = read_number(words[2]);
    if (!read || words[2].find('/') != std::string::npos || std::trunc(*read) != *read || *read < 0)
      return not_read(text, expected);
    total = *read;
    words.resize(1);
    if (question_total && *total != static_cast<double>(*question_total))
      return not_read(text, "a count out of the question's " + format_count(*question_total) +
                                ", such as 2 or 2 of " + format_count(*question_total));
  }
  if (words.size() != 1) return not_read(text, expected);
  const auto number = read_number(words[0]);
  if (!number || words[0].find('/') != std::string::npos || std::trunc(*number) != *number ||
      *number < static_cast<double>(min) || *number > static_cast<double>(max) || (total && *number > *total))
    return not_read(text, expected);
  return static_cast<Extent>(*number);
}

Result<Shape, ReadError> read_shape(const std::string& text) {
  Shape shape;
  for (const std::string& item : items(unbracketed(ascii_signs(text)), ",;xX*")) {
    auto extent = read_count(item, 0, kMaxElements);
    if (!extent) return not_read(text, kShapeExpected);
    shape.push_back(*extent);
  }
  if (shape.empty()) return not_read(text, kShapeExpected);
  return shape;
}

Result<std::vector<double>, ReadError> read_vector(const std::string& text) {
  std::vector<double> values;
  for (const std::string& item : items(unbracketed(text), ",;")) {
    auto value = read_number(item);
    if (!value) return not_read(text, kVectorExpected);
    values.push_back(*value);
  }
  if (values.empty()) return not_read(text, kVectorExpected);
  return values;
}

}  // namespace qkv
