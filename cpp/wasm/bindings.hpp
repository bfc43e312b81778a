// Conversions shared by the page's module (bindings.cpp), the tests' module (test_bindings.cpp) and the
// scale section's module (scale_bindings.cpp): a described request is read field by field, a described
// response becomes a plain JavaScript object with the same field names (one key casing, the
// C++ one), and a thrown exception becomes {ok: false, error}.
#pragma once

#include <emscripten/val.h>

#include <new>
#include <optional>
#include <type_traits>
#include <vector>

#include "response/response.hpp"

namespace qkv::api {

using emscripten::val;

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

// How a std::vector<double> leaves the heap: as a plain Array (the page's calls, and what the tests
// compare), or as a Float64Array that a worker can transfer to the page without copying it again.
enum class Doubles { Array, Float64Array };

template <Doubles D = Doubles::Array, class T>
val to_js(const T& value);

// Visits a response's field list; absent optionals are left out.
template <Doubles D>
struct Writer {
  val& out;
  template <class T>
  void operator()(const char* key, const T& member) {
    out.set(key, to_js<D>(member));
  }
  template <class T>
  void operator()(const char* key, const std::optional<T>& member) {
    if (member) out.set(key, to_js<D>(*member));
  }
};

template <Doubles D, class T>
val to_js(const T& value) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>) {
    return val(value);
  } else if constexpr (std::is_arithmetic_v<T>) {
    return val(static_cast<double>(value));
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    // One copy out of the WASM heap, not one call per element.
    const val view(emscripten::typed_memory_view(value.size(), value.data()));
    if constexpr (D == Doubles::Float64Array) return view.call<val>("slice");
    return val::global("Array").call<val>("from", view);
  } else if constexpr (is_vector<T>::value) {
    val out = val::array();
    for (std::size_t i = 0; i < value.size(); ++i) out.set(i, to_js<D>(value[i]));
    return out;
  } else {
    val out = val::object();
    Writer<D> writer{out};
    describe(writer, value);
    return out;
  }
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

// A request field of the wrong JavaScript type, named by its path ("request.state.batch").
inline LessonError wrong_type(const std::string& path, const char* expected, const val& js) {
  const bool array = val::global("Array").call<bool>("isArray", js);
  const std::string type = js.isNull() ? "null" : array ? "an array" : js.typeOf().as<std::string>();
  return {ErrorKind::Arguments, path + " must be " + expected + ", got " + type, path};
}

template <class T>
void read(const val& js, T& out, const std::string& path, std::optional<LessonError>& error);

// Visits a request's field list and reads each present field; absent fields keep their defaults.
struct Reader {
  const val& in;
  const std::string& path;
  std::optional<LessonError>& error;
  template <class T>
  void operator()(const char* key, const T& member) {
    const val field = in[key];
    if (error || field.isUndefined()) return;
    read(field, const_cast<T&>(member), path + "." + key, error);  // the request object is ours, not const
  }
};

template <class T>
void read(const val& js, T& out, const std::string& path, std::optional<LessonError>& error) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (js.typeOf().as<std::string>() != "string") return void(error = wrong_type(path, "a string", js));
    out = js.as<std::string>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (js.typeOf().as<std::string>() != "number") return void(error = wrong_type(path, "a number", js));
    out = js.as<double>();  // the library says what it refuses (a non-finite value, for one)
  } else if constexpr (std::is_arithmetic_v<T>) {
    if (js.typeOf().as<std::string>() != "number") return void(error = wrong_type(path, "a number", js));
    const double number = js.as<double>();
    if (!(number >= 0 && number <= 9007199254740991.0) ||
        number != static_cast<double>(static_cast<T>(number)))
      return void(error = LessonError{ErrorKind::Arguments, path + " must be a whole number", path});
    out = static_cast<T>(number);
  } else if constexpr (is_optional<T>::value) {
    read(js, out.emplace(), path, error);
  } else if constexpr (is_vector<T>::value) {
    if (!val::global("Array").call<bool>("isArray", js))
      return void(error = wrong_type(path, "an array", js));
    out.resize(js["length"].as<std::size_t>());
    for (std::size_t i = 0; i < out.size() && !error; ++i)
      read(js[i], out[i], path + "[" + std::to_string(i) + "]", error);
  } else {
    if (js.typeOf().as<std::string>() != "object" || js.isNull() ||
        val::global("Array").call<bool>("isArray", js))
      return void(error = wrong_type(path, "an object", js));
    Reader reader{js, path, error};
    describe(reader, out);
  }
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
