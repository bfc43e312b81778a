#include "learner/exercise.hpp"

#include <algorithm>
#include <cctype>

#include "learner/answer_reader.hpp"
#include "learner/provenance.hpp"
#include "text/format.hpp"
#include "text/template.hpp"

namespace qkv {
namespace {

const char *ordinal(std::size_t i) {
  static const char *const words[] = {"first", "second", "third",   "fourth",
                                      "fifth", "sixth",  "seventh", "eighth"};
  return i < 8 ? words[i] : "next";
}

std::string joined(const std::vector<std::string> &parts, const std::string &last_separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? last_separator : ", ";
    out += parts[i];
  }
  return out;
}

std::string count_words(std::size_t n, const char *one, const char *many) {
  return fill("{0} {1}", {std::to_string(n), n == 1 ? one : many});
}

// What is right and what is not in a read shape, e.g. "a rank-two shape: this
// layer keeps the batch axis".
std::string shape_hint(const Shape &read, const Shape &expected) {
  if (read.size() != expected.size()) {
    if (read.size() + 1 == expected.size() && expected.size() == 3)
      return "a rank-two shape: this layer keeps the batch axis, so every "
             "output has three axes";
    return fill("your shape has {0}; the answer has {1}",
                {count_words(read.size(), "axis", "axes"), std::to_string(expected.size())});
  }
  static const char *const axes3[] = {"batch", "token", "last"};
  std::vector<std::string> right, wrong;
  for (std::size_t i = 0; i < read.size(); ++i)
    (read[i] == expected[i] ? right : wrong).push_back(expected.size() == 3 ? axes3[i] : ordinal(i));
  if (right.empty()) return "no extent is right yet";
  return fill("your {0}{1} right; the {2}{3}",
              {joined(right, " and "), right.size() == 1 ? " extent is" : " extents are",
               joined(wrong, " and "), wrong.size() == 1 ? " is not" : " are not"});
}

// "q₀[1] = x₀ · column 1 of W_Q = 1·W_Q[0,1] + 2·W_Q[1,1] + (−1)·W_Q[2,1]":
// what to add up for coordinate j, with the row's numbers in and the weight's
// entries named for the learner to look up.
std::string coordinate_sum(const Blank &blank, std::size_t j) {
  const std::string column = std::to_string(j);
  std::string out =
      fill("{0}[{1}] = {2} · column {1} of {3} = ", {blank.label, column, blank.row_name, blank.weight_name});
  for (std::size_t k = 0; k < blank.row.size(); ++k)
    out += fill("{0}{1}·{2}[{3},{4}]", {k > 0 ? " + " : "", written_factor(blank.row[k]), blank.weight_name,
                                        std::to_string(k), column});
  return out;
}

std::string vector_hint(const std::vector<double> &read, const Blank &blank) {
  const std::vector<double> &expected = blank.vector;
  if (read.size() != expected.size())
    return fill("you gave {0}; this vector has {1} (one per column of the weight)",
                {count_words(read.size(), "coordinate", "coordinates"), std::to_string(expected.size())});
  std::vector<std::string> right;
  std::size_t first_wrong = read.size();
  for (std::size_t i = 0; i < read.size(); ++i) {
    if (read[i] == expected[i])
      right.push_back(ordinal(i));
    else if (first_wrong == read.size())
      first_wrong = i;
  }
  if (right.size() == read.size()) return "right";
  std::string out =
      right.empty() ? "no coordinate is right yet"
                    : fill("your {0}{1} right", {joined(right, " and "),
                                                 right.size() == 1 ? " coordinate is" : " coordinates are"});
  if (!blank.row.empty()) out += fill("; work out {0}", {coordinate_sum(blank, first_wrong)});
  return out;
}

std::string with_label(const Blank &blank, const std::string &text, std::size_t blanks) {
  return blanks > 1 && !blank.label.empty() ? fill("{0}: {1}", {blank.label, text}) : text;
}

}  // namespace

const char *answer_kind_name(AnswerKind kind) {
  switch (kind) {
    case AnswerKind::Choice:
      return "choice";
    case AnswerKind::Count:
      return "count";
    case AnswerKind::Shape:
      return "shape";
    case AnswerKind::Vector:
      return "vector";
  }
  return "choice";
}

std::string vector_text(const std::vector<double> &values) {
  std::vector<std::string> parts;
  for (double value : values) parts.push_back(format_prose(value));
  return fill("[{0}]", {joined(parts, ", ")});
}

std::vector<std::string> answer_text(const Exercise &exercise) {
  std::vector<std::string> out;
  for (const Blank &blank : exercise.blanks) {
    switch (blank.kind) {
      case AnswerKind::Choice:
        out.push_back(blank.choice);
        break;
      case AnswerKind::Count:
        out.push_back(std::to_string(blank.count));
        break;
      case AnswerKind::Shape:
        out.push_back(shape_text(blank.shape));
        break;
      case AnswerKind::Vector:
        out.push_back(vector_text(blank.vector));
        break;
    }
  }
  return out;
}

