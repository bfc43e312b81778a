// Conversions shared by the page's module (bindings.cpp) and the tests' module (test_bindings.cpp): a
// described response becomes a plain JavaScript object with the same field names (one key casing, the
// C++ one), and a thrown exception becomes {ok: false, error}.
#pragma once

#include <emscripten/val.h>

#include <new>
#include <optional>
#include <type_traits>
#include <vector>

#include "api/lesson_api.hpp"

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

}  // namespace qkv::api
