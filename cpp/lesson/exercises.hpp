// The chapter's nine prediction exercises, checked against computed evidence (never against typed-in
// answers): the expected answer of each comes from the same C++ that draws the diagram.
#pragma once

#include "lesson/chapter26.hpp"

namespace qkv {

struct ExerciseCheck {
  bool correct = false;
  std::string expected;  // the computed answer, as the page shows it ("[4,7,2]", "no", "18", ...)
  std::string problem;   // set when the response could not be read (then correct is false)
};

// Stable ids, in the chapter's order; course pages receive them in answer statements.
const std::vector<std::string>& exercise_ids();

// `responses` holds one entry per blank of the exercise (three for the first-token vectors, two for the
// empty shapes, one otherwise); choices are option ids. Unknown ids and wrong counts are errors.
Result<ExerciseCheck, std::string> check_exercise(const std::string& id,
                                                  const std::vector<std::string>& responses,
                                                  const ChapterEvidence& fixture);

}  // namespace qkv
