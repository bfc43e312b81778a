// Every exercise of the lesson in one registry: chapter 26's eleven predictions, checked against the frozen
// fixture's computed evidence, and the self-score exercises and quiz, checked against the experiment the
// learner is looking at (its seed and sizes) and the numpy module's own settings. Answers, option order,
// hints and explanations are computed here; the page keeps only the questions' prose, keyed by id.
#pragma once

#include "chapter26/chapter26.hpp"
#include "learner/exercise.hpp"
#include "self_score/self_score.hpp"

namespace qkv {

// The numpy module's own experiment, which the quiz asks about.
inline constexpr SelfScoreExperiment kModuleExperiment{1, 5, 8};

struct ExerciseContext {
  const ChapterEvidence& fixture;  // chapter 26's frozen fixture
  const SelfScoreResult& current;  // the experiment as the learner set it ...
  std::int64_t current_seed;       // ... and its seed
  const SelfScoreResult& module;   // kModuleExperiment
};

// Stable ids in the lesson's order; course pages receive them in answer statements.
const std::vector<std::string>& exercise_ids();

// The registry for these values. Ids and option ids never depend on the values; answers and
// explanations do.
std::vector<Exercise> lesson_exercises(const ExerciseContext& context);

}  // namespace qkv
