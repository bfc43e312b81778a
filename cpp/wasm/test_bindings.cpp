// The tests' module adds what the page never calls: numpy's generator and the chapter's report and trace.
#include <emscripten/bind.h>

#include "wasm/bindings.hpp"

namespace qkv::api {
namespace {

val randn_js(val request) {
  return guarded([&] {
    const auto text = [&](const char* key, const char* fallback) {
      const val field = request.typeOf().as<std::string>() == "object" && !request.isNull()
                            ? request[key]
                            : val::undefined();
      return field.typeOf().as<std::string>() == "string" ? field.as<std::string>() : std::string(fallback);
    };
    return to_js(randn({text("seed", "0"), text("count", "1")}));
  });
}
val report_js() {
  return guarded([] { return to_js(report()); });
}
val trace_js() {
  return guarded([] { return to_js(trace()); });
}

}  // namespace
}  // namespace qkv::api

EMSCRIPTEN_BINDINGS(qkv_lesson_tests) {
  emscripten::function("numpyRandn", &qkv::api::randn_js);
  emscripten::function("report", &qkv::api::report_js);
  emscripten::function("trace", &qkv::api::trace_js);
}
