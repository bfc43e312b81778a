// Fuzzes the readers of what a learner types: parse_decimal, parse_extent, parse_shape and parse_vector on
// the same bytes. Each must return a value or a message; a value must be what it promises.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "lesson/number_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the extent's maximum, the rest is the text.
  const qkv::Extent max = data[0] == 255 ? ~qkv::Extent{0} : data[0];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);

  auto decimal = qkv::parse_decimal(text);
  if (decimal && !std::isfinite(*decimal)) __builtin_trap();  // only finite decimals are accepted
  auto extent = qkv::parse_extent(text, "batch", max);
  if (extent && *extent > max) __builtin_trap();
  if (!extent && extent.error().empty()) __builtin_trap();  // every refusal has a message
  auto shape = qkv::parse_shape(text);
  if (!shape && shape.error().empty()) __builtin_trap();
  auto vector = qkv::parse_vector(text);
  if (vector) {
    for (double value : *vector)
      if (!std::isfinite(value)) __builtin_trap();
  }
  return 0;
}
