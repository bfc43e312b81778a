// `qkv-lesson example --input FILE`: an author's example file (docs/examples.md) checked by the core as the
// page's `example` attribute is, and, when accepted, its evidence and the chapter's questions and answers
// for it, as one line of JSON, so that an author sees what the lesson will ask before shipping the file.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/request.hpp"

namespace qkv::cli {

struct ExampleOptions {
  std::string input;  // a path, or "-" for standard input
};

CLI::App* add_example_command(CLI::App& app, ExampleOptions& options);

// {"title", "token_names", "state", "evidence", "exercises": [ExerciseView...]}, or error_json(); false on
// an error.
ordered_json example_json(const ExampleOptions& options, bool& ok);

}  // namespace qkv::cli
