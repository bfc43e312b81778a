#include "text/format.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "support/decimal.hpp"

namespace qkv {

std::string format_fixed(double value, int digits) {
  char buffer[400];  // %.6f of the largest double needs 316 characters
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string format_fixed6(double value) { return format_fixed(value, 6); }

std::string format_vector6(const std::vector<double>& values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ",";
    text += format_fixed6(values[i]);
  }
  return text + "]";
}

std::string format_significant17(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string format_significant(double value, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  std::string out = buffer;
  const std::size_t e = out.find('e');
  if (e == std::string::npos) return out;
  std::string exponent = out.substr(e + 1);
  const bool negative = exponent[0] == '-';
  exponent.erase(0, 1);
  while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
  return out.substr(0, e) + "e" + (negative ? "-" : "") + exponent;
}

std::string shape_text(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string rows_text(const std::vector<std::size_t>& rows) {
  if (rows.empty()) return "none";
  std::string out = rows.size() == 1 ? "row " : "rows ";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += i + 1 == rows.size() ? " and " : ", ";
    out += std::to_string(rows[i]);
  }
  return out;
}

std::string format_hex64(std::uint64_t value) {
  char buffer[19];
  std::snprintf(buffer, sizeof buffer, "0x%016" PRIx64, value);
  return buffer;
}

namespace {

// %g writes a whole number with more digits than its precision in exponent form ("1e+01" for 10);
// JavaScript's Number writes it out up to 1e21 ("10", "150000000000000000000"), and so does the page.
std::string without_positive_exponent(const std::string& text) {
  const std::size_t e = text.find("e+");
  if (e == std::string::npos) return text;
  const int exponent = std::stoi(text.substr(e + 2));
  if (exponent >= 21) return text;
  std::string digits;
  for (std::size_t i = 0; i < e; ++i)
    if (text[i] != '.') digits += text[i];
  const std::size_t sign = text[0] == '-' ? 1 : 0;
  // Digits after the first are all in the whole part: %g uses the exponent only when it is >= the precision.
  const std::size_t significant = digits.size() - sign;
  return digits + std::string(static_cast<std::size_t>(exponent) + 1 - significant, '0');
}

}  // namespace

std::string format_shortest(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buffer[32];
  // The first precision that round-trips is the shortest; 17 always does.
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (parse_decimal(buffer) == value) break;
  }
  return without_positive_exponent(buffer);
}

std::string with_minus_sign(const std::string& number) {
  std::string out;
  for (char c : number) out += c == '-' ? std::string("\xE2\x88\x92") : std::string(1, c);
  return out;
}

std::string format_prose(double value) { return with_minus_sign(format_shortest(value)); }

namespace {

// The length of the UTF-8 sequence starting at text[i], or 0 if it is not a valid one.
std::size_t utf8_length(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = lead < 0x80           ? 1
                       : (lead >> 5) == 0x6  ? 2
                       : (lead >> 4) == 0xE  ? 3
                       : (lead >> 3) == 0x1E ? 4
                                             : 0;
  if (length == 0 || i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

}  // namespace

std::string shortened(const std::string& text, std::size_t limit) {
  std::string out;
  std::size_t characters = 0;
  for (std::size_t i = 0; i < text.size(); ++characters) {
    if (characters == limit) return out + "\xE2\x80\xA6";  // …
    const std::size_t length = utf8_length(text, i);
    out += length == 0 ? std::string("?") : text.substr(i, length);
    i += length == 0 ? 1 : length;
  }
  return out;
}

}  // namespace qkv
