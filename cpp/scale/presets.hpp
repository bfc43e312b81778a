// The scale section's presets: a name, the words the section's sentences use for it, and the sizes. They are
// written once, in web/src/lesson/scale-presets.json (the page's buttons read the same file before this
// module is downloaded); the build turns that file into the table below (cmake/scale_presets.cmake).
#pragma once

#include <cstddef>

#include "tensor/tensor.hpp"

namespace qkv::api {

struct ScalePreset {
  const char* name;   // "gpt2-head": the request's preset
  const char* label;  // "GPT-2 small, one head": ScaleResponse::label, inside a sentence
  Extent batch, tokens, model_width, head_width;
};
extern const ScalePreset kScalePresets[];
extern const std::size_t kScalePresetCount;

}  // namespace qkv::api
