// `qkv-lesson variant --seed N`: a drawn variant (learner/variant.hpp) as one line of JSON, its state and
// token words as the API returns them, and the registry's questions and answers for it, so that a script
// (tools/check_variants_numpy.py) can recompute every answer from the state.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/request.hpp"

namespace qkv::cli {

struct VariantOptions {
  std::string seed;  // as typed: the API reads it, as it does the page's
};

CLI::App* add_variant_command(CLI::App& app, VariantOptions& options);

// {"seed", "state", "token_names", "exercises": [ExerciseView...]}, or error_json(); false on an error.
ordered_json variant_json(const VariantOptions& options, bool& ok);

}  // namespace qkv::cli
