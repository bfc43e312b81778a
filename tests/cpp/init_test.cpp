// Initialisation: SplitMix64, Xavier uniform, the parameter-name grammar and unique names.
// The seed-0 outputs and the seed-17 Xavier bits are the Rust course's values (spec section 2), which an
// independent Python implementation reproduces.
#include "nn/init.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "support.hpp"

namespace qkv {
namespace {

using namespace qkv::test;

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;  // SplitMix64's state increment

template <class T>
InitializationError error_of(const Result<T, InitializationError>& result) {
  if (result.ok()) {
    ADD_FAILURE() << "expected an error";
    return {InitializationErrorKind::EmptyName};
  }
  return result.error();
}

// The grammar's message for `name`, or "" when the name is valid.
std::string name_message(const std::string& name) {
  const std::optional<InitializationError> error = validate_parameter_name(name);
  return error ? error->message() : "";
}

NamedParameter named(const std::string& name) {
  auto parameter = NamedParameter::create(name, make({1}, {0}));
  if (!parameter) {
    ADD_FAILURE() << parameter.error().message();
    return NamedParameter::create("placeholder", make({1}, {0})).value();
  }
  return std::move(parameter).value();
}

// ---- SplitMix64 -------------------------------------------------------------------------------------------

TEST(SplitMix64, SeedZeroMatchesTheReferenceSequence) {
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next_u64(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.next_u64(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(rng.next_u64(), 0x06c45d188009454fULL);
  EXPECT_EQ(rng.next_u64(), 0xf88bb8a8724c81ecULL);
}

TEST(SplitMix64, SeedIsTheRawStateAndEachDrawAddsTheIncrement) {
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{17}, std::uint64_t{26}, ~std::uint64_t{0}}) {
    SplitMix64 rng(seed);
    EXPECT_EQ(rng.state(), seed);
    for (std::uint64_t n = 1; n <= 100; ++n) {
      if (n % 2 == 0) {
        rng.next_u64();
      } else {
        rng.next_unit_f64();  // one u64 per unit draw
      }
      EXPECT_EQ(rng.state(), seed + n * kGolden) << "seed " << seed << " after " << n;  // wraps mod 2^64
    }
  }
}

TEST(SplitMix64, UnitDrawsAreTheTop53BitsInZeroOne) {
  SplitMix64 units(12345);
  SplitMix64 raw(12345);
  for (int i = 0; i < 10000; ++i) {
    const double u = units.next_unit_f64();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_EQ(u, std::ldexp(static_cast<double>(raw.next_u64() >> 11), -53)) << "draw " << i;
  }
}

TEST(SplitMix64, CopiesAreIndependentAndCompareByState) {
  SplitMix64 a(26);
  SplitMix64 b = a;
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.next_u64(), b.next_u64());
  a.next_u64();
  EXPECT_FALSE(a == b);
}

// ---- Xavier uniform --------------------------------------------------------------------------------------

TEST(Xavier, Seed17TwoByTwoBits) {
  SplitMix64 rng(17);
  auto weight = xavier_uniform("w", 2, 2, rng);
  ASSERT_TRUE(weight.ok()) << weight.error().message();
  EXPECT_EQ(weight->name(), "w");
  EXPECT_EQ(weight->shape(), (Shape{2, 2}));
  EXPECT_EQ(hex_bits(weight->value().value().values()),
            (std::vector<std::string>{"3f744760bbbfc4e2", "bfd10508068942ad", "bfdae98b1d44f6ae",
                                      "bfe5a45c1710f8d8"}));
  EXPECT_EQ(rng.state(), 17 + 4 * kGolden);
  // The weight is a parameter leaf with a zero gradient.
  EXPECT_TRUE(weight->value().is_parameter());
}

TEST(Xavier, FollowsTheLimitFormulaInRowMajorOrder) {
  // limit = sqrt(6 / (in + out)); element i is limit * (2u_i - 1) for the i-th unit draw.
  const Extent in = 3, out = 5;
  const double limit = std::sqrt(6.0 / 8.0);
  SplitMix64 rng(99);
  SplitMix64 mirror(99);
  auto weight = xavier_uniform("layer.weight", in, out, rng);
  ASSERT_TRUE(weight.ok());
  const std::vector<double>& values = weight->value().value().values();
  ASSERT_EQ(values.size(), 15u);
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(bits(values[i]), bits(limit * (2.0 * mirror.next_unit_f64() - 1.0))) << i;
    EXPECT_LE(std::fabs(values[i]), limit);
  }
  EXPECT_TRUE(rng == mirror);
}

