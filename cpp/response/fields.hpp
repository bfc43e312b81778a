// The one reader and the one writer of the field lists (describe() beside each type), shared by the front
// ends: the command line's over JSON (cli/json_fields.hpp) and the WebAssembly modules' over JavaScript
// values (wasm/bindings.hpp). Each front end supplies a small adapter saying what its values are; the
// rules, the paths and the messages are written once, here.
//
// Reading: absent fields keep their defaults; a string must be a string, a flag a boolean, a floating field a
// number, an integer field a whole number from 0 to 2^53 - 1 (as JavaScript's numbers hold them exactly), a
// list an array (its items named "request.x[3]"), a described type an object; anything else is refused with
// kind "arguments" and named by its path: "request.state.batch must be a string, got number" (JavaScript's
// words for the type). Writing: the same field names in the same order, absent optionals left out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "response/response.hpp"

namespace qkv::api {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

// A cell an author may write as a JSON number or as decimal text ("0.1", which a double cannot hold
// exactly): read as either and kept as given; the core reads the text with its one number reader.
struct NumberOrText {
  std::optional<double> number;  // when written as a number
  std::string text;              // when written as text
};

// The largest whole number a JavaScript number holds exactly (Number.MAX_SAFE_INTEGER).
inline constexpr std::uint64_t kMaxWholeNumber = 9007199254740991u;

// `type` in JavaScript's words: null, an array, string, number, boolean, object, undefined...
inline LessonError wrong_type(const std::string& path, const char* expected, const std::string& type) {
  return {ErrorKind::Arguments, path + " must be " + expected + ", got " + type, path};
}

// A described type whose readers refuse a field its list does not name (an author's file, where a misspelt
// field would otherwise be left out without a word) declares `refuses_unknown_fields(UnknownFields, const
// T*)` in this namespace (the tag lets argument-dependent lookup find it for a type of another namespace).
struct UnknownFields {};
template <class T, class = void>
struct refuses_unknown : std::false_type {};
template <class T>
struct refuses_unknown<
    T, std::void_t<decltype(refuses_unknown_fields(UnknownFields{}, static_cast<const T*>(nullptr)))>>
    : std::true_type {};

// Visits a field list: whether it names `key`, and every name, for the message.
struct FieldNames {
  const std::string& key;
  bool found = false;
  std::string names;
  template <class T>
  void operator()(const char* name, const T&) {
    found = found || key == name;
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
};

// ---- reading ----
// An adapter A over a value type A::Value, all static functions of a value:
//   is_string, is_number, is_array (a list), is_object (for a described type: neither null nor a list);
//   type_word: JavaScript's word for the value's type, as above;
//   as_string, as_double;
//   exact_unsigned: a std::uint64_t when the source holds the number as one exactly, else std::nullopt
//     (then it is read through as_double);
//   length and element(value, i) of a list;
//   field(object, key): something that tests false when the field is absent and dereferences to its value;
//   keys(object): its field names (for the types that refuse unknown fields).
template <class A, class T>
void read_fields(const typename A::Value& js, T& out, const std::string& path,
                 std::optional<LessonError>& error);

// Visits a request's field list and reads each present field; absent fields keep their defaults.
template <class A>
struct FieldReader {
  const typename A::Value& in;
  const std::string& path;
  std::optional<LessonError>& error;
  template <class T>
  void operator()(const char* key, const T& member) {
    if (error) return;
    // The request object is ours, not const: describe() lists it as const for the writers' sake.
    if (const auto field = A::field(in, key))
      read_fields<A>(*field, const_cast<T&>(member), path + "." + key, error);
  }
};

template <class A, class T>
void read_fields(const typename A::Value& js, T& out, const std::string& path,
                 std::optional<LessonError>& error) {
  const auto refuse = [&](const char* expected) { error = wrong_type(path, expected, A::type_word(js)); };
  if constexpr (std::is_same_v<T, std::string>) {
    if (!A::is_string(js)) return refuse("a string");
    out = A::as_string(js);
  } else if constexpr (std::is_same_v<T, NumberOrText>) {
    if (A::is_number(js)) {
      out = {A::as_double(js), {}};
    } else {
      if (!A::is_string(js)) return refuse("a number or a string");
      out = {std::nullopt, A::as_string(js)};
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!A::is_boolean(js)) return refuse("a boolean");
    out = A::as_bool(js);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!A::is_number(js)) return refuse("a number");
    out = A::as_double(js);
  } else if constexpr (std::is_arithmetic_v<T>) {
    if (!A::is_number(js)) return refuse("a number");
    const std::optional<std::uint64_t> exact = A::exact_unsigned(js);
    const double number = exact ? 0.0 : A::as_double(js);
    const bool whole = exact ? *exact <= kMaxWholeNumber
                             : number >= 0 && number <= static_cast<double>(kMaxWholeNumber) &&
                                   number == static_cast<double>(static_cast<T>(number));
    if (!whole)
      return void(error = LessonError{ErrorKind::Arguments, path + " must be a whole number", path});
    out = exact ? static_cast<T>(*exact) : static_cast<T>(number);
  } else if constexpr (is_optional<T>::value) {
    read_fields<A>(js, out.emplace(), path, error);
  } else if constexpr (is_vector<T>::value) {
    if (!A::is_array(js)) return refuse("an array");
    out.resize(A::length(js));
    for (std::size_t i = 0; i < out.size() && !error; ++i)
      read_fields<A>(A::element(js, i), out[i], path + "[" + std::to_string(i) + "]", error);
  } else {
    if (!A::is_object(js)) return refuse("an object");
    if constexpr (refuses_unknown<T>::value) {
      for (const std::string& key : A::keys(js)) {
        FieldNames names{key};
        describe(names, out);
        if (!names.found)
          return void(error = LessonError{ErrorKind::Arguments,
                                          path + "." + key + " is not a field; the fields are " + names.names,
                                          path + "." + key});
      }
    }
    FieldReader<A> reader{js, path, error};
    describe(reader, out);
  }
}

// ---- writing ----
// An adapter A over an output type A::Out, all static:
//   converts<T>, a bool: A converts a T itself, with convert(value) (numbers and strings at least);
//   array() and object(): an empty list, an empty object;
//   push(list, i, item) and set(object, key, item): add an item to a list, a field to an object.
template <class A, class T>
typename A::Out write_fields(const T& value);

// Visits a response's field list; absent optionals are left out.
template <class A>
struct FieldWriter {
  typename A::Out& out;
  template <class T>
  void operator()(const char* key, const T& member) {
    A::set(out, key, write_fields<A>(member));
  }
  template <class T>
  void operator()(const char* key, const std::optional<T>& member) {
    if (member) A::set(out, key, write_fields<A>(*member));
  }
};

template <class A, class T>
typename A::Out write_fields(const T& value) {
  if constexpr (A::template converts<T>) {
    return A::convert(value);
  } else if constexpr (is_vector<T>::value) {
    typename A::Out out = A::array();
    for (std::size_t i = 0; i < value.size(); ++i) A::push(out, i, write_fields<A>(value[i]));
    return out;
  } else {
    typename A::Out out = A::object();
    FieldWriter<A> writer{out};
    describe(writer, value);
    return out;
  }
}

}  // namespace qkv::api
