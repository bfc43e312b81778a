#include "support/decimal.hpp"

#include <cstdlib>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
// musl's strtod computes in 128-bit long double, emulated in software: 7 kB of the page's gzipped
// WebAssembly. JavaScript's Number() rounds a decimal correctly too (V8, SpiderMonkey, JavaScriptCore).
EM_JS(double, qkv_js_number, (const char* text), { return Number(UTF8ToString(text)); });
#endif

namespace qkv {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Optional sign, digits with an optional point, optional exponent with digits of its own.
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

std::optional<double> parse_decimal(const std::string& text) {
  // Checked here, before either converter sees the text: outside this grammar they disagree (strtod reads
  // "2e" as 2 and "nan" as NaN, Number() reads "2e" as NaN, "" as 0 and "0x10" as 16).
  if (!is_decimal(text)) return std::nullopt;
#ifdef __EMSCRIPTEN__
  return qkv_js_number(text.c_str());
#else
  return std::strtod(text.c_str(), nullptr);
#endif
}

}  // namespace qkv
