#include "cli/variant_command.hpp"

namespace qkv::cli {

CLI::App* add_variant_command(CLI::App& app, VariantOptions& options) {
  CLI::App* command = app.add_subcommand(
      "variant",
      "a fresh hand-computable instance of the chapter's numbers, and its questions and answers, as JSON");
  command->add_option("--seed", options.seed, "0 to 9007199254740991 (2^53 - 1)")->required();
  return command;
}

ordered_json variant_json(const VariantOptions& options, bool& ok) {
  const api::VariantResponse drawn = api::variant({options.seed});
  ok = !drawn.error;
  if (!ok) return response_json(drawn);
  // The self-score settings do not matter here: the chapter's questions read only the variant.
  const api::ExercisesResponse questions = api::exercises_for({{}, drawn.state, drawn.token_names});
  ok = !questions.error;
  if (!ok) return response_json(questions);
  ordered_json out = response_json(drawn);
  out["exercises"] = response_json(questions).at("exercises");
  return out;
}

}  // namespace qkv::cli
