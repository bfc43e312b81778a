// Text the lesson prints: shortest round-trip decimals, the page's minus sign, and shortened echoes.
#include "text/format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace qkv {
namespace {

TEST(Format, ShortestDecimalReadsBackTheSameDouble) {
  EXPECT_EQ(format_shortest(1.0), "1");
  EXPECT_EQ(format_shortest(-1.5), "-1.5");
  EXPECT_EQ(format_shortest(0.1), "0.1");
  EXPECT_EQ(format_shortest(4.358e-10), "4.358e-10");
}

// The definition format_shortest's binary search must agree with: the first precision from 1 up whose %g
// text reads back as the same double.
std::string first_precision_that_round_trips(double value) {
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

TEST(Format, ShortestDecimalIsTheFirstPrecisionThatRoundTrips) {
  // Powers of two and their neighbours (where a double's rounding interval is lopsided), small multiples,
  // decimals with few digits, and random bit patterns. (Checked once on 12 million values: no difference.)
  std::vector<double> values;
  for (int exponent = -1074; exponent <= 1023; ++exponent) {
    const double power = std::ldexp(1.0, exponent);
    for (const double x : {power, std::nextafter(power, 0.0), std::nextafter(power, HUGE_VAL), 3 * power})
      if (std::isfinite(x)) values.push_back(exponent % 2 == 0 ? x : -x);
  }
  std::uint64_t bits = 88172645463325252ull;
  for (int i = 0; i < 4000; ++i) {
    bits ^= bits << 13, bits ^= bits >> 7, bits ^= bits << 17;
    double random;
    std::memcpy(&random, &bits, sizeof random);
    if (std::isfinite(random)) values.push_back(random);
    values.push_back(static_cast<double>(static_cast<std::int64_t>(bits % 2000001) - 1000000) / 1000.0);
  }
  for (const double value : values)
    ASSERT_EQ(format_shortest(value), first_precision_that_round_trips(value)) << std::hexfloat << value;
}

TEST(Format, ProseUsesTheUnicodeMinus) {
  EXPECT_EQ(format_prose(-1.5),
            "\xE2\x88\x92"
            "1.5");
  EXPECT_EQ(format_prose(2.0), "2");
}

TEST(Format, ShortenedKeepsShortTextAndCutsLongTextAtEightyCharacters) {
  EXPECT_EQ(shortened("abc"), "abc");
  const std::string long_text(300, 'x');
  EXPECT_EQ(shortened(long_text), std::string(80, 'x') + "\xE2\x80\xA6");
  // Counted in characters, never cut inside one: 81 minus signs become 80 and an ellipsis.
  std::string minuses;
  for (int i = 0; i < 81; ++i) minuses += "\xE2\x88\x92";
  EXPECT_EQ(shortened(minuses), minuses.substr(0, 240) + "\xE2\x80\xA6");
}

TEST(Format, ShortenedReplacesBytesThatAreNotUtf8) {
  EXPECT_EQ(shortened("a\xff"
                      "b"),
            "a?b");
  EXPECT_EQ(shortened("\xc3("), "?(");
}

}  // namespace
}  // namespace qkv
