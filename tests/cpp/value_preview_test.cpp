// The next lesson's preview row (cpp/attention/value_preview.hpp) against numpy's
// (fixtures/numpy/value_preview.json, from the chapter fixture's Q, K and V), and the softmax's stability.
#include "attention/value_preview.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "fixture.hpp"

namespace qkv {
namespace {

using test::json;

// How many doubles lie between a and b (same sign assumed: every value compared here is positive or zero).
std::uint64_t ulps_apart(double a, double b) {
  const std::uint64_t x = test::bits_of(a), y = test::bits_of(b);
  return x > y ? x - y : y - x;
}

void expect_within_ulps(const std::vector<double>& actual, const json& expected, std::uint64_t tolerance,
                        const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_LE(ulps_apart(actual[i], expected[i].get<double>()), tolerance)
        << what << "[" << i << "]: " << test::hex_of(actual[i]) << " vs numpy " << expected[i].get<double>();
  }
}

json numpy_preview() { return json::parse(test::read_file(test::fixture_path("numpy/value_preview.json"))); }

TEST(ValuePreview, FixtureRowMatchesNumpy) {
  const json fixture = test::load_fixture().at("expected");
  const json numpy = numpy_preview();
  const auto preview =
      value_preview(test::tensor_from(fixture.at("query")), test::tensor_from(fixture.at("key")),
                    test::tensor_from(fixture.at("value")), numpy.at("row").get<std::size_t>());
  ASSERT_TRUE(preview.has_value());
  // Exact: small integers, and √2 correctly rounded by both.
  EXPECT_EQ(preview->scores, numpy.at("scores").get<std::vector<double>>());
  EXPECT_EQ(test::bits_of(preview->scale), test::bits_of(numpy.at("scale").get<double>()));
  EXPECT_EQ(test::hex_of(preview->scaled), test::hex_of(numpy.at("scaled").get<std::vector<double>>()));
  // Through exp(): within the file's stated tolerance.
  const auto tolerance = numpy.at("ulp_tolerance").get<std::uint64_t>();
  expect_within_ulps(preview->weights, numpy.at("weights"), tolerance, "weights");
  expect_within_ulps(preview->unscaled_weights, numpy.at("unscaled_weights"), tolerance, "unscaled_weights");
  expect_within_ulps(preview->output, numpy.at("output"), tolerance, "output");
}

TEST(ValuePreview, SoftmaxSubtractsTheRowMaximum) {
  // Without the shift exp(1000) overflows to infinity and the weights become NaN.
  const std::vector<double> large = stable_softmax({1000.0, 1001.0});
  const std::vector<double> small = stable_softmax({0.0, 1.0});
  EXPECT_EQ(test::hex_of(large), test::hex_of(small));
  EXPECT_TRUE(std::isfinite(large[0]) && std::isfinite(large[1]));
  EXPECT_TRUE(stable_softmax({}).empty());
}

TEST(ValuePreview, NoneWithoutARowToShow) {
  const auto empty_tokens = Tensor::from_values({1, 0, 2}, {});
  ASSERT_TRUE(static_cast<bool>(empty_tokens));
  EXPECT_FALSE(value_preview(*empty_tokens, *empty_tokens, *empty_tokens, 0).has_value());
  const json fixture = test::load_fixture().at("expected");
  const Tensor q = test::tensor_from(fixture.at("query"));
  EXPECT_FALSE(value_preview(q, q, q, 2).has_value()) << "row 2 of two tokens";
}

}  // namespace
}  // namespace qkv
