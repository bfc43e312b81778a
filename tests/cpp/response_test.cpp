// The shared error type: a LessonError in the learner's words, with the field named by the caller's labels.
#include "response/response.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace qkv::api {
namespace {

std::string shouting(const std::string& field) { return "FIELD " + field; }

TEST(Response, ACellThatCouldNotBeReadIsNamedByItsPlaceAndTheCallersLabel) {
  const LessonError error{ErrorKind::Number, "\"x\" is not read", "input", 4};
  const ErrorView view = error_view(error, shouting);
  EXPECT_EQ(view.kind, "number");
  EXPECT_EQ(view.message, "\"x\" is not read");
  EXPECT_EQ(view.field, "input");
  EXPECT_EQ(view.index, 4);
  EXPECT_EQ(view.sentence, "Cell 5 of FIELD input could not be read as a number.");
}

TEST(Response, WithoutLabelsAFieldIsCalledByItsOwnName) {
  EXPECT_EQ(error_view({ErrorKind::Size, "too big", "preset"}).sentence,
            "preset is outside the sizes this lesson accepts.");
  EXPECT_EQ(error_view({ErrorKind::Qkv, "bad width"}).sentence, "The layer refused these numbers.");
  EXPECT_EQ(error_view({ErrorKind::Qkv, "bad width", "key_weight"}, shouting).sentence,
            "The layer refused these numbers (FIELD key_weight).");
}

struct Refused {
  bool ok = false;
  std::optional<ErrorView> error;
};

TEST(Response, ARefusalCarriesTheErrorAndStaysNotOk) {
  const Refused out = refusal<Refused>({ErrorKind::Budget, "costs too much"});
  EXPECT_FALSE(out.ok);
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->kind, "budget");
  EXPECT_EQ(out.error->sentence, "This is more work than the lesson allows at once; try smaller sizes.");
}

}  // namespace
}  // namespace qkv::api
