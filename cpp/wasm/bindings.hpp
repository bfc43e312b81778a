// Conversions shared by the page's module (bindings.cpp), the tests' module (test_bindings.cpp) and the
// scale section's module (scale_bindings.cpp): a described request is read field by field, a described
// response becomes a plain JavaScript object with the same field names (one key casing, the
// C++ one), and a thrown exception becomes {ok: false, error}. The reader and the writer are the command
// line's too (response/fields.hpp); this file says what a JavaScript value is to them.
#pragma once

#include <emscripten/val.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "response/fields.hpp"
#include "response/response.hpp"

namespace qkv::api {

using emscripten::val;

// How a std::vector<double> leaves the heap: as a plain Array (the page's calls, and what the tests
// compare), or as a Float64Array that a worker can transfer to the page without copying it again.
enum class Doubles { Array, Float64Array };

// A field name as a JavaScript string, made once per name (looked up by its text), so that an edit's call no
// longer decodes every key from UTF-8 again. An ordered map (found by comparing with the name as it is,
// without a std::string): a hashed one brought libc++'s hash tables into the page's module
// (docs/performance.md).
inline const val& js_key(const char* key) {
  static std::map<std::string, val, std::less<>> keys;
  auto found = keys.find(key);
  if (found == keys.end()) found = keys.emplace(key, val(key)).first;
  return found->second;
}

// How the field lists' writer makes JavaScript values: numbers as doubles, and a std::vector<double> in one
// copy out of the WASM heap, not one call per element.
template <Doubles D>
struct JsOut {
  using Out = val;
  template <class T>
  static constexpr bool converts =
      std::is_arithmetic_v<T> || std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<double>>;
  template <class T>
  static val convert(const T& value) {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>) {
      return val(value);
    } else if constexpr (std::is_arithmetic_v<T>) {
      return val(static_cast<double>(value));
    } else {
      const val view(emscripten::typed_memory_view(value.size(), value.data()));
      if constexpr (D == Doubles::Float64Array) return view.call<val>("slice");
      return val::global("Array").call<val>("from", view);
    }
  }
  static val array() { return val::array(); }
  static val object() { return val::object(); }
  static void push(val& list, std::size_t i, const val& item) { list.set(i, item); }
  static void set(val& object, const char* key, const val& item) { object.set(js_key(key), item); }
};

template <Doubles D = Doubles::Array, class T>
val to_js(const T& value) {
  return write_fields<JsOut<D>>(value);
}

inline val refused(const LessonError& error) {
  val out = val::object();
  out.set("ok", false);
  out.set("error", to_js(error_view(error)));
  return out;
}

// The one place where a C++ exception could still arise (memory the browser cannot give, a bug): it is
// turned into a typed error here, inside C++.
template <class Body>
val guarded(Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return refused({ErrorKind::Allocation, "not enough memory for the requested sizes"});
  } catch (const std::exception& error) {
    return refused({ErrorKind::Internal, error.what()});
  }
}

// What a JavaScript value is, for the field lists' reader.
struct JsIn {
  using Value = val;
  static bool is_string(const val& js) { return js.isString(); }
  static bool is_number(const val& js) { return js.isNumber(); }
  static bool is_boolean(const val& js) { return js.isTrue() || js.isFalse(); }
  static bool as_bool(const val& js) { return js.isTrue(); }
  static bool is_array(const val& js) { return val::global("Array").call<bool>("isArray", js); }
  static bool is_object(const val& js) {
    return js.typeOf().as<std::string>() == "object" && !js.isNull() && !is_array(js);
  }
  static std::string type_word(const val& js) {
    return js.isNull() ? "null" : is_array(js) ? "an array" : js.typeOf().as<std::string>();
  }
  static std::string as_string(const val& js) { return js.as<std::string>(); }
  // The library says what it refuses (a non-finite value, for one).
  static double as_double(const val& js) { return js.as<double>(); }
  // Every JavaScript number is a double.
  static std::optional<std::uint64_t> exact_unsigned(const val&) { return std::nullopt; }
  static std::size_t length(const val& js) { return js["length"].as<std::size_t>(); }
  static val element(const val& js, std::size_t i) { return js[i]; }
  static std::vector<std::string> keys(const val& js) {
    return emscripten::vecFromJSArray<std::string>(val::global("Object").call<val>("keys", js));
  }
  static std::optional<val> field(const val& js, const char* key) {
    val found = js[js_key(key)];
    if (found.isUndefined()) return std::nullopt;
    return found;
  }
};

// A request field (or argument) of the wrong JavaScript type, named by its path ("request.state.batch").
inline LessonError wrong_type(const std::string& path, const char* expected, const val& js) {
  return wrong_type(path, expected, JsIn::type_word(js));
}

template <class T>
void read(const val& js, T& out, const std::string& path, std::optional<LessonError>& error) {
  read_fields<JsIn>(js, out, path, error);
}

// One call: read the request, run it, convert the response (doubles as D says); anything thrown becomes a
// typed error.
template <Doubles D = Doubles::Array, class Request, class Response>
val call(const val& js, Response (*run)(const Request&)) {
  return guarded([&] {
    Request request;
    std::optional<LessonError> error;
    read(js, request, "request", error);
    return error ? refused(*error) : to_js<D>(run(request));
  });
}

}  // namespace qkv::api
