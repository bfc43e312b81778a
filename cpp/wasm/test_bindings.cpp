// The tests' module adds what the page never calls: numpy's generator, the chapter's report and trace,
// evidence for any request (what `qkv-lesson evidence` computes, without its JSON) and the core benchmark
// (what `qkv-lesson bench` prints).
#include <emscripten/bind.h>

#include "api/lesson_api.hpp"
#include "bench/core_bench.hpp"
#include "chapter26/projection_evidence.hpp"
#include "wasm/bindings.hpp"

namespace qkv::api {
namespace {

val randn_js(val request) { return call(request, &randn); }
val report_js() {
  return guarded([] { return to_js(report()); });
}
val trace_js() {
  return guarded([] { return to_js(trace()); });
}

// The evidence command's request, {input, query_weight, key_weight, value_weight[, upstream: {query, key,
// value}]}, each {shape, values}, through the same call the command line makes.
val evidence_js(val request) { return call(request, &evidence); }

// The core benchmark, as `qkv-lesson bench` measures it (bench/core_bench.hpp: api::bench).
val bench_js(val request) { return call(request, &bench); }

// How this module was compiled: {simd128} is true in the SIMD build (clang defines __wasm_simd128__ under
// -msimd128), so a test can tell that the SIMD variant really is one.
val features_js() {
  val out = val::object();
#if defined(__wasm_simd128__)
  out.set("simd128", true);
#else
  out.set("simd128", false);
#endif
  return out;
}

}  // namespace
}  // namespace qkv::api

EMSCRIPTEN_BINDINGS(qkv_lesson_tests) {
  emscripten::function("numpyRandn", &qkv::api::randn_js);
  emscripten::function("report", &qkv::api::report_js);
  emscripten::function("trace", &qkv::api::trace_js);
  emscripten::function("evidence", &qkv::api::evidence_js);
  emscripten::function("bench", &qkv::api::bench_js);
  emscripten::function("features", &qkv::api::features_js);
}
