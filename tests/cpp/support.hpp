// Helpers shared by the unit tests: tensors from literals, bit patterns, and readable failure output.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace qkv::test {

inline std::uint64_t bits(double value) {
  std::uint64_t out = 0;
  std::memcpy(&out, &value, sizeof out);
  return out;
}

inline std::vector<std::uint64_t> bits(const std::vector<double>& values) {
  std::vector<std::uint64_t> out;
  for (double value : values) out.push_back(bits(value));
  return out;
}

// Bit patterns as 16 hex digits, so a mismatch prints readably.
inline std::vector<std::string> hex_bits(const std::vector<double>& values) {
  std::vector<std::string> out;
  char buffer[17];
  for (double value : values) {
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(bits(value)));
    out.push_back(buffer);
  }
  return out;
}

// "[1, -0.5, ...]" with every digit, for failure messages.
inline std::string describe(const std::vector<double>& values) {
  std::string text = "[";
  char buffer[32];
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::snprintf(buffer, sizeof buffer, "%s%.17g", i > 0 ? ", " : "", values[i]);
    text += buffer;
  }
  return text + "]";
}

// A tensor from a literal; a literal that does not fill its shape fails the test, not the binary.
inline Tensor make(Shape shape, std::vector<double> values) {
  auto tensor = Tensor::from_values(std::move(shape), std::move(values));
  if (!tensor) {
    ADD_FAILURE() << "make: " << tensor.error().message();
    return Tensor();
  }
  return std::move(tensor).value();
}

}  // namespace qkv::test
