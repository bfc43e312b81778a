// The WebAssembly face of the lesson: each call takes one request object and returns one response object,
// converted field by field from the lists in api/lesson_api.hpp (mirrored by web/src/wasm-api.d.ts).
// Nothing else happens here: no reading of numbers, no rounding, no messages of its own beyond the type of
// a request field, and no C++ exception ever reaches JavaScript.
#include "wasm/bindings.hpp"

#include <emscripten/bind.h>

namespace qkv::api {
namespace {

// A request field of the wrong JavaScript type, named by its path ("request.state.batch").
LessonError wrong_type(const std::string& path, const char* expected, const val& js) {
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
    if (js.typeOf().as<std::string>() != "object" || js.isNull() || val::global("Array").call<bool>("isArray", js))
      return void(error = wrong_type(path, "an object", js));
    Reader reader{js, path, error};
    describe(reader, out);
  }
}

// One call: read the request, run it, convert the response; anything thrown becomes a typed error.
template <class Request, class Response>
val call(const val& js, Response (*run)(const Request&)) {
  return guarded([&] {
    Request request;
    std::optional<LessonError> error;
    read(js, request, "request", error);
    return error ? refused(*error) : to_js(run(request));
  });
}

val fixture_js() {
  return guarded([] { return to_js(fixture()); });
}
val evaluate_js(val request) { return call(request, &evaluate); }
#ifdef QKV_TEST_BINDINGS
val self_score_js(val request) { return call(request, &self_score); }
val find_seed_js(val request) {
  return call(
      request, +[](const SeedSearchRequest& r) { return find_seed(r); });
}
#endif
val exercises_js(val request) { return call(request, &exercises); }

// The worker's calls. The summary's doubles leave the heap as Float64Arrays, which the worker transfers
// to the page; the search reports how many seeds it has tried to `on_progress` (a function of one
// number) as it goes.
val self_score_summary_js(val request) {
  return guarded([&] {
    SelfScoreRequest typed;
    std::optional<LessonError> error;
    read(request, typed, "request", error);
    return error ? refused(*error) : to_js<Doubles::Float64Array>(self_score_summary(typed));
  });
}
val find_seed_with_progress_js(val request, val on_progress) {
  return guarded([&] {
    SeedSearchRequest typed;
    std::optional<LessonError> error;
    read(request, typed, "request", error);
    if (error) return refused(*error);
    if (on_progress.typeOf().as<std::string>() != "function")
      return refused(wrong_type("progress", "a function", on_progress));
    return to_js(find_seed(typed, [&](std::int64_t tried) { on_progress(static_cast<double>(tried)); }));
  });
}
val check_answer_js(val request) { return call(request, &check_answer); }
val provenance_js(val request) { return call(request, &provenance); }
val scale_js(val request) { return call(request, &scale); }

}  // namespace
}  // namespace qkv::api

EMSCRIPTEN_BINDINGS(qkv_lesson) {
  emscripten::function("fixture", &qkv::api::fixture_js);
  emscripten::function("evaluate", &qkv::api::evaluate_js);
  emscripten::function("exercises", &qkv::api::exercises_js);
  emscripten::function("selfScoreSummary", &qkv::api::self_score_summary_js);
  emscripten::function("findSeedWithProgress", &qkv::api::find_seed_with_progress_js);
  emscripten::function("checkAnswer", &qkv::api::check_answer_js);
  emscripten::function("provenance", &qkv::api::provenance_js);
  emscripten::function("scale", &qkv::api::scale_js);
#ifdef QKV_TEST_BINDINGS
  // The whole experiment and the plain search, which the tests compare with numpy; the page calls the
  // worker's summary and the search with progress instead, so its module leaves these out.
  emscripten::function("selfScore", &qkv::api::self_score_js);
  emscripten::function("findSeed", &qkv::api::find_seed_js);
#endif
}
