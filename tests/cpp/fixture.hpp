// Test helpers shared by every test file: reading fixtures/ (the frozen chapter fixture and the golden
// files) and turning its JSON into tensors and bit patterns.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.hpp"

namespace qkv::test {

using nlohmann::json;

// Absolute path of a file under fixtures/, e.g. fixture_path("golden/learn-llm-ch26-expected.txt").
inline std::string fixture_path(const std::string& relative) {
  return std::string(QKV_FIXTURES_DIR) + "/" + relative;
}

// The whole file, byte for byte; throws (so the test fails loudly) when it cannot be read.
inline std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// fixtures/chapter26.json, parsed once per call.
inline json load_fixture() { return json::parse(read_file(fixture_path("chapter26.json"))); }

inline std::uint64_t bits_of(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline double double_from_bits(std::uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// "0x3fe28ba5b2e48d79" (or without the 0x) -> its 64 bits; throws on anything else.
inline std::uint64_t bits_from_hex(const std::string& text) {
  const std::string digits = text.rfind("0x", 0) == 0 ? text.substr(2) : text;
  if (digits.empty() || digits.size() > 16 ||
      digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
    throw std::invalid_argument("not a 64-bit hex pattern: " + text);
  }
  return std::stoull(digits, nullptr, 16);
}

// "0x..." for a double's bits, for readable failure messages.
inline std::string hex_of(double value) {
  char buffer[19];
  std::snprintf(buffer, sizeof buffer, "0x%016llx", static_cast<unsigned long long>(bits_of(value)));
  return buffer;
}

// The values of {"values": [numbers]} or {"bits": ["0x..."]}, in order.
inline std::vector<double> values_from(const json& tensor) {
  std::vector<double> values;
  if (tensor.contains("bits")) {
    for (const json& bits : tensor.at("bits"))
      values.push_back(double_from_bits(bits_from_hex(bits.get<std::string>())));
  } else {
    for (const json& value : tensor.at("values")) values.push_back(value.get<double>());
  }
  return values;
}

// {"shape": [...], "values": [...]} or {"shape": [...], "bits": [...]} -> Tensor; throws if they disagree.
inline Tensor tensor_from(const json& tensor) {
  auto made = Tensor::from_values(tensor.at("shape").get<Shape>(), values_from(tensor));
  if (!made) throw std::invalid_argument("fixture tensor rejected: " + made.error().message());
  return std::move(*made);
}

// The bit patterns of every value.
inline std::vector<std::uint64_t> bits_of(const std::vector<double>& values) {
  std::vector<std::uint64_t> bits;
  for (double value : values) bits.push_back(bits_of(value));
  return bits;
}

// The bit patterns as "0x..." strings: exact comparisons whose failures print readably.
inline std::vector<std::string> hex_of(const std::vector<double>& values) {
  std::vector<std::string> hex;
  for (double value : values) hex.push_back(hex_of(value));
  return hex;
}

// An input of two batch items of three tokens for the fixture's weights (d_model 3): item 0 holds the
// fixture's two tokens [1, 2, −1], [0, 1, 2] and a third [1, 0, 1]; item 1 holds x₀ = [2, 0, 0],
// x₁ = [0, 0, 1], x₂ = [1, 2, 3]. Scores and provenance at B = 2, T = 3 are worked by hand from it.
inline Tensor two_items_of_three_tokens() {
  return Tensor::from_values({2, 3, 3}, {1, 2, -1, 0, 1, 2, 1, 0, 1, 2, 0, 0, 0, 0, 1, 1, 2, 3}).value();
}

// `request` (an evidence request: chapter_fixture() or one like it) with `input` [B, T, d_model] in place
// of its own and zero upstreams of the matching output shape [B, T, d_head]. A template, so that this
// header needs no chapter header: the self-score and CLI tests include it too.
template <class Request>
Request with_input(Request request, Tensor input) {
  const Shape out{input.shape()[0], input.shape()[1], request.query_weight.shape()[1]};
  request.input = std::move(input);
  request.upstream.emplace();
  for (Tensor* upstream : {&request.upstream->query, &request.upstream->key, &request.upstream->value})
    *upstream = Tensor::zeros(out).value();
  return request;
}

}  // namespace qkv::test
