// The command line's one conversion each way, over the field lists in api/lesson_api.hpp (describe): a
// described response becomes JSON with the same field names, in the same order, that the WebAssembly
// module gives JavaScript (absent optionals left out), and a described request is read from JSON by the
// rules the module's reader applies to a JavaScript object (wasm/bindings.hpp: absent fields keep their
// defaults; a field of the wrong type is refused with kind "arguments", named by its path).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "api/lesson_api.hpp"

namespace qkv::cli {

// Written in the field lists' order; read into a sorted map (an ordered_json object looks its keys up one by
// one, so parsing a request of many keys would take quadratic time).
using ordered_json = nlohmann::ordered_json;
using json = nlohmann::json;
// The lists of the learner's types (LessonState, EditableTensor, SourceCells) are in qkv::api too, where
// argument-dependent lookup does not look for them.
using api::describe;

template <class T>
ordered_json to_json(const T& value);

struct JsonWriter {
  ordered_json& out;
  template <class T>
  void operator()(const char* key, const T& member) {
    out[key] = to_json(member);
  }
  template <class T>
  void operator()(const char* key, const std::optional<T>& member) {
    if (member) out[key] = to_json(*member);
  }
};

template <class T>
ordered_json to_json(const T& value) {
  if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
    return value;
  } else if constexpr (api::is_vector<T>::value) {
    ordered_json out = ordered_json::array();
    for (const auto& item : value) out.push_back(to_json(item));
    return out;
  } else {
    ordered_json out = ordered_json::object();
    JsonWriter writer{out};
    describe(writer, value);
    return out;
  }
}

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

// JavaScript's words for a JSON value's type, as the module's wrong_type() says them.
inline std::string json_type(const json& js) {
  if (js.is_null()) return "null";
  if (js.is_array()) return "an array";
  if (js.is_string()) return "string";
  if (js.is_boolean()) return "boolean";
  if (js.is_number()) return "number";
  return "object";
}

inline LessonError wrong_type(const std::string& path, const char* expected, const json& js) {
  return {ErrorKind::Arguments, path + " must be " + expected + ", got " + json_type(js), path};
}

template <class T>
void read_json(const json& js, T& out, const std::string& path, std::optional<LessonError>& error);

struct JsonReader {
  const json& in;
  const std::string& path;
  std::optional<LessonError>& error;
  template <class T>
  void operator()(const char* key, const T& member) {
    const auto field = in.find(key);
    if (error || field == in.end()) return;
    read_json(*field, const_cast<T&>(member), path + "." + key, error);  // the request object is ours
  }
};

template <class T>
void read_json(const json& js, T& out, const std::string& path, std::optional<LessonError>& error) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (!js.is_string()) return void(error = wrong_type(path, "a string", js));
    out = js.get<std::string>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!js.is_number()) return void(error = wrong_type(path, "a number", js));
    out = js.get<double>();
  } else if constexpr (std::is_arithmetic_v<T>) {
    // Whole numbers from 0 to 2^53 - 1, as JavaScript's numbers hold them exactly (the module's rule).
    if (!js.is_number()) return void(error = wrong_type(path, "a number", js));
    const double number = js.get<double>();
    const bool whole = js.is_number_unsigned() ? js.get<std::uint64_t>() <= 9007199254740991u
                                               : number >= 0 && number <= 9007199254740991.0 &&
                                                     number == static_cast<double>(static_cast<T>(number));
    if (!whole)
      return void(error = LessonError{ErrorKind::Arguments, path + " must be a whole number", path});
    out = js.is_number_unsigned() ? static_cast<T>(js.get<std::uint64_t>()) : static_cast<T>(number);
  } else if constexpr (is_optional<T>::value) {
    read_json(js, out.emplace(), path, error);
  } else if constexpr (api::is_vector<T>::value) {
    if (!js.is_array()) return void(error = wrong_type(path, "an array", js));
    out.resize(js.size());
    for (std::size_t i = 0; i < out.size() && !error; ++i)
      read_json(js[i], out[i], path + "[" + std::to_string(i) + "]", error);
  } else {
    if (!js.is_object()) return void(error = wrong_type(path, "an object", js));
    JsonReader reader{js, path, error};
    describe(reader, out);
  }
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
