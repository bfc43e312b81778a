// The command line's one conversion each way, over the field lists in api/lesson_api.hpp (describe): a
// described response becomes JSON with the same field names, in the same order, that the WebAssembly
// module gives JavaScript (absent optionals left out), and a described request is read from JSON by the
// rules the module's reader applies to a JavaScript object (absent fields keep their defaults; a field of the
// wrong type is refused with kind "arguments", named by its path). Both front ends run the one reader and
// writer in response/fields.hpp; this file says only what a JSON value is to them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/lesson_api.hpp"
#include "response/fields.hpp"

namespace qkv::cli {

// Written in the field lists' order; read into a sorted map (an ordered_json object looks its keys up one by
// one, so parsing a request of many keys would take quadratic time).
using ordered_json = nlohmann::ordered_json;
using json = nlohmann::json;
// The lists of the learner's types (LessonState, EditableTensor, SourceCells) are in qkv::api too, where
// argument-dependent lookup does not look for them.
using api::describe;
using api::is_optional;

// What a parsed JSON value is, for the field lists' reader (response/fields.hpp).
struct JsonIn {
  using Value = json;
  static bool is_string(const json& js) { return js.is_string(); }
  static bool is_number(const json& js) { return js.is_number(); }
  static bool is_boolean(const json& js) { return js.is_boolean(); }
  static bool as_bool(const json& js) { return js.get<bool>(); }
  static bool is_array(const json& js) { return js.is_array(); }
  static bool is_object(const json& js) { return js.is_object(); }
  // JavaScript's words for a JSON value's type, as the module's reader says them.
  static std::string type_word(const json& js) {
    if (js.is_null()) return "null";
    if (js.is_array()) return "an array";
    if (js.is_string()) return "string";
    if (js.is_boolean()) return "boolean";
    if (js.is_number()) return "number";
    return "object";
  }
  static std::string as_string(const json& js) { return js.get<std::string>(); }
  static double as_double(const json& js) { return js.get<double>(); }
  // nlohmann keeps a non-negative integer as a std::uint64_t: read it exactly, not through a double.
  static std::optional<std::uint64_t> exact_unsigned(const json& js) {
    if (!js.is_number_unsigned()) return std::nullopt;
    return js.get<std::uint64_t>();
  }
  static std::size_t length(const json& js) { return js.size(); }
  static const json& element(const json& js, std::size_t i) { return js[i]; }
  static std::vector<std::string> keys(const json& js) {
    std::vector<std::string> out;
    for (const auto& item : js.items()) out.push_back(item.key());
    return out;
  }
  static const json* field(const json& js, const char* key) {
    const auto found = js.find(key);
    return found == js.end() ? nullptr : &*found;
  }
};

// How the field lists' writer makes JSON: numbers, booleans and strings as themselves.
struct JsonOut {
  using Out = ordered_json;
  template <class T>
  static constexpr bool converts = std::is_arithmetic_v<T> || std::is_same_v<T, std::string>;
  template <class T>
  static ordered_json convert(const T& value) {
    return value;
  }
  static ordered_json array() { return ordered_json::array(); }
  static ordered_json object() { return ordered_json::object(); }
  static void push(ordered_json& list, std::size_t, ordered_json item) { list.push_back(std::move(item)); }
  static void set(ordered_json& object, const char* key, ordered_json item) { object[key] = std::move(item); }
};

template <class T>
ordered_json to_json(const T& value) {
  return api::write_fields<JsonOut>(value);
}

template <class T>
void read_json(const json& js, T& out, const std::string& path, std::optional<LessonError>& error) {
  api::read_fields<JsonIn>(js, out, path, error);
}

// A whole request read from a JSON document ("request" names its root in messages, as in the module).
template <class Request>
Result<Request, LessonError> request_from_json(const json& document) {
  Request request;
  std::optional<LessonError> error;
  read_json(document, request, "request", error);
  if (error) return fail(*error);
  return request;
}

}  // namespace qkv::cli
