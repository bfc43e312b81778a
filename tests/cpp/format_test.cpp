// Text the lesson prints: shortest round-trip decimals, the page's minus sign, and shortened echoes.
#include "text/format.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace qkv {
namespace {

TEST(Format, ShortestDecimalReadsBackTheSameDouble) {
  EXPECT_EQ(format_shortest(1.0), "1");
  EXPECT_EQ(format_shortest(-1.5), "-1.5");
  EXPECT_EQ(format_shortest(0.1), "0.1");
  EXPECT_EQ(format_shortest(4.358e-10), "4.358e-10");
}

TEST(Format, Hex64IsSixteenDigitsAfter0x) {
  EXPECT_EQ(format_hex64(26), "0x000000000000001a");
  EXPECT_EQ(format_hex64(~std::uint64_t{0}), "0xffffffffffffffff");
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

TEST(Format, SignificantDigitsWriteTheExponentAsACLiteral) {
  EXPECT_EQ(format_significant(0.0123456, 3), "0.0123");
  EXPECT_EQ(format_significant(4.5e8, 3), "4.5e8");
  EXPECT_EQ(format_significant(1.2e-5, 3), "1.2e-5");
  EXPECT_EQ(format_significant(-3.14159e12, 2), "-3.1e12");
}

TEST(Format, CountsGroupThousandsWithCommas) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(960), "960");
  EXPECT_EQ(format_count(1000), "1,000");
  EXPECT_EQ(format_count(24000), "24,000");
  EXPECT_EQ(format_count(960000000), "960,000,000");
  EXPECT_EQ(format_count(4294967295u), "4,294,967,295");
  EXPECT_EQ(format_count(18446744073709551615u), "18,446,744,073,709,551,615");
}

TEST(Format, ShapeTextSeparatesExtentsWithASpace) {
  EXPECT_EQ(shape_text({1, 2, 3}), "[1, 2, 3]");
  EXPECT_EQ(shape_text({}), "[]");
}

}  // namespace
}  // namespace qkv
