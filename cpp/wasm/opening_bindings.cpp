// An experiment, not part of the page (docs/performance.md, "A module for the opening alone"): how small a
// first module could be if it held only what the opening computes, the rest of the core coming after ready.
// QKV_OPENING_CUT 1: fixture and evaluate (the opening's numbers and the diagram); 2: also checkAnswer (the
// opening question's check, which reads the exercises' registry); 3: also exercisesFor and lessonOutcome
// (every call the start makes today).
#include <emscripten/bind.h>

#include "api/lesson_api.hpp"
#include "wasm/bindings.hpp"

namespace qkv::api {
namespace {

val fixture_js() {
  return guarded([] { return to_js(fixture()); });
}
val evaluate_js(val request) { return call(request, &evaluate); }
#if QKV_OPENING_CUT >= 2
val check_answer_js(val request) { return call(request, &check_answer); }
#endif
#if QKV_OPENING_CUT >= 3
val exercises_for_js(val request) { return call(request, &exercises_for); }
val lesson_outcome_js(val request) { return call(request, &lesson_outcome); }
#endif

}  // namespace
}  // namespace qkv::api

EMSCRIPTEN_BINDINGS(qkv_opening) {
  emscripten::function("fixture", &qkv::api::fixture_js);
  emscripten::function("evaluate", &qkv::api::evaluate_js);
#if QKV_OPENING_CUT >= 2
  emscripten::function("checkAnswer", &qkv::api::check_answer_js);
#endif
#if QKV_OPENING_CUT >= 3
  emscripten::function("exercisesFor", &qkv::api::exercises_for_js);
  emscripten::function("lessonOutcome", &qkv::api::lesson_outcome_js);
#endif
}
