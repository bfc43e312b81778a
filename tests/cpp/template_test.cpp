// The registry's templates: numbered slots filled, everything else copied as it stands.
#include "text/template.hpp"

#include <gtest/gtest.h>

#include <string>

namespace qkv {
namespace {

TEST(Template, FillsEachNumberedSlotWithItsText) {
  EXPECT_EQ(fill("k₀ went from {0} to {1}.", {"[1, 2]", "[2, 4]"}), "k₀ went from [1, 2] to [2, 4].");
  EXPECT_EQ(fill("{1}{0}", {"a", "b"}), "ba");
}

TEST(Template, FillsASlotAsOftenAsItAppears) {
  EXPECT_EQ(fill("A [T, {0}] matrix times a [{0}, {1}] weight", {"3", "2"}),
            "A [T, 3] matrix times a [3, 2] weight");
}

TEST(Template, NeverSearchesASlotsTextForSlots) {
  const std::string message = "expected {0} and {1}";
  EXPECT_EQ(fill("Its own words: \"{0}\".", {message, "unused"}), "Its own words: \"expected {0} and {1}\".");
}

TEST(Template, CopiesBracesThatAreNoSlotAsTheyStand) {
  EXPECT_EQ(fill("{x} {2} {} {", {"a"}), "{x} {2} {} {");
  EXPECT_EQ(fill("", {"a"}), "");
}

}  // namespace
}  // namespace qkv
