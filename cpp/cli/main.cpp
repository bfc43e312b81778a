// qkv-lesson: the chapter's report and trace, seeded initialisation, and projection evidence as JSON.
// Every rejected input exits 2 with {"error":{"kind","message"}} carrying the library's own message.
#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lesson/chapter26.hpp"

namespace {

using nlohmann::json;
using qkv::Result;
using qkv::Tensor;

constexpr int kBadInput = 2;

struct CliError {
  std::string kind;
  std::string message;
};

int report_error(const CliError& error) {
  std::cout << json{{"error", {{"kind", error.kind}, {"message", error.message}}}}.dump() << "\n";
  return kBadInput;
}

int report_error(const qkv::LessonError& error) {
  json body{{"kind", error.kind}, {"message", error.message}};
  if (!error.field.empty()) body["field"] = error.field;
  std::cout << json{{"error", body}}.dump() << "\n";
  return kBadInput;
}

json tensor_json(const Tensor& tensor) { return {{"shape", tensor.shape()}, {"values", tensor.values()}}; }

// {"shape": [non-negative integers], "values": [numbers]} at `path` (for messages, e.g. "upstream.key").
Result<Tensor, CliError> tensor_from_json(const json& parent, const std::string& key, const std::string& path) {
  const auto bad = [&path](const std::string& what) { return qkv::fail(CliError{"input", path + " " + what}); };
  if (!parent.contains(key)) return bad("is missing");
  const json& object = parent.at(key);
  if (!object.is_object()) return bad("must be an object with \"shape\" and \"values\"");
  if (!object.contains("shape") || !object.at("shape").is_array()) return bad("needs a \"shape\" array");
  if (!object.contains("values") || !object.at("values").is_array()) return bad("needs a \"values\" array");
  qkv::Shape shape;
  for (const json& extent : object.at("shape")) {
    if (!extent.is_number_unsigned()) return bad("shape entries must be non-negative integers");
    shape.push_back(extent.get<std::uint64_t>());
  }
  std::vector<double> values;
  const json& items = object.at("values");
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_number()) return bad("value at index " + std::to_string(i) + " is not a number");
    values.push_back(items[i].get<double>());
  }
  auto tensor = Tensor::from_values(std::move(shape), std::move(values));
  if (!tensor) return qkv::fail(CliError{"tensor", tensor.error().message()});
  return std::move(*tensor);
}

Result<qkv::ProjectionRequest, CliError> request_from_json(const json& document) {
  if (!document.is_object()) return qkv::fail(CliError{"input", "the request must be a JSON object"});
  qkv::ProjectionRequest request;
  const std::pair<const char*, Tensor*> fields[] = {{"input", &request.input},
                                                    {"query_weight", &request.query_weight},
                                                    {"key_weight", &request.key_weight},
                                                    {"value_weight", &request.value_weight}};
  for (const auto& [name, target] : fields) {
    auto tensor = tensor_from_json(document, name, name);
    if (!tensor) return qkv::fail(tensor.error());
    *target = std::move(*tensor);
  }
  if (document.contains("upstream")) {
    const json& upstream = document.at("upstream");
    if (!upstream.is_object()) return qkv::fail(CliError{"input", "upstream must be an object"});
    qkv::Upstreams tensors;
    const std::pair<const char*, Tensor*> branches[] = {
        {"query", &tensors.query}, {"key", &tensors.key}, {"value", &tensors.value}};
    for (const auto& [name, target] : branches) {
      auto tensor = tensor_from_json(upstream, name, std::string("upstream.") + name);
      if (!tensor) return qkv::fail(tensor.error());
      *target = std::move(*tensor);
    }
    request.upstream = std::move(tensors);
  }
  return request;
}

Result<std::string, CliError> read_all(const std::string& path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return qkv::fail(CliError{"io", "cannot read " + path});
  text << file.rdbuf();
  if (file.bad()) return qkv::fail(CliError{"io", "cannot read " + path});
  return text.str();
}

