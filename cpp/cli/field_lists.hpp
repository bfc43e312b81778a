// Every call's request and response types, and every type they hold, each with its field list and each
// field's type: {"FixtureResponse": {"ok": "boolean", "state": "LessonState", ...}, "LessonState": {...}}.
// The words: boolean, integer (a whole number; a request's must be from 0 to 2^53 - 1), number (a double),
// string, decimal (a number or a decimal as text, in a request), or a described type's name (QKV_DESCRIBE:
// response/describe.hpp); "[]" marks a list, "?" an optional field (left out when absent). `qkv-lesson
// fields` prints it, and scripts/generate-core-types.mjs writes web/src/lesson/core-api.d.ts from it.
#pragma once

#include <string>
#include <type_traits>

#include "api/lesson_api.hpp"
#include "bench/core_bench.hpp"
#include "cli/json_fields.hpp"
#include "scale/scale.hpp"

namespace qkv::cli {

template <class T, class = void>
struct is_described : std::false_type {};
template <class T>
struct is_described<T, std::void_t<decltype(api::described_name(static_cast<const T*>(nullptr)))>>
    : std::true_type {};

// A field's type in the words above; a field of a type that is not described does not compile.
template <class T>
std::string field_type() {
  if constexpr (std::is_same_v<T, bool>) {
    return "boolean";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "number";
  } else if constexpr (std::is_integral_v<T>) {
    return "integer";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "string";
  } else if constexpr (std::is_same_v<T, api::NumberOrText>) {
    return "decimal";
  } else if constexpr (is_optional<T>::value) {
    return field_type<typename T::value_type>() + "?";
  } else if constexpr (api::is_vector<T>::value) {
    return field_type<typename T::value_type>() + "[]";
  } else {
    return api::described_name(static_cast<const T*>(nullptr));
  }
}

template <class T>
void add_described(ordered_json& out);

// Adds the described type a value of type T holds (itself, or its items), if any.
template <class T>
void add_held(ordered_json& out) {
  if constexpr (is_optional<T>::value || api::is_vector<T>::value) {
    add_held<typename T::value_type>(out);
  } else if constexpr (is_described<T>::value) {
    add_described<T>(out);
  }
}

struct FieldTypes {
  ordered_json& fields;
  ordered_json& out;
  template <class T>
  void operator()(const char* key, const T&) {
    fields[key] = field_type<T>();
    add_held<T>(out);
  }
};

// A type's field list, then those of the types it holds (each once, where first met).
template <class T>
void add_described(ordered_json& out) {
  const char* name = api::described_name(static_cast<const T*>(nullptr));
  if (out.contains(name)) return;
  out[name] = ordered_json::object();
  ordered_json fields = ordered_json::object();
  FieldTypes visitor{fields, out};
  describe(visitor, T{});
  out[name] = std::move(fields);
}

// A call's types, read from its signature: its response and each described argument (its request).
template <class Call>
struct CallTypes;
template <class Response, class... Arguments>
struct CallTypes<Response (*)(Arguments...)> {
  static void add(ordered_json& out) {
    (add_held<std::decay_t<Arguments>>(out), ...);
    add_held<Response>(out);
  }
};

template <class... Calls>
ordered_json types_of_calls() {
  ordered_json out = ordered_json::object();
  (CallTypes<Calls>::add(out), ...);
  return out;
}

// The calls of api/lesson_api.hpp, bench/core_bench.hpp and scale/scale.hpp (projection_response is
// evidence's, from a type that is not a request).
inline ordered_json field_lists() {
  return types_of_calls<decltype(&api::fixture), decltype(&api::evaluate), decltype(&api::numerical_checks),
                        decltype(&api::numerical_checks_step), decltype(&api::provenance),
                        decltype(&api::self_score), decltype(&api::self_score_summary),
                        decltype(&api::find_seed), decltype(&api::exercises), decltype(&api::exercises_for),
                        decltype(&api::variant), decltype(&api::example), decltype(&api::check_answer),
                        decltype(&api::lesson_outcome), decltype(&api::practice_streak),
                        decltype(&api::randn), decltype(&api::report), decltype(&api::trace),
                        decltype(&api::evidence), decltype(&api::bench), decltype(&api::scale)>();
}

}  // namespace qkv::cli