namespace {

// "  An  Error " as "an error": how a typed word is matched against an
// exercise's word hints.
std::string lowercase_words(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

const std::string *hint_for_word(const Exercise &exercise, const std::string &response) {
  const std::string typed = lowercase_words(response);
  for (const auto &[word, hint] : exercise.word_hints)
    if (typed == word) return &hint;
  return nullptr;
}

}  // namespace

Result<Verdict, LessonError> check_answer(const Exercise &exercise,
                                          const std::vector<std::string> &responses) {
  if (!exercise.not_graded.empty()) return fail(LessonError{ErrorKind::Exercise, exercise.not_graded, "id"});
  if (responses.size() != exercise.blanks.size())
    return fail(LessonError{ErrorKind::Exercise,
                            fill("exercise {0} takes {1} response{2}, got {3}",
                                 {exercise.id, std::to_string(exercise.blanks.size()),
                                  exercise.blanks.size() == 1 ? "" : "s", std::to_string(responses.size())}),
                            "responses"});
  Verdict verdict;
  verdict.correct = true;
  verdict.answer = answer_text(exercise);
  verdict.explanation = exercise.explanation;
  std::vector<std::string> hints;
  const std::size_t blanks = exercise.blanks.size();
  for (std::size_t i = 0; i < blanks; ++i) {
    const Blank &blank = exercise.blanks[i];
    const std::string &response = responses[i];
    const auto not_read = [&](const ReadError &error) {
      return fail(LessonError{ErrorKind::Number, error.message(), "responses", static_cast<std::int64_t>(i)});
    };
    bool right = false;
    std::string hint;
    const std::string *word_hint =
        blank.kind == AnswerKind::Choice ? nullptr : hint_for_word(exercise, response);
    if (word_hint) {
      verdict.read.push_back(lowercase_words(response));
      hint = *word_hint;
    } else
      switch (blank.kind) {
        case AnswerKind::Choice: {
          if (response.empty())
            return fail(LessonError{ErrorKind::Number, "nothing chosen: expected one of the options",
                                    "responses", 0});
          if (std::find(exercise.choices.begin(), exercise.choices.end(), response) == exercise.choices.end())
            return fail(
                LessonError{ErrorKind::Exercise,
                            fill("exercise {0} has no option \"{1}\"", {exercise.id, shortened(response)}),
                            "responses", 0});
          verdict.read.push_back(response);
          right = response == blank.choice;
          for (const auto &[choice, text] : exercise.choice_hints)
            if (choice == response) hint = text;
          break;
        }
        case AnswerKind::Count: {
          auto count = read_count(response, 0, blank.count_max, blank.count_total);
          if (!count) return not_read(count.error());
          verdict.read.push_back(std::to_string(*count));
          right = *count == blank.count;
          if (!right) {
            hint = *count > blank.count ? "too many" : "too few";
            for (const auto &[slip, counted] : blank.count_slips) {
              if (slip != *count) continue;
              (hint += ": ") += counted;
              break;
            }
          }
          break;
        }
        case AnswerKind::Shape: {
          auto shape = read_shape(response);
          if (!shape) return not_read(shape.error());
          verdict.read.push_back(shape_text(*shape));
          right = *shape == blank.shape;
          if (!right) hint = shape_hint(*shape, blank.shape);
          break;
        }
        case AnswerKind::Vector: {
          auto vector = read_vector(response);
          if (!vector) return not_read(vector.error());
          verdict.read.push_back(vector_text(*vector));
          right = *vector == blank.vector;
          if (!right) hint = vector_hint(*vector, blank);
          break;
        }
      }
    verdict.correct = verdict.correct && right;
    if (blanks > 1)
      hints.push_back(with_label(blank, right ? "right" : hint, blanks));
    else if (!right && !hint.empty())
      hints.push_back(hint);
  }
  if (!verdict.correct) {
    // What the reader found, as one sentence; then the exercise's own hint,
    // unless an option had its own.
    std::string found;
    for (const std::string &hint : hints) (found += found.empty() ? "" : "; ") += hint;
    if (!found.empty() && blanks == 1)
      found[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(found[0])));
    if (!found.empty() && found.back() != '.' && found.back() != '?') found += ".";
    const bool option_hint = exercise.blanks[0].kind == AnswerKind::Choice && !found.empty();
    if (!exercise.hint.empty() && !option_hint) (found += found.empty() ? "" : " ") += exercise.hint;
    verdict.hint = found;
  }
  return verdict;
}

}  // namespace qkv
