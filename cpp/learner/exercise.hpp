// An exercise as data: its id, the kind of answer each blank takes, the options in the order shown, the
// right answer computed from the lesson's values, hints and the explanation. One checker grades every
// exercise the same way, through the one answer reader.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/lesson_error.hpp"
#include "support/result.hpp"
#include "tensor/tensor.hpp"
#include "text/format.hpp"

namespace qkv {

enum class AnswerKind { Choice, Count, Shape, Vector };

// "choice", "count", "shape", "vector".
const char* answer_kind_name(AnswerKind kind);

// One blank (or the one choice) and its right answer.
struct Blank {
  AnswerKind kind = AnswerKind::Choice;
  std::string label;           // how hints name it ("q₀", "the output for [0, 2, 3]")
  std::string choice;          // Choice: the right option's id
  Extent count = 0;            // Count: the right number ...
  Extent count_max = 0;        // ... and the largest the blank reads
  Shape shape;                 // Shape
  std::vector<double> vector;  // Vector
  // Count: typed numbers that are a known slip, and what each one counted instead (never the answer).
  std::vector<std::pair<Extent, std::string>> count_slips;
  // Vector, when it is a row times a weight: a wrong coordinate j gets its sum written out with the row's
  // numbers and the weight's entries by name, "q₀[1] = x₀ · column 1 of W_Q = 1·W_Q[0,1] + 2·W_Q[1,1] + …".
  std::string row_name;  // "x₀"
  std::vector<double> row;
  std::string weight_name;  // "W_Q"
  // Count: the total the question names ("how many of the 5 rows"), if any; a count out of another is
  // refused.
  std::optional<Extent> count_total;
};

struct Exercise {
  std::string id;
  std::vector<std::string> choices;  // Choice: option ids in the order shown (fixed, hand-chosen)
  std::vector<Blank> blanks;         // one per typed blank; exactly one for a choice
  // A hint for each wrong option, and one for a wrong typed answer after what the reader computed.
  std::vector<std::pair<std::string, std::string>> choice_hints;
  std::string hint;
  std::string explanation;  // why the answer is right, from the values the learner is looking at
  // Words a learner may type in a blank instead of an answer ("error"), each with the hint it gets: graded
  // wrong with that hint rather than refused as unreadable.
  std::vector<std::pair<std::string, std::string>> word_hints;
  // For a question that names the numbers on screen, its words as the core writes them from those numbers
  // (empty: the page's prose stands): the question, the option texts that name values (by option id), and
  // the blanks' labels that do.
  std::string question;
  std::vector<std::pair<std::string, std::string>> choice_texts;
  std::vector<std::string> blank_labels;
  // Why these numbers make the question meaningless (empty: it is graded); checking it is refused with it.
  std::string not_graded;
};

struct Verdict {
  bool correct = false;
  std::vector<std::string> read;  // each response as read, in the page's notation ("[4, 7, 2]", "18", "no")
  std::string hint;               // for a wrong answer: computed from what was read
  std::vector<std::string>
      answer;  // the right answer per blank, in the same notation (an option id for a choice)
  std::string explanation;
};

// Reads every response with the one reader. A response that cannot be read is a Number error ("Not read"
// is the page's prefix); a wrong count of responses or an unknown option is an Exercise error, and so is
// any check of an exercise that is not graded at its numbers (the message is its reason).
Result<Verdict, LessonError> check_answer(const Exercise& exercise,
                                          const std::vector<std::string>& responses);

// The lesson's one grading rule: a check counts as a success only when it matched and the answer was not on
// screen before it, whoever put it there (the learner's "Show the answer", the lesson itself after wrong
// checks, or a teacher's copy that shows every answer). A matching check after that is right, not earned.
inline bool counts_as_success(bool correct, bool answer_shown) { return correct && !answer_shown; }

// The right answer as a learner would type it, per blank (an option id for a choice).
std::vector<std::string> answer_text(const Exercise& exercise);

// The page's notation for vectors: "[−1, 1.5]" (for shapes, "[4, 7, 2]": shape_text in text/format.hpp).
std::string vector_text(const std::vector<double>& values);

}  // namespace qkv
