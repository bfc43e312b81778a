// The WebAssembly face of the lesson: each call takes one request object and returns one response object,
// converted field by field from the lists in api/lesson_api.hpp (from which the page's types are generated:
// web/src/lesson/core-types.d.ts).
// Nothing else happens here: no reading of numbers, no rounding, no messages of its own beyond the type of
// a request field, and no C++ exception ever reaches JavaScript. The core calls out to JavaScript in one
// place only: support/decimal.cpp's parse_decimal reads a decimal with Number() (correctly rounded, and
// without musl's long-double strtod): the page's own Number, trusted as the page is (docs/threat-model.md).
#include "wasm/bindings.hpp"

#include <emscripten/bind.h>

#include "api/lesson_api.hpp"

namespace qkv::api {
namespace {

val fixture_js() {
  return guarded([] { return to_js(fixture()); });
}
val evaluate_js(val request) { return call(request, &evaluate); }
val numerical_checks_step_js(val request) { return call(request, &numerical_checks_step); }
#ifdef QKV_TEST_BINDINGS
val self_score_js(val request) { return call(request, &self_score); }
val find_seed_js(val request) {
  return call(
      request, +[](const SeedSearchRequest& r) { return find_seed(r); });
}
#endif
val exercises_js(val request) { return call(request, &exercises); }
val exercises_for_js(val request) { return call(request, &exercises_for); }
val variant_js(val request) { return call(request, &variant); }
val example_js(val request) { return call(request, &example); }

// The worker's calls. The summary's doubles leave the heap as Float64Arrays, which the worker transfers
// to the page; the search reports how many seeds it has tried to `on_progress` (a function of one
// number) as it goes.
val self_score_summary_js(val request) { return call<Doubles::Float64Array>(request, &self_score_summary); }
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
val lesson_outcome_js(val request) { return call(request, &lesson_outcome); }
val practice_streak_js(val request) { return call(request, &practice_streak); }

}  // namespace
}  // namespace qkv::api

EMSCRIPTEN_BINDINGS(qkv_lesson) {
  emscripten::function("fixture", &qkv::api::fixture_js);
  emscripten::function("evaluate", &qkv::api::evaluate_js);
  emscripten::function("numericalChecksStep", &qkv::api::numerical_checks_step_js);
  emscripten::function("exercises", &qkv::api::exercises_js);
  emscripten::function("exercisesFor", &qkv::api::exercises_for_js);
  emscripten::function("variant", &qkv::api::variant_js);
  emscripten::function("example", &qkv::api::example_js);
  emscripten::function("selfScoreSummary", &qkv::api::self_score_summary_js);
  emscripten::function("findSeedWithProgress", &qkv::api::find_seed_with_progress_js);
  emscripten::function("checkAnswer", &qkv::api::check_answer_js);
  emscripten::function("provenance", &qkv::api::provenance_js);
  emscripten::function("lessonOutcome", &qkv::api::lesson_outcome_js);
  emscripten::function("practiceStreak", &qkv::api::practice_streak_js);
#ifdef QKV_TEST_BINDINGS
  // The whole experiment and the plain search, which the tests compare with numpy; the page calls the
  // worker's summary and the search with progress instead, so its module leaves these out.
  emscripten::function("selfScore", &qkv::api::self_score_js);
  emscripten::function("findSeed", &qkv::api::find_seed_js);
#endif
}
