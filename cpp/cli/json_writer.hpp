// The command line's one conversion: a described response (api/lesson_api.hpp) becomes JSON with the same
// field names the WebAssembly module gives JavaScript; absent optionals are left out.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "api/lesson_api.hpp"

namespace qkv::cli {

template <class T>
nlohmann::json to_json(const T& value);

struct JsonWriter {
  nlohmann::json& out;
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
nlohmann::json to_json(const T& value) {
  if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
    return value;
  } else if constexpr (api::is_vector<T>::value) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) out.push_back(to_json(item));
    return out;
  } else {
    nlohmann::json out = nlohmann::json::object();
    JsonWriter writer{out};
    describe(writer, value);
    return out;
  }
}

}  // namespace qkv::cli
