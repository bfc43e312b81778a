// Fuzzes the one reader of what a learner types: read_number, read_count, read_shape and read_vector on the
// same bytes. Each must return a value or a message; a value must be what it promises.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "learner/answer_reader.hpp"
#include "text/format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the count's maximum, the rest is the text.
  const qkv::Extent max = data[0] == 255 ? qkv::kMaxElements : data[0];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);

  auto number = qkv::read_number(text);
  if (number && !std::isfinite(*number)) __builtin_trap();            // only finite numbers are read
  if (!number && number.error().message().empty()) __builtin_trap();  // every refusal has a message
  auto count = qkv::read_count(text, 0, max);
  if (count && *count > max) __builtin_trap();
  auto shape = qkv::read_shape(text);
  if (shape && shape->empty()) __builtin_trap();
  if (!shape && shape.error().typed.size() > 80 * 4 + 3) __builtin_trap();  // echoes stay short
  auto vector = qkv::read_vector(text);
  if (vector) {
    for (double value : *vector)
      if (!std::isfinite(value)) __builtin_trap();
  }
  // Shortened text is valid UTF-8 of at most 80 characters and an ellipsis, whatever the bytes.
  const std::string echoed = qkv::shortened(text);
  if (echoed.size() > 80 * 4 + 3) __builtin_trap();
  return 0;
}
