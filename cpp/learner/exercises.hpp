// Every exercise of the lesson in one registry: chapter 26's predictions, checked against the chapter's
// numbers on screen (the frozen fixture, a state, a learner's edit or a drawn variant), and the self-score
// exercises and quiz, checked against the experiment the learner is looking at (its seed and sizes) and the
// numpy module's own settings. Answers, option order, hints and explanations are computed here, and so are
// the words of every question that names numbers (Exercise::question); the page keeps the rest of the
// questions' prose, keyed by id.
#pragma once

#include "chapter26/chapter26.hpp"
#include "learner/exercise.hpp"
#include "self_score/self_score.hpp"

namespace qkv {

// The numpy module's own experiment, which the quiz asks about.
inline constexpr SelfScoreExperiment kModuleExperiment{1, 5, 8};

struct ExerciseContext {
  const ChapterEvidence& chapter;  // chapter 26's numbers on screen
  const SelfScoreResult& current;  // the experiment as the learner set it ...
  std::int64_t current_seed;       // ... and its seed
  const SelfScoreResult& module;   // kModuleExperiment
  // The tokens' words, one per token (empty: the fixture story's, token_names()), and the questions' name
  // for the chapter's numbers.
  std::vector<std::string> token_names = {};
  std::string setting = "the frozen fixture";
};

// Stable ids in the lesson's order; course pages receive them in answer statements.
const std::vector<std::string>& exercise_ids();

// The registry for these values. Ids and option ids never depend on the values; answers, explanations,
// the questions that name numbers and whether they are graded do.
std::vector<Exercise> lesson_exercises(const ExerciseContext& context);

}  // namespace qkv