TEST(Xavier, LimitStaysWithinBoundsOverManyDraws) {
  // 64 x 64: limit sqrt(6/128); the values fill [-limit, limit] with mean near 0 and variance limit²/3.
  SplitMix64 rng(7);
  auto weight = xavier_uniform("big", 64, 64, rng);
  ASSERT_TRUE(weight.ok());
  const double limit = std::sqrt(6.0 / 128.0);
  double sum = 0.0, squares = 0.0, low = 0.0, high = 0.0;
  for (double value : weight->value().value().values()) {
    sum += value;
    squares += value * value;
    low = std::min(low, value);
    high = std::max(high, value);
  }
  const double n = 4096.0;
  EXPECT_GE(low, -limit);
  EXPECT_LE(high, limit);
  // Statistical sanity, generous bounds (about 6 standard errors): variance 2/(in+out) = 1/64.
  EXPECT_NEAR(sum / n, 0.0, 6 * limit / std::sqrt(3 * n));
  EXPECT_NEAR(squares / n, 2.0 / 128.0, 0.1 * 2.0 / 128.0);
  EXPECT_GT(high, 0.99 * limit);
  EXPECT_LT(low, -0.99 * limit);
}

TEST(Xavier, RejectsInOrderAndLeavesTheGeneratorUntouched) {
  struct Case {
    std::string name;
    Extent in, out;
    InitializationErrorKind kind;
    std::string message;
  };
  const std::vector<Case> cases = {
      // The name before the fans.
      {"Bad", 0, 0, InitializationErrorKind::InvalidNameByte,
       "parameter name byte 0 must be lowercase ASCII, a digit, underscore, or dot; got 0x42"},
      {"", 2, 2, InitializationErrorKind::EmptyName, "parameter name must not be empty"},
      // Fan-in before fan-out.
      {"w", 0, 0, InitializationErrorKind::ZeroFanIn, "fan-in must be greater than zero"},
      {"w", 0, 3, InitializationErrorKind::ZeroFanIn, "fan-in must be greater than zero"},
      {"w", 3, 0, InitializationErrorKind::ZeroFanOut, "fan-out must be greater than zero"},
      // Too large to allocate: a tensor error, found before any draw.
      {"w", 100000, 100000, InitializationErrorKind::Tensor,
       "shape [100000,100000] has more than 67,108,864 elements"},
      {"w", Extent{1} << 32, Extent{1} << 32, InitializationErrorKind::Tensor,
       "shape [4294967296,4294967296] has more than 67,108,864 elements"},
  };
  for (const Case& c : cases) {
    SplitMix64 rng(26);
    const InitializationError error = error_of(xavier_uniform(c.name, c.in, c.out, rng));
    EXPECT_EQ(error.kind, c.kind) << c.message;
    EXPECT_EQ(error.message(), c.message);
    EXPECT_EQ(rng.state(), 26u) << c.message;
  }
}

// ---- the name grammar
// --------------------------------------------------------------------------------------

TEST(ParameterName, AcceptsTheGrammar) {
  for (const char* name :
       {"a", "w", "_", "0", "a.b", "a_b.c9", "decoder.block.0.attention.query.weight", "x.0.y"}) {
    EXPECT_EQ(name_message(name), "") << name;
  }
}

TEST(ParameterName, EmptyName) {
  const std::optional<InitializationError> error = validate_parameter_name("");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind, InitializationErrorKind::EmptyName);
  EXPECT_EQ(error->message(), "parameter name must not be empty");
}

TEST(ParameterName, EmptySegmentsReportTheirByte) {
  const std::optional<InitializationError> error = validate_parameter_name("a..b");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind, InitializationErrorKind::EmptyNameSegment);
  EXPECT_EQ(error->index, 2u);
  EXPECT_EQ(error->message(), "parameter name has an empty dot-separated segment at byte 2");
  // A leading dot is an empty first segment at byte 0.
  EXPECT_EQ(name_message(".a"), "parameter name has an empty dot-separated segment at byte 0");
  EXPECT_EQ(name_message("."), "parameter name has an empty dot-separated segment at byte 0");
  // A trailing dot leaves an empty last segment, reported at the name's length.
  EXPECT_EQ(name_message("a."), "parameter name has an empty dot-separated segment at byte 2");
  EXPECT_EQ(name_message("layer.weight."), "parameter name has an empty dot-separated segment at byte 13");
}

