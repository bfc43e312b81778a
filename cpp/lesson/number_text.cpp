#include "lesson/number_text.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace qkv {
namespace {

std::string trimmed(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The decimal grammar, checked before strtod so that strtod's extras (inf, nan, hex) never get in.
bool is_decimal(const std::string& s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exponent_digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == s.size();
}

}  // namespace

Result<double, std::string> parse_decimal(const std::string& text) {
  const std::string s = trimmed(text);
  if (s.empty()) return fail(std::string("enter a number"));
  if (!is_decimal(s)) return fail("\"" + s + "\" is not a decimal number");
  const double value = std::strtod(s.c_str(), nullptr);
  if (!std::isfinite(value)) return fail("\"" + s + "\" is too large to be a finite number");
  return value;
}

Result<Extent, std::string> parse_extent(const std::string& text, const std::string& name, Extent max) {
  const std::string s = trimmed(text);
  const auto bad = [&] {
    return fail(name + " must be a whole number from 0 to " + std::to_string(max) + ", got \"" + s + "\"");
  };
  if (s.empty() || s.size() > 9) return bad();
  Extent value = 0;
  for (char c : s) {
    if (!is_digit(c)) return bad();
    value = value * 10 + static_cast<Extent>(c - '0');
  }
  if (value > max) return bad();
  return value;
}

Result<Shape, std::string> parse_shape(const std::string& text) {
  Shape shape;
  std::string digits;
  const auto flush = [&]() -> bool {
    if (digits.empty()) return true;  // separators in a row, or around brackets
    if (digits.size() > 9) return false;
    shape.push_back(std::stoull(digits));
    digits.clear();
    return true;
  };
  for (char c : trimmed(text)) {
    if (is_digit(c)) {
      digits += c;
    } else if (c == ',' || c == 'x' || c == 'X' || c == ' ' || c == '[' || c == ']' || c == '(' || c == ')') {
      if (!flush()) return fail("\"" + text + "\" is not a shape such as [4,7,2]");
    } else {
      return fail("\"" + text + "\" is not a shape such as [4,7,2]");
    }
  }
  if (!flush() || shape.empty()) return fail("\"" + text + "\" is not a shape such as [4,7,2]");
  return shape;
}

Result<std::vector<double>, std::string> parse_vector(const std::string& text) {
  std::vector<double> values;
  std::string item;
  const auto flush = [&]() -> std::optional<std::string> {
    if (item.empty()) return std::nullopt;
    auto value = parse_decimal(item);
    item.clear();
    if (!value) return value.error();
    values.push_back(*value);
    return std::nullopt;
  };
  for (char c : text) {
    if (c == ',' || c == ' ' || c == '[' || c == ']' || c == '(' || c == ')' || c == ';') {
      if (auto problem = flush()) return fail(*problem);
    } else {
      item += c;
    }
  }
  if (auto problem = flush()) return fail(*problem);
  if (values.empty()) return fail(std::string("enter numbers such as [0, 3]"));
  return values;
}

}  // namespace qkv
