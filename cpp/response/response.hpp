// The shared response types below every call: the error every response carries ({ok: false, error}), in the
// library's words and the learner's, and what a front end's converter needs to walk a field list. The
// lesson's calls (api/), the benchmark (bench/) and the scale section (scale/) all answer with these, so the
// two modules that leave out the lesson (the scale section's, the benchmark's) include only this header.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "response/describe.hpp"
#include "support/lesson_error.hpp"

namespace qkv::api {

struct ErrorView {
  std::string kind;  // kind_name()
  std::string message;
  std::string field;
  std::int64_t index = -1;
  std::string sentence;
};

// The page's name for a request field ("W_Q" for "query_weight"). Each room that reads fields names them
// (learner/editable_state.hpp, api/lesson_api.cpp); without one, a field is called by its own name.
using FieldLabel = std::string (*)(const std::string& field);

// The same fact as `error` for a learner: where it happened, in the page's names (`where`, "" when the
// error names no field), and what the page does about it: "Cell 5 of W_K could not be read as a number."
std::string sentence(const LessonError& error, const std::string& where);

ErrorView error_view(const LessonError& error, FieldLabel label = nullptr);
// A response that refuses: ok stays false and error says why (every response type has both fields).
template <class Response>
Response refusal(const LessonError& error, FieldLabel label = nullptr) {
  Response out;
  out.error = error_view(error, label);
  return out;
}

// A front end's converter walks the field lists (describe() beside each type); it tells lists of values
// from described objects with this.
template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};

QKV_DESCRIBE(ErrorView) {
  QKV_FIELD(kind);
  QKV_FIELD(message);
  QKV_FIELD(field);
  QKV_FIELD(index);
  QKV_FIELD(sentence);
}

}  // namespace qkv::api