int run_evidence(const std::string& path) {
  auto text = read_all(path);
  if (!text) return report_error(text.error());
  json document;
  try {
    document = json::parse(*text);
  } catch (const json::exception& error) {
    // nlohmann's message names the position, and "number overflow" for literals such as 1e400.
    return report_error(CliError{"json", error.what()});
  }
  auto request = request_from_json(document);
  if (!request) return report_error(request.error());
  auto evidence = qkv::compute_projection_evidence(*request);
  if (!evidence) return report_error(evidence.error());

  json out{{"parameter_names", evidence->parameter_names},
           {"parameter_count", evidence->parameter_count},
           {"query", tensor_json(evidence->query)},
           {"key", tensor_json(evidence->key)},
           {"value", tensor_json(evidence->value)}};
  if (evidence->gradients) {
    const qkv::ProjectionGradients& g = *evidence->gradients;
    out["loss"] = g.loss;
    out["input_gradient"] = tensor_json(g.input);
    out["query_weight_gradient"] = tensor_json(g.query_weight);
    out["key_weight_gradient"] = tensor_json(g.key_weight);
    out["value_weight_gradient"] = tensor_json(g.value_weight);
    const qkv::GradcheckSummary& check = *evidence->gradcheck;
    out["gradcheck"] = {{"passed", check.passed},
                        {"checks", check.checks},
                        {"max_error", check.max_error},
                        {"tolerance", check.tolerance}};
    if (!check.problem.empty()) out["gradcheck"]["problem"] = check.problem;
  }
  std::cout << out.dump() << "\n";
  return 0;
}

int run_init(std::uint64_t seed, std::uint64_t model_width, std::uint64_t head_width, const std::string& prefix) {
  qkv::SplitMix64 rng(seed);
  auto layer = qkv::QkvProjections::create(prefix, model_width, head_width, rng);
  if (!layer) return report_error(qkv::lesson_error(layer.error()));
  json parameters = json::array();
  for (const qkv::NamedParameter& parameter : layer->parameters()) {
    parameters.push_back({{"name", parameter.name()},
                          {"shape", parameter.shape()},
                          {"values", parameter.value().value().values()}});
  }
  char state[19];
  std::snprintf(state, sizeof state, "0x%016" PRIx64, rng.state());
  std::cout << json{{"parameters", parameters}, {"generator_state", state}}.dump() << "\n";
  return 0;
}

int run_chapter(bool trace) {
  auto evidence = qkv::compute_chapter_evidence(qkv::chapter_fixture());
  if (!evidence) return report_error(evidence.error());
  std::cout << (trace ? qkv::render_trace(*evidence) : qkv::render_report(*evidence));
  return 0;
}

// Decimal digits only, 0 to 2^64 - 1.
Result<std::uint64_t, CliError> parse_u64(const std::string& option, const std::string& text) {
  const auto bad = [&] {
    return qkv::fail(CliError{"arguments", option + " must be an integer from 0 to 18446744073709551615, got " + text});
  };
  if (text.empty() || text.size() > 20) return bad();
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return bad();
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return bad();
    value = value * 10 + digit;
  }
  return value;
}

int run(int argc, char** argv) {
  CLI::App app{"qkv-lesson: query, key and value projections (chapter 26), computed by the lesson's C++ core"};
  app.require_subcommand(1);
  CLI::App* report = app.add_subcommand("report", "print the chapter report");
  CLI::App* trace = app.add_subcommand("trace", "print the diagram trace");

  CLI::App* init = app.add_subcommand("init", "the weights QkvProjections::new draws, as JSON");
  // Read as text and parsed strictly below: CLI11 would wrap "-1" and saturate 2^64.
  std::string seed, model_width, head_width;
  std::string prefix = qkv::kParameterPrefix;
  init->add_option("--seed", seed, "SplitMix64 seed (the raw state)")->required();
  init->add_option("--model-width", model_width, "d_model")->required();
  init->add_option("--head-width", head_width, "d_head")->required();
  init->add_option("--prefix", prefix, "parameter name prefix")->capture_default_str();

  CLI::App* evidence = app.add_subcommand("evidence", "forward, gradients and gradcheck for a JSON request");
  std::string input_path;
  evidence->add_option("--input", input_path, "request file, or - for stdin")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    return report_error(CliError{"arguments", error.what()});
  }
  if (*report) return run_chapter(false);
  if (*trace) return run_chapter(true);
  if (*init) {
    auto parsed_seed = parse_u64("--seed", seed);
    if (!parsed_seed) return report_error(parsed_seed.error());
    auto parsed_model = parse_u64("--model-width", model_width);
    if (!parsed_model) return report_error(parsed_model.error());
    auto parsed_head = parse_u64("--head-width", head_width);
    if (!parsed_head) return report_error(parsed_head.error());
    return run_init(*parsed_seed, *parsed_model, *parsed_head, prefix);
  }
  return run_evidence(input_path);
}

}  // namespace

int main(int argc, char** argv) {
  // The core reports every rejected input as a value; only an allocation the machine cannot give is left.
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    return report_error(CliError{"allocation", "not enough memory for the requested sizes"});
  }
}
