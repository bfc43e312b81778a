// The spec's section-4 fixture (X, W_Q, W_K, W_V) and the helpers that build and check the layer with it,
// shared by qkv_test.cpp (the layer alone, qkv_core_tests) and qkv_backward_test.cpp (the layer under the
// chapter's loss, qkv_chapter26_tests).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "attention/qkv.hpp"
#include "support.hpp"

namespace qkv::test {

inline const std::string kPrefix = "decoder.block.0.attention";

inline Tensor zeros(Shape shape) {
  auto tensor = Tensor::zeros(std::move(shape));
  if (!tensor) ADD_FAILURE() << tensor.error().message();
  return tensor ? std::move(tensor).value() : Tensor();
}

inline NamedParameter named(const std::string& name, const Tensor& value) {
  auto parameter = NamedParameter::create(name, value);
  if (!parameter) {
    ADD_FAILURE() << parameter.error().message();
    return NamedParameter::create("placeholder", Tensor()).value();
  }
  return std::move(parameter).value();
}

inline TensorValue parameter(const Tensor& value) { return TensorValue::parameter(value).value(); }
inline TensorValue constant(const Tensor& value) { return TensorValue::constant(value).value(); }

inline void expect_tensor(const Tensor& actual, const Shape& shape, const std::vector<double>& values) {
  EXPECT_EQ(format_shape(actual.shape()), format_shape(shape));
  EXPECT_EQ(hex_bits(actual.values()), hex_bits(values))
      << "expected " << describe(values) << "\n     got " << describe(actual.values());
}

inline void expect_positive_zeros(const Tensor& actual, const Shape& shape) {
  EXPECT_EQ(format_shape(actual.shape()), format_shape(shape));
  for (std::size_t i = 0; i < actual.size(); ++i) EXPECT_EQ(bits(actual[i]), 0u) << "index " << i;
}

// ---- the fixture (spec section 4) ------------------------------------------------------------------------

inline const Tensor kX = make({1, 2, 3}, {1, 2, -1, 0, 1, 2});
inline const Tensor kWQ = make({3, 2}, {1, 0, 0, 1, 1, -1});
inline const Tensor kWK = make({3, 2}, {0, 1, 1, 0, -1, 1});
inline const Tensor kWV = make({3, 2}, {1, 1, 1, -1, 0, 2});
inline Result<QkvProjections, QkvError> from_tensors(const Tensor& wq, const Tensor& wk, const Tensor& wv,
                                                     const std::string& prefix = kPrefix) {
  return QkvProjections::from_weights(named(prefix + ".query.weight", wq), named(prefix + ".key.weight", wk),
                                      named(prefix + ".value.weight", wv));
}

inline QkvProjections layer_of(const Tensor& wq, const Tensor& wk, const Tensor& wv) {
  auto layer = from_tensors(wq, wk, wv);
  if (!layer) ADD_FAILURE() << layer.error().message();
  return std::move(layer).value();
}

inline QkvOutputs forward(const QkvProjections& layer, const TensorValue& input) {
  auto outputs = layer.forward(input);
  if (!outputs) ADD_FAILURE() << outputs.error().message();
  return std::move(outputs).value();
}

}  // namespace qkv::test
