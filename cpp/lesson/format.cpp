#include "lesson/format.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

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

std::string format_shortest(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buffer[32];
  // The first precision that round-trips is the shortest; 17 always does.
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

}  // namespace qkv
