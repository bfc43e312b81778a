#include "cli/example_command.hpp"

namespace qkv::cli {
namespace {

// The file read and parsed: a JSON syntax error is refused as the evidence command refuses one.
Result<api::ExampleRequest, LessonError> read_example_file(const std::string& path) {
  auto text = read_request(path);
  if (!text) return fail(text.error());
  json document;
  try {
    document = json::parse(*text);
  } catch (const json::exception& error) {
    return fail(LessonError{ErrorKind::Arguments, error.what()});
  }
  return request_from_json<api::ExampleRequest>(document);
}

}  // namespace

CLI::App* add_example_command(CLI::App& app, ExampleOptions& options) {
  CLI::App* command = app.add_subcommand(
      "example", "an author's example file checked, and its evidence, questions and answers, as JSON");
  command->add_option("--input", options.input, "the example's JSON file (docs/examples.md), or - for stdin")
      ->required();
  return command;
}

ordered_json example_json(const ExampleOptions& options, bool& ok) {
  ok = false;
  auto request = read_example_file(options.input);
  if (!request) return error_json(request.error());
  const api::ExampleResponse example = api::example(*request);
  if (example.error) return response_json(example);
  const api::LessonResponse evaluated = api::evaluate({example.state, example.token_names});
  if (evaluated.error) return response_json(evaluated);
  // The self-score settings do not matter here: the chapter's questions read only the example.
  const api::ExercisesResponse questions = api::exercises_for({{}, example.state, example.token_names});
  if (questions.error) return response_json(questions);
  ok = true;
  ordered_json out = response_json(example);
  out["evidence"] = response_json(evaluated).at("evidence");
  out["exercises"] = response_json(questions).at("exercises");
  return out;
}

}  // namespace qkv::cli