TEST(ParameterName, InvalidBytesInTwoLowercaseHexDigits) {
  const std::optional<InitializationError> error = validate_parameter_name("A");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->kind, InitializationErrorKind::InvalidNameByte);
  EXPECT_EQ(error->index, 0u);
  EXPECT_EQ(error->byte, 0x41);
  EXPECT_EQ(error->message(),
            "parameter name byte 0 must be lowercase ASCII, a digit, underscore, or dot; got 0x41");
  const std::string prefix = "parameter name byte ";
  const std::string rule = " must be lowercase ASCII, a digit, underscore, or dot; got 0x";
  EXPECT_EQ(name_message("layerZ"), prefix + "5" + rule + "5a");  // lowercase hex
  EXPECT_EQ(name_message("a b"), prefix + "1" + rule + "20");
  EXPECT_EQ(name_message("a-b"), prefix + "1" + rule + "2d");
  EXPECT_EQ(name_message(std::string("a\x01", 2)), prefix + "1" + rule + "01");  // two digits
  EXPECT_EQ(name_message(std::string("a\0b", 3)), prefix + "1" + rule + "00");
  EXPECT_EQ(name_message("a\x7f"), prefix + "1" + rule + "7f");
  // Non-ASCII: "é" is 0xc3 0xa9 in UTF-8; the first byte is reported.
  EXPECT_EQ(name_message("\xc3\xa9"), prefix + "0" + rule + "c3");
  EXPECT_EQ(name_message("w.\xff"), prefix + "2" + rule + "ff");
}

TEST(ParameterName, FirstOffenderWins) {
  const std::string rule = " must be lowercase ASCII, a digit, underscore, or dot; got 0x";
  EXPECT_EQ(name_message("A.."), "parameter name byte 0" + rule + "41");
  EXPECT_EQ(name_message("..A"), "parameter name has an empty dot-separated segment at byte 0");
  EXPECT_EQ(name_message("a.B."), "parameter name byte 2" + rule + "42");
  EXPECT_EQ(name_message("a..B"), "parameter name has an empty dot-separated segment at byte 2");
  EXPECT_EQ(name_message("a.b..c.D"), "parameter name has an empty dot-separated segment at byte 4");
  EXPECT_EQ(name_message("ab.c D."), "parameter name byte 4" + rule + "20");
}

// ---- NamedParameter and NamedParameters
// --------------------------------------------------------------------

TEST(NamedParameter, HoldsANameAndAParameterLeaf) {
  auto parameter = NamedParameter::create("layer.weight", make({2}, {1, 2}));
  ASSERT_TRUE(parameter.ok());
  EXPECT_EQ(parameter->name(), "layer.weight");
  EXPECT_EQ(parameter->shape(), (Shape{2}));
  EXPECT_TRUE(parameter->value().is_parameter());
  // Copies of a NamedParameter share the node.
  const NamedParameter copy = *parameter;
  EXPECT_TRUE(copy.value().is_same_node(parameter->value()));
}

TEST(NamedParameter, ChecksTheNameBeforeTheValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(error_of(NamedParameter::create("", make({2}, {1, nan}))).kind,
            InitializationErrorKind::EmptyName);
  EXPECT_EQ(error_of(NamedParameter::create("Bad", make({2}, {1, nan}))).kind,
            InitializationErrorKind::InvalidNameByte);
  const InitializationError values = error_of(NamedParameter::create("ok", make({2}, {1, nan})));
  EXPECT_EQ(values.kind, InitializationErrorKind::Tensor);
  ASSERT_TRUE(values.tensor.has_value());
  EXPECT_EQ(values.tensor->kind, TensorErrorKind::NonFinite);
  EXPECT_EQ(values.message(), "parameter must be finite, got NaN at index 1");
}

TEST(NamedParameters, KeepsOrder) {
  auto list = NamedParameters::create({named("c"), named("a"), named("b")});
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->items().size(), 3u);
  EXPECT_EQ(list->items()[0].name(), "c");
  EXPECT_EQ(list->items()[1].name(), "a");
  EXPECT_EQ(list->items()[2].name(), "b");
  EXPECT_TRUE(NamedParameters::create({}).ok());
}

TEST(NamedParameters, ReportsTheFirstRepeatAndItsFirstOccurrence) {
  const InitializationError abab =
      error_of(NamedParameters::create({named("a"), named("b"), named("a"), named("b")}));
  EXPECT_EQ(abab.kind, InitializationErrorKind::DuplicateName);
  EXPECT_EQ(abab.name, "a");
  EXPECT_EQ(abab.index, 0u);
  EXPECT_EQ(abab.repeat_index, 2u);
  EXPECT_EQ(abab.message(), "parameter name \"a\" first appears at index 0 and repeats at index 2");
  // The earliest repeat wins, whichever name it is.
  EXPECT_EQ(error_of(NamedParameters::create({named("a"), named("b"), named("b"), named("a")})).message(),
            "parameter name \"b\" first appears at index 1 and repeats at index 2");
  // With three copies, the second is the first repeat and points at the first.
  EXPECT_EQ(error_of(NamedParameters::create({named("x"), named("y"), named("x"), named("x")})).message(),
            "parameter name \"x\" first appears at index 0 and repeats at index 2");
  // Names, not nodes: the same node twice is a duplicate as well.
  const NamedParameter same = named("w");
  EXPECT_EQ(error_of(NamedParameters::create({same, same})).message(),
            "parameter name \"w\" first appears at index 0 and repeats at index 1");
}

}  // namespace
}  // namespace qkv
