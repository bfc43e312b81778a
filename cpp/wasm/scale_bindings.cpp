// The scale section's module (qkv-scale.mjs): one call, scale, converted like the page's calls
// (bindings.hpp). It holds the core, the benchmark's pass and this call only, so that the page's module
// stays small; the section's worker fetches it when a learner first runs a preset.
#include <emscripten/bind.h>

#include "scale/scale.hpp"
#include "wasm/bindings.hpp"

namespace qkv::api {
namespace {

val scale_js(val request) { return call(request, &scale); }

}  // namespace
}  // namespace qkv::api

EMSCRIPTEN_BINDINGS(qkv_scale) { emscripten::function("scale", &qkv::api::scale_js); }
