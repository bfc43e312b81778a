// Text the lesson prints: shortest round-trip decimals, the page's minus sign, and shortened echoes.
#include "text/format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "support/budget.hpp"
#include "support/decimal.hpp"

namespace qkv {
namespace {

TEST(Format, ShortestDecimalReadsBackTheSameDouble) {
  EXPECT_EQ(format_shortest(1.0), "1");
  EXPECT_EQ(format_shortest(-1.5), "-1.5");
  EXPECT_EQ(format_shortest(0.1), "0.1");
  EXPECT_EQ(format_shortest(4.358e-10), "4.358e-10");
}

// Whole numbers are written out as JavaScript's Number writes them, up to 1e21: never "1e+01" for 10.
TEST(Format, ShortestDecimalWritesWholeNumbersOutBelowTenToTheTwentyFirst) {
  EXPECT_EQ(format_shortest(10.0), "10");
  EXPECT_EQ(format_shortest(-30.0), "-30");
  EXPECT_EQ(format_shortest(1200.0), "1200");
  EXPECT_EQ(format_shortest(1.5e20), "150000000000000000000");
  EXPECT_EQ(format_shortest(1e21), "1e+21");
  EXPECT_EQ(format_prose(-90.0),
            "\xE2\x88\x92"
            "90");
}

// format_shortest is for doubles (binary64); some of them need all 17 significant digits to read back.
TEST(Format, ShortestDecimalUsesSeventeenDigitsWhenSixteenDoNotReadBack) {
  EXPECT_EQ(format_shortest(0.1 + 0.2), "0.30000000000000004");  // 16 digits would read back as 0.3
  EXPECT_EQ(format_shortest(-(0.1 + 0.2)), "-0.30000000000000004");
  EXPECT_EQ(format_shortest(1.0 / 3.0), "0.3333333333333333");  // 16 are enough here
  EXPECT_EQ(format_shortest(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(format_shortest(std::numeric_limits<double>::denorm_min()), "5e-324");
}

// The number of significant digits in a %g text: "-0.0012e-5" -> 2; a whole number's trailing zeros are
// not: "1500" -> 2.
std::size_t significant_digits(const std::string& text) {
  const std::string mantissa = text.substr(0, text.find('e'));
  std::string digits;
  for (char c : mantissa)
    if (c >= '0' && c <= '9') digits += c;
  if (mantissa.find('.') == std::string::npos && mantissa == text)
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const std::size_t first = digits.find_first_not_of('0');
  return first == std::string::npos ? 1 : digits.size() - first;
}

// Over many doubles spread across every exponent: the text reads back to the same bits, and one digit
// fewer would not (shortest). The bit patterns come from a fixed SplitMix64 stream, so the run is the same
// every time.
TEST(Format, ShortestDecimalReadsBackEveryDoubleAndNoShorterOneDoes) {
  std::uint64_t state = 20;
  std::size_t seventeen = 0, checked = 0;
  for (int i = 0; i < 2000; ++i) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    double value;
    std::memcpy(&value, &z, sizeof value);
    if (!std::isfinite(value)) continue;
    ++checked;
    const std::string text = format_shortest(value);
    const double back = std::strtod(text.c_str(), nullptr);
    std::uint64_t back_bits;
    std::memcpy(&back_bits, &back, sizeof back_bits);
    ASSERT_EQ(back_bits, z) << text;
    const std::size_t digits = significant_digits(text);
    if (digits == 17) ++seventeen;
    if (digits > 1) {
      char shorter[32];
      std::snprintf(shorter, sizeof shorter, "%.*g", static_cast<int>(digits - 1), value);
      EXPECT_NE(std::strtod(shorter, nullptr), value) << text << " has a shorter form " << shorter;
    }
  }
  EXPECT_GT(checked, 1900u);
  // About half of all doubles need 17 digits; the sample must include many of them to mean anything.
  EXPECT_GT(seventeen, checked / 4) << seventeen << " of " << checked;
}

// The one decimal grammar both front ends read (strtod natively, Number() in WebAssembly): inside it they
// agree bit for bit; anything outside it has no value on either side (issue 39: "2e" was 2 natively).
TEST(Format, ParseDecimalReadsTheDecimalGrammarOnly) {
  EXPECT_EQ(parse_decimal("2e-3"), 2e-3);
  EXPECT_EQ(parse_decimal("-1.5"), -1.5);
  EXPECT_EQ(parse_decimal(".5"), 0.5);
  EXPECT_EQ(parse_decimal("5."), 5.0);
  EXPECT_EQ(parse_decimal("+4E+1"), 40.0);
  ASSERT_TRUE(parse_decimal("-0").has_value());
  EXPECT_TRUE(std::signbit(*parse_decimal("-0")));
  EXPECT_EQ(parse_decimal("1e999"), std::numeric_limits<double>::infinity());
  for (const char* text :
       {"2e",  "2E",       "2e+",  "2e-", "e3", ".",   "",     "-",     "+",     ".e1", "inf",
        "nan", "Infinity", "0x10", " 1",  "1 ", "1,5", "2..5", "1e1.5", "1e2e3", "--1"}) {
    const std::optional<double> value = parse_decimal(text);
    EXPECT_FALSE(value.has_value()) << '"' << text << "\" read as " << *value;
  }
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

TEST(Format, RowsTextNamesRowsAsRows) {
  EXPECT_EQ(rows_text({}), "none");
  EXPECT_EQ(rows_text({0}), "row 0");
  EXPECT_EQ(rows_text({1, 4}), "rows 1 and 4");
  EXPECT_EQ(rows_text({0, 1, 2}), "rows 0, 1 and 2");
}

TEST(Format, ShapeTextSeparatesExtentsWithASpace) {
  EXPECT_EQ(shape_text({1, 2, 3}), "[1, 2, 3]");
  EXPECT_EQ(shape_text({}), "[]");
}

// A refused cost just over its limit must not read as the limit ("costs 2e8 ..., more than the limit of
// 2e8").
TEST(Format, ARefusedCostReadsLargerThanItsLimit) {
  const double limit = 2e8;
  for (double cost : {limit + 1, 2.04e8, 2.1e8, 3.1e10}) {
    const std::string cost_text = format_refused_cost(cost, limit);
    EXPECT_GT(std::stod(cost_text), std::stod(format_operations(limit))) << cost_text;
  }
  EXPECT_EQ(format_refused_cost(limit + 1, limit), "200000001");
  EXPECT_EQ(format_refused_cost(2.04e8, limit), "2.04e8");
  EXPECT_EQ(format_refused_cost(3.1e10, limit), "3.1e10");  // far over: two digits, as before
  const BudgetError error{"evidence request", limit + 1, limit};
  EXPECT_EQ(error.message(), "evidence request costs 200000001 operations, more than the limit of 2e8");
}

// The refused cost is read back with parse_decimal, no longer std::stod (whose musl strtod brought 128-bit
// soft-float into the page's module): every text must be the one reading with std::stod chose, digit for
// digit, from one ulp over each limit to far over it; and a cost past a double's range stays printf's "inf".
TEST(Format, ARefusedCostIsTheTextReadingWithStodChose) {
  const auto chosen_with_stod = [](double cost, double limit) {
    const double limit_as_written = std::stod(format_operations(limit));
    for (int digits = 2; digits < 17; ++digits) {
      const std::string text = format_operations(cost, digits);
      if (std::stod(text) > limit_as_written) return text;
    }
    return format_operations(cost, 17);
  };
  int two_digits = 0, more_digits = 0;  // both kinds of text are among the costs: every way out is taken
  for (double limit : {1e5, 2e8, 4e8, 1.5e9, 1e11, 3.1e10, 9.9e12, 7e15, 1e18}) {
    std::vector<double> costs;
    double ulps_over = limit;
    for (int ulps = 1; ulps <= 40; ++ulps) costs.push_back(ulps_over = std::nextafter(ulps_over, 2 * limit));
    for (double ratio = 1e-16; ratio < 10; ratio *= 10) costs.push_back(limit * (1 + ratio));
    costs.push_back(limit * 77);
    for (double cost : costs) {
      const std::string text = format_refused_cost(cost, limit);
      EXPECT_EQ(text, chosen_with_stod(cost, limit)) << cost << " over " << limit;
      ++(text == format_operations(cost) ? two_digits : more_digits);
    }
  }
  EXPECT_GT(two_digits, 0);
  EXPECT_GT(more_digits, 0);
  EXPECT_EQ(format_refused_cost(std::numeric_limits<double>::infinity(), 2e8), "inf");
}

}  // namespace
}  // namespace qkv
