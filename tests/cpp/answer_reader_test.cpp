// The one reader: every form the issue lists is read, the same way wherever a number, a count, a shape or
// a vector is asked; anything else is refused with what was expected.
#include "learner/answer_reader.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace qkv {
namespace {

const std::string kMinus = "\xE2\x88\x92";  // U+2212, as the page writes it
const std::string kTimes = "\xC3\x97";      // U+00D7

struct NumberCase {
  std::string text;
  double value;
};

TEST(AnswerReader, ReadsEveryNumberForm) {
  const NumberCase cases[] = {
      {"5", 5},
      {"5.0", 5},
      {"05", 5},
      {"1.8e1", 18},
      {"3/2", 1.5},
      {"-3", -3},
      {kMinus + "3", -3},
      {" 2.5 ", 2.5},
      {".5", 0.5},
      {"+4", 4},
      {"1e" + kMinus + "3", 1e-3},
      {kMinus + "1/4", -0.25},
      {"-0", -0.0},
  };
  for (const NumberCase& c : cases) {
    auto value = read_number(c.text);
    ASSERT_TRUE(value) << c.text << ": " << value.error().message();
    EXPECT_EQ(*value, c.value) << c.text;
  }
}

TEST(AnswerReader, RefusesWhatIsNotANumberAndSaysWhatWasExpected) {
  for (const std::string& text :
       std::vector<std::string>{"", "abc", "2..5", "nan", "inf", "0x10", "1/2/3", "5 of", "--1", "1e400/x"}) {
    auto value = read_number(text);
    ASSERT_FALSE(value) << text;
    EXPECT_NE(value.error().message().find("expected a number such as"), std::string::npos)
        << value.error().message();
  }
  EXPECT_EQ(read_number("abc").error().message(),
            "\"abc\" is not read: expected a number such as " + kMinus + "1.5, 3/2 or 2e-3");
  EXPECT_EQ(read_number("  ").error().message(),
            "nothing typed: expected a number such as " + kMinus + "1.5, 3/2 or 2e-3");
}

// Issue 39: an exponent needs digits of its own. strtod alone reads "2e" as 2 and JavaScript's Number() as
// NaN; both front ends refuse it, with the number message, wherever it stands.
TEST(AnswerReader, AnExponentWithoutDigitsIsRefusedAsNotANumber) {
  for (const std::string& text :
       std::vector<std::string>{"2e", "2E", "2e+", "2e-", "2e" + kMinus, "1.5e", ".5e", "2e/3", "3/2e"}) {
    auto value = read_number(text);
    ASSERT_FALSE(value) << text << " read as " << *value;
    EXPECT_EQ(value.error().message(),
              "\"" + text + "\" is not read: expected a number such as " + kMinus + "1.5, 3/2 or 2e-3");
  }
  auto count = read_count("2e", 0, 5);
  ASSERT_FALSE(count) << "2e read as the count " << *count;
  EXPECT_EQ(count.error().message(), "\"2e\" is not read: expected a whole number from 0 to 5");
  EXPECT_EQ(*read_number("2e0"), 2.0);
}

TEST(AnswerReader, NamesTheLimitWhenANumberIsPastADoublesRange) {
  const std::string range =
      "expected a number between " + kMinus + "1.8e308 and 1.8e308 (the range of a double)";
  for (const std::string& text : std::vector<std::string>{"1e400", "-1e999", kMinus + "1e999", "1e300/1e-300",
                                                          "1e999/2", "2/1e999", "1e999/1e999"}) {
    auto value = read_number(text);
    ASSERT_FALSE(value) << text;
    EXPECT_EQ(value.error().message(), "\"" + text + "\" is not read: " + range) << text;
  }
  // The largest double itself, and a quotient just inside the range, are read.
  EXPECT_EQ(*read_number("1.7976931348623157e308"), std::numeric_limits<double>::max());
  EXPECT_EQ(*read_number("1e300/1e-8"), 1e300 / 1e-8);
}

TEST(AnswerReader, SaysWhenADenominatorIsZero) {
  for (const std::string& text : std::vector<std::string>{"3/0", "3/-0", "0/0", "3/0.0e5"}) {
    auto value = read_number(text);
    ASSERT_FALSE(value) << text;
    EXPECT_EQ(value.error().message(),
              "\"" + text + "\" is not read: expected a fraction whose denominator is not 0");
  }
}

TEST(AnswerReader, EchoesLongEntriesShortened) {
  const std::string long_text(300, '9');
  auto value = read_number(long_text + "x");
  ASSERT_FALSE(value);
  EXPECT_EQ(value.error().typed, std::string(80, '9') + "\xE2\x80\xA6");
}

TEST(AnswerReader, ReadsCountsInEveryForm) {
  const std::pair<std::string, Extent> cases[] = {
      {"5", 5},      {"5.0", 5},        {"05", 5},       {"1.8e1", 18},   {"2 of 5", 2},
      {"2 OF 5", 2}, {"0", 0},          {"5/5", 5},      {"2/5", 2},      {"5 out of 5", 5},
      {"2 / 5", 2},  {"2 Out Of 5", 2}, {" 0 of 0 ", 0}, {"5 of 5.0", 5}, {"3 of 1e1", 3}};
  for (const auto& [text, count] : cases) {
    auto value = read_count(text, 0, 100);
    ASSERT_TRUE(value) << text << ": " << value.error().message();
    EXPECT_EQ(*value, count) << text;
  }
  // A slash is never a division in a count ("36/2" is not 18, "3/2" not 1.5), and a total smaller than
  // the count, or not a whole number, is refused rather than guessed at.
  for (const std::string& text : std::vector<std::string>{
           "3/2", "36/2", "-1", "101", "two", "2 of", "2 of 5 rows", "1.5", "5/", "/5", "/", "5//5", "2/5/5",
           "2 of 5/5", "2 out 5", "2 out of", "2 of 2.5", "2 of -3", "5 out of 4"}) {
    auto value = read_count(text, 0, 100);
    ASSERT_FALSE(value) << text;
    EXPECT_EQ(value.error().expected, "a whole number from 0 to 100");
  }
  EXPECT_EQ(read_count("5/", 0, 100).error().message(),
            "\"5/\" is not read: expected a whole number from 0 to 100");
  EXPECT_EQ(read_count("/5", 0, 100).error().message(),
            "\"/5\" is not read: expected a whole number from 0 to 100");
  EXPECT_FALSE(read_count("0", 1, 8));
  // Large limits are written for people.
  EXPECT_EQ(read_count("x", 0, 1000000000).error().expected, "a whole number from 0 to 1,000,000,000");
}

// Issue 38: "3×3×2" is read for a count as it is for a shape (its product), and a count out of a total other
// than the question's ("2/4" for "how many of the 5 rows") is refused with the question's total named.
TEST(AnswerReader, ReadsAProductForACountAndRefusesAnotherTotal) {
  for (const std::string& text : std::vector<std::string>{"3" + kTimes + "3" + kTimes + "2", "3 x 3 x 2",
                                                          "3X3X2", "3*3*2", "3 " + kTimes + " 6", "18"}) {
    auto value = read_count(text, 0, 100);
    ASSERT_TRUE(value) << text << ": " << value.error().message();
    EXPECT_EQ(*value, 18u) << text;
  }
  for (const std::string& text : std::vector<std::string>{"3x", "x3", "3 x -2", "3 x 1.5", "10 x 11",
                                                          "2/5 x 3", "2 of 5 x 3", "3 x two"}) {
    auto value = read_count(text, 0, 100);
    ASSERT_FALSE(value) << text;
    EXPECT_EQ(value.error().expected, "a whole number from 0 to 100") << text;
  }
  for (const std::string& text : std::vector<std::string>{"2/5", "2 of 5", "2 out of 5", "2"}) {
    auto value = read_count(text, 0, 5, Extent{5});
    ASSERT_TRUE(value) << text << ": " << value.error().message();
    EXPECT_EQ(*value, 2u) << text;
  }
  for (const std::string& text : std::vector<std::string>{"2/4", "2 of 4", "2 out of 6", "2/10"}) {
    auto value = read_count(text, 0, 5, Extent{5});
    ASSERT_FALSE(value) << text;
    EXPECT_EQ(value.error().message(),
              "\"" + text + "\" is not read: expected a count out of the question's 5, such as 2 or 2 of 5");
  }
  // Without a total in the question, any total at least as large as the count is read, as before.
  EXPECT_EQ(*read_count("2/4", 0, 5), 2u);
}

TEST(AnswerReader, ReadsShapesInEveryForm) {
  const Shape expected{4, 7, 2};
  for (const std::string& text :
       std::vector<std::string>{"[4,7,2]", "[04,7,2]", "(4, 7, 2)", "4,7,2", "4 7 2", "4x7x2", "4 X 7 X 2",
                                "4*7*2", "4" + kTimes + "7" + kTimes + "2",
                                "4 " + kTimes + " 7 " + kTimes + " 2", "[4.0,7,2]", "[4, 7, 2,]"}) {
    auto shape = read_shape(text);
    ASSERT_TRUE(shape) << text << ": " << shape.error().message();
    EXPECT_EQ(*shape, expected) << text;
  }
  EXPECT_EQ(*read_shape("0x2x2"), (Shape{0, 2, 2}));
  EXPECT_EQ(*read_shape("2" + kTimes + "0" + kTimes + "2"), (Shape{2, 0, 2}));
  for (const std::string& text :
       std::vector<std::string>{"", "[]", "[4,7,-2]", "[4,7.5,2]", "four", "[4,7,2", "4;7;a"}) {
    auto shape = read_shape(text);
    ASSERT_FALSE(shape) << text;
    EXPECT_EQ(shape.error().expected, "a shape such as [4, 7, 2] or 4 " + kTimes + " 7 " + kTimes + " 2");
  }
}

TEST(AnswerReader, ReadsVectorsInEveryForm) {
  const std::vector<double> expected{0, 3};
  for (const std::string& text :
       std::vector<std::string>{"[0,3]", "[0.0,3.00]", "(0, 3)", "0 3", "0;3", "[0, 6/2]", "[0, 3e0]"}) {
    auto vector = read_vector(text);
    ASSERT_TRUE(vector) << text << ": " << vector.error().message();
    EXPECT_EQ(*vector, expected) << text;
  }
  EXPECT_EQ(*read_vector("[" + kMinus + "1, 1.5]"), (std::vector<double>{-1, 1.5}));
  for (const std::string& text : std::vector<std::string>{"", "[]", "[0, x]", "0 3]"})
    EXPECT_FALSE(read_vector(text)) << text;
}

}  // namespace
}  // namespace qkv
