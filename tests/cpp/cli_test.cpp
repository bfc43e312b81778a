// The qkv-lesson command-line tool, run as a separate process: report and trace against the golden files,
// seeded initialisation against the course's bits, evidence against the frozen fixture, and every class of
// bad input answered with exit status 2 and a JSON error (never a crash or a signal).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace qkv {
namespace {

using namespace test;

// Spec section 4: the course observed gradcheck errors at or below 4.4e-10 on the fixture.
constexpr double kFixtureMaxErrorBelow = 5e-10;

const json& fixture() {
  static const json loaded = test::load_fixture();
  return loaded;
}

// `qkv-lesson evidence --input <file holding request>`.
CliRun run_evidence(const json& request) {
  const std::string path = write_temp("request.json", request.dump());
  CliRun run = run_cli("evidence --input " + quoted(path));
  std::remove(path.c_str());
  return run;
}

// Stdout must be exactly one JSON document on one LF-terminated line.
json parse_one_line(const CliRun& run) {
  EXPECT_FALSE(run.out.empty());
  EXPECT_EQ(run.out.back(), '\n');
  EXPECT_EQ(run.out.find('\n'), run.out.size() - 1) << run.out;
  return json::parse(run.out);
}

std::set<std::string> keys_of(const json& object) {
  std::set<std::string> keys;
  for (const auto& item : object.items()) keys.insert(item.key());
  return keys;
}

// Exit status exactly 2, nothing on stderr, and {"error": {"kind", "message"[, "field"]}} on stdout.
json expect_rejected(const CliRun& run, const std::string& kind, const std::string& message,
                     const std::string& field = "") {
  EXPECT_TRUE(run.exited) << "the tool did not exit normally: " << run.out;
  EXPECT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_EQ(run.err, "");
  json document = parse_one_line(run);
  EXPECT_EQ(keys_of(document), (std::set<std::string>{"error"})) << run.out;
  const json& error = document.at("error");
  EXPECT_EQ(error.at("kind").get<std::string>(), kind) << run.out;
  EXPECT_EQ(error.at("message").get<std::string>(), message) << run.out;
  if (field.empty()) {
    EXPECT_EQ(keys_of(error), (std::set<std::string>{"kind", "message"})) << run.out;
  } else {
    EXPECT_EQ(keys_of(error), (std::set<std::string>{"kind", "message", "field"})) << run.out;
    EXPECT_EQ(error.value("field", ""), field) << run.out;
  }
  return document;
}

// The fixture's request, exactly as the fixture file spells it.
json fixture_request() {
  return {{"input", fixture().at("input")},
          {"query_weight", fixture().at("query_weight")},
          {"key_weight", fixture().at("key_weight")},
          {"value_weight", fixture().at("value_weight")},
          {"upstream", fixture().at("upstream")}};
}

// Same shape and the same bits in every position (JSON numbers must round-trip exactly).
void expect_tensor_bits(const json& actual, const json& wanted, const std::string& what) {
  EXPECT_EQ(actual.at("shape").get<Shape>(), wanted.at("shape").get<Shape>()) << what;
  EXPECT_EQ(test::hex_of(test::values_from(actual)), test::hex_of(test::values_from(wanted))) << what;
}

json values_tensor(const Shape& shape, double fill) {
  Extent count = 1;
  for (Extent extent : shape) count *= extent;
  return {{"shape", shape}, {"values", std::vector<double>(count, fill)}};
}

// ---- report and trace ----------------------------------------------------------------------------------

TEST(CliGolden, ReportIsByteIdenticalToTheGoldenFile) {
  const CliRun run = run_cli("report");
  EXPECT_TRUE(run.exited);
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.out, test::read_file(test::fixture_path("golden/learn-llm-ch26-expected.txt")));
}

TEST(CliGolden, TraceIsByteIdenticalToTheGoldenFile) {
  const CliRun run = run_cli("trace");
  EXPECT_TRUE(run.exited);
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.out, test::read_file(test::fixture_path("golden/learn-llm-ch26-diagram-trace.txt")));
}

// ---- init ----------------------------------------------------------------------------------------------

TEST(CliInit, SeedTwentySixGivesTheCoursesWeightsAndState) {
  const json& seed26 = fixture().at("seed26");
  const CliRun run = run_cli("init --seed 26 --model-width 3 --head-width 2");
  EXPECT_TRUE(run.exited);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_EQ(run.err, "");
  const json document = parse_one_line(run);
  EXPECT_EQ(keys_of(document), (std::set<std::string>{"parameters", "generator_state"}));
  EXPECT_EQ(document.at("generator_state").get<std::string>(), "0x1fe68f0af33cb994");
  EXPECT_EQ(document.at("generator_state"), seed26.at("generator_state"));
  const json& parameters = document.at("parameters");
  ASSERT_EQ(parameters.size(), 3u);
  std::size_t values = 0;
  const char* branches[] = {"query", "key", "value"};
  for (std::size_t i = 0; i < 3; ++i) {
    const json& wanted = seed26.at(branches[i]);
    EXPECT_EQ(keys_of(parameters[i]), (std::set<std::string>{"name", "shape", "values"}));
    EXPECT_EQ(parameters[i].at("name"), wanted.at("name"));
    EXPECT_EQ(parameters[i].at("name").get<std::string>(),
              seed26.at("prefix").get<std::string>() + "." + branches[i] + ".weight");
    expect_tensor_bits(parameters[i], wanted, branches[i]);
    values += parameters[i].at("values").size();
  }
  EXPECT_EQ(values, 18u);
}

TEST(CliInit, LargestSeedIsAccepted) {
  const CliRun run = run_cli("init --seed 18446744073709551615 --model-width 1 --head-width 1");
  EXPECT_TRUE(run.exited);
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(parse_one_line(run).at("parameters").size(), 3u);
}

// Issue 18: "-0" was refused by init --seed but read as 0 by randn --seed. numpy's seed() takes Python's
// int, where -0 is 0, so every integer option reads "-0" as 0; any other negative is still refused.
TEST(CliInit, MinusZeroIsZeroForEverySeed) {
  const CliRun zero = run_cli("init --seed 0 --model-width 3 --head-width 2");
  ASSERT_EQ(zero.status, 0) << zero.out;
  EXPECT_EQ(run_cli("init --seed -0 --model-width 3 --head-width 2").out, zero.out);
  EXPECT_EQ(run_cli("init --seed -00 --model-width 3 --head-width 2").out, zero.out);
  const CliRun randn = run_cli("randn --seed 0 --rows 1 --cols 2");
  ASSERT_EQ(randn.status, 0) << randn.out;
  EXPECT_EQ(run_cli("randn --seed -0 --rows 1 --cols 2").out, randn.out);
  expect_rejected(run_cli("init --seed 26 --model-width -0 --head-width 2"), "qkv",
                  "query projection: linear input width must be greater than zero");
  expect_rejected(run_cli("init --seed -01 --model-width 3 --head-width 2"), "arguments",
                  "--seed must be an integer from 0 to 18446744073709551615, got -01");
}

TEST(CliInit, BadArgumentsExitTwoWithTheExactMessage) {
  const std::string range = "--seed must be an integer from 0 to 18446744073709551615, got ";
  expect_rejected(run_cli("init --seed -1 --model-width 3 --head-width 2"), "arguments", range + "-1");
  expect_rejected(run_cli("init --seed 18446744073709551616 --model-width 3 --head-width 2"), "arguments",
                  range + "18446744073709551616");
  expect_rejected(run_cli("init --seed abc --model-width 3 --head-width 2"), "arguments", range + "abc");
  expect_rejected(run_cli("init --seed 26 --model-width 3 --head-width x2"), "arguments",
                  "--head-width must be an integer from 0 to 18446744073709551615, got x2");
  expect_rejected(run_cli("init --seed 26 --model-width 3 --head-width 0"), "qkv",
                  "query projection: linear output width must be greater than zero");
  expect_rejected(run_cli("init --seed 26 --model-width 0 --head-width 2"), "qkv",
                  "query projection: linear input width must be greater than zero");
  expect_rejected(
      run_cli("init --seed 26 --model-width 3 --head-width 2 --prefix Bad"), "qkv",
      "query projection: parameter name byte 0 must be lowercase ASCII, a digit, underscore, or dot; "
      "got 0x42");
  expect_rejected(run_cli("init --seed 26 --model-width 99999999 --head-width 2"), "qkv",
                  "query projection: shape [99999999,2] has more than 67,108,864 elements");
  expect_rejected(run_cli("init --seed 26 --model-width 3"), "arguments", "--head-width is required");
}

// ---- evidence ------------------------------------------------------------------------------------------

TEST(CliEvidence, FixtureRequestGivesEveryExpectedValueBitwise) {
  const json& expected = fixture().at("expected");
  const CliRun run = run_evidence(fixture_request());
  EXPECT_TRUE(run.exited);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_EQ(run.err, "");
  const json out = parse_one_line(run);
  EXPECT_EQ(keys_of(out),
            (std::set<std::string>{"parameter_names", "parameter_count", "query", "key", "value", "loss",
                                   "input_gradient", "query_weight_gradient", "key_weight_gradient",
                                   "value_weight_gradient", "gradcheck", "value_preview"}));
  for (const char* name : {"query", "key", "value", "input_gradient", "query_weight_gradient",
                           "key_weight_gradient", "value_weight_gradient"}) {
    expect_tensor_bits(out.at(name), expected.at(name), name);
  }
  EXPECT_EQ(bits_of(out.at("loss").get<double>()), bits_of(expected.at("loss").get<double>()));
  EXPECT_EQ(out.at("parameter_names"), expected.at("parameter_names"));
  EXPECT_EQ(out.at("parameter_count"), expected.at("parameter_count"));

  const json& check = out.at("gradcheck");
  EXPECT_EQ(keys_of(check), (std::set<std::string>{"passed", "checks", "unjudged", "max_error", "tolerance",
                                                   "max_allowance"}))
      << check;
  EXPECT_EQ(check.at("passed"), true);
  EXPECT_EQ(check.at("unjudged"), 0);  // at the fixture's scale every probed number is judged
  EXPECT_EQ(check.at("checks"), expected.at("gradcheck").at("checks"));
  EXPECT_EQ(bits_of(check.at("tolerance").get<double>()),
            bits_of(expected.at("gradcheck").at("tolerance").get<double>()));
  EXPECT_GT(check.at("max_error").get<double>(), 0.0);
  EXPECT_LT(check.at("max_error").get<double>(), kFixtureMaxErrorBelow);
}

TEST(CliEvidence, StandardInputGivesTheSameOutputAsAFile) {
  const CliRun from_file = run_evidence(fixture_request());
  const CliRun from_stdin = run_cli("evidence --input -", fixture_request().dump(2));
  EXPECT_TRUE(from_stdin.exited);
  EXPECT_EQ(from_stdin.status, 0) << from_stdin.out;
  EXPECT_EQ(from_stdin.out, from_file.out);
}

TEST(CliEvidence, SeededWeightsRoundTripThroughJsonAndGiveTheCoursesLoss) {
  // The seed-26 weights as shortest decimal JSON numbers: the tool must read and write them without loss.
  const json& seed26 = fixture().at("seed26");
  json request = fixture_request();
  for (const char* branch : {"query", "key", "value"}) {
    request[std::string(branch) + "_weight"] = {{"shape", seed26.at(branch).at("shape")},
                                                {"values", test::values_from(seed26.at(branch))}};
  }
  const CliRun run = run_evidence(request);
  ASSERT_EQ(run.status, 0) << run.out;
  const json out = parse_one_line(run);
  EXPECT_EQ(bits_of(out.at("loss").get<double>()), bits_of(seed26.at("loss_on_fixture").get<double>()))
      << out.at("loss");
  EXPECT_EQ(out.at("gradcheck").at("passed"), true);
}

TEST(CliEvidence, WithoutUpstreamOnlyTheForwardFields) {
  json request = fixture_request();
  request.erase("upstream");
  const CliRun run = run_evidence(request);
  EXPECT_TRUE(run.exited);
  ASSERT_EQ(run.status, 0) << run.out;
  const json out = parse_one_line(run);
  EXPECT_EQ(keys_of(out), (std::set<std::string>{"parameter_names", "parameter_count", "query", "key",
                                                 "value", "value_preview"}));
  for (const char* name : {"query", "key", "value"}) {
    expect_tensor_bits(out.at(name), fixture().at("expected").at(name), name);
  }
}

TEST(CliEvidence, EmptyTokenAxisIsAValidRequest) {
  json request = fixture_request();
  request["input"] = values_tensor({2, 0, 3}, 0.0);
  for (const char* branch : {"query", "key", "value"})
    request["upstream"][branch] = values_tensor({2, 0, 2}, 0.0);
  const CliRun run = run_evidence(request);
  ASSERT_EQ(run.status, 0) << run.out;
  const json out = parse_one_line(run);
  EXPECT_EQ(out.at("query").at("shape").get<Shape>(), (Shape{2, 0, 2}));
  EXPECT_EQ(out.at("input_gradient").at("shape").get<Shape>(), (Shape{2, 0, 3}));
  EXPECT_EQ(out.at("query_weight_gradient").at("values").size(), 6u);
  EXPECT_EQ(out.at("gradcheck").at("passed"), true);
  EXPECT_EQ(out.at("gradcheck").at("checks"), 18);
}

// ---- rejected requests: every class exits 2 with the library's or the reader's own message ----------------

TEST(CliEvidenceErrors, UnreadableFileAndMalformedJson) {
  const std::string missing = temp_path("does-not-exist.json");
  expect_rejected(run_cli("evidence --input " + quoted(missing)), "io", "cannot read " + missing);
  const std::string directory = QKV_FIXTURES_DIR;
  expect_rejected(run_cli("evidence --input " + quoted(directory)), "io",
                  "cannot read " + directory + ": it is a directory");
  // A request that is not JSON is an argument the tool cannot use (kind arguments, nlohmann's message).
  expect_rejected(
      run_cli("evidence --input -", "{\"input\":"), "arguments",
      "[json.exception.parse_error.101] parse error at line 1, column 10: syntax error while parsing "
      "value - unexpected end of input; expected '[', '{', or a literal");
  expect_rejected(
      run_cli("evidence --input -", ""), "arguments",
      "[json.exception.parse_error.101] parse error at line 1, column 1: syntax error while parsing "
      "value - unexpected end of input; expected '[', '{', or a literal");
  expect_rejected(run_cli("evidence --input -", "[1, 2]"), "arguments",
                  "request must be an object, got an array", "request");
}

// The request is read through the API's field lists by the rules of the WebAssembly module's reader
// (wasm/bindings.hpp): a field of the wrong type is named by its path, an absent tensor by its name.
TEST(CliEvidenceErrors, MissingOrMalformedFields) {
  json request = fixture_request();
  request.erase("key_weight");
  expect_rejected(run_evidence(request), "arguments", "request.key_weight is missing", "key_weight");

  request = fixture_request();
  request["upstream"].erase("value");
  expect_rejected(run_evidence(request), "arguments", "request.upstream.value is missing", "value_upstream");

  request = fixture_request();
  request["upstream"] = json::array({1});
  expect_rejected(run_evidence(request), "arguments", "request.upstream must be an object, got an array",
                  "request.upstream");

  request = fixture_request();
  request["query_weight"] = json::array({1, 0});
  expect_rejected(run_evidence(request), "arguments", "request.query_weight must be an object, got an array",
                  "request.query_weight");

  // An absent list keeps its default, an empty one: the tensor then has too few values.
  request = fixture_request();
  request["value_weight"].erase("values");
  expect_rejected(run_evidence(request), "tensor", "shape needs 6 values, but data has 0", "value_weight");

  const std::string extent = "request.input.shape[0]";
  for (const json& bad : {json(-1), json(1.5), json(18446744073709551615.0 * 2), json(9007199254740992.0)}) {
    request = fixture_request();
    request["input"]["shape"][0] = bad;
    expect_rejected(run_evidence(request), "arguments", extent + " must be a whole number", extent);
  }
  request = fixture_request();
  request["input"]["shape"][0] = "1";
  expect_rejected(run_evidence(request), "arguments", extent + " must be a number, got string", extent);
  // A whole number written with a fraction is read as JavaScript reads it.
  request = fixture_request();
  request["input"]["shape"][0] = 1.0;
  EXPECT_EQ(run_evidence(request).status, 0);
  // 2^64 as an integer literal: the parser holds it as a float, past 2^53 - 1, so not a valid extent either.
  std::string text = fixture_request().dump();
  const std::string shape = "\"shape\":[1,2,3]";
  ASSERT_NE(text.find(shape), std::string::npos) << text;
  text.replace(text.find(shape), shape.size(), "\"shape\":[18446744073709551616,2,3]");
  expect_rejected(run_cli("evidence --input -", text), "arguments", extent + " must be a whole number",
                  extent);
}

TEST(CliEvidenceErrors, ValuesThatAreNotFiniteNumbers) {
  const std::pair<json, const char*> values[] = {{json("2"), "string"},
                                                 {json(true), "boolean"},
                                                 {json(nullptr), "null"},
                                                 {json::array({2}), "an array"}};
  for (const auto& [value, type] : values) {
    json request = fixture_request();
    request["input"]["values"][1] = value;
    expect_rejected(run_evidence(request), "arguments",
                    std::string("request.input.values[1] must be a number, got ") + type,
                    "request.input.values[1]");
  }
  // JSON has no NaN or infinity: a literal too large for binary64 is refused by the parser.
  std::string text = fixture_request().dump();
  const std::string upstream_value = "\"values\":[2,1,0,-0.5]";
  ASSERT_NE(text.find(upstream_value), std::string::npos) << text;
  text.replace(text.find(upstream_value), upstream_value.size(), "\"values\":[2,-1e400,0,-0.5]");
  expect_rejected(run_cli("evidence --input -", text), "arguments",
                  "[json.exception.out_of_range.406] number overflow parsing '-1e400'");
}

TEST(CliEvidenceErrors, ShapeAndValueCountDisagree) {
  json request = fixture_request();
  request["input"]["values"].erase(5);
  expect_rejected(run_evidence(request), "tensor", "shape needs 6 values, but data has 5", "input");
}

TEST(CliEvidenceErrors, LayerRejectionsUseTheLayersMessages) {
  const json& rejections = fixture().at("expected").at("rejections");
  json request = fixture_request();
  request["input"] = values_tensor({2, 3}, 1.0);
  expect_rejected(run_evidence(request), "qkv", rejections.at("rank").get<std::string>(), "input");

  request = fixture_request();
  request["input"] = values_tensor({1, 2, 4}, 1.0);
  expect_rejected(run_evidence(request), "qkv", rejections.at("width").get<std::string>(), "input");

  request = fixture_request();
  request["key_weight"] = values_tensor({4, 2}, 1.0);
  expect_rejected(run_evidence(request), "qkv", rejections.at("model_mismatch").get<std::string>());

  request = fixture_request();
  request["key_weight"] = values_tensor({3, 3}, 1.0);
  expect_rejected(run_evidence(request), "qkv", rejections.at("head_mismatch").get<std::string>());

  request = fixture_request();
  request["value_weight"] = values_tensor({3, 2, 1}, 1.0);
  expect_rejected(run_evidence(request), "qkv",
                  "value projection: linear weight must have rank two, got rank 3");
}

TEST(CliEvidenceErrors, UpstreamOfTheWrongShape) {
  json request = fixture_request();
  request["upstream"]["key"] = values_tensor({1, 2, 3}, 0.5);
  expect_rejected(run_evidence(request), "upstream",
                  "key upstream must have the output shape [1,2,2], got [1,2,3]", "key_upstream");
}

TEST(CliEvidenceErrors, SizesTooLargeToAllocateAreRefusedClearly) {
  // A weight whose shape alone is too large (its values are never looked at).
  json request = fixture_request();
  request["query_weight"] = {{"shape", {1, 100000000}}, {"values", {1.0}}};
  expect_rejected(run_evidence(request), "tensor", "shape [1,100000000] has more than 67,108,864 elements",
                  "query_weight");

  // A shape whose element count overflows 64 bits.
  request = fixture_request();
  request["input"] = {{"shape", {4294967296ULL, 4294967296ULL, 1}}, {"values", {1.0}}};
  expect_rejected(run_evidence(request), "tensor",
                  "shape [4294967296,4294967296,1] has more than 67,108,864 elements", "input");

  // Small inputs whose output is too large: [8192,1,1] · [1,16384] -> [8192,1,16384] = 2^27 values.
  request = {{"input", values_tensor({8192, 1, 1}, 0.5)},
             {"query_weight", values_tensor({1, 16384}, 0.25)},
             {"key_weight", values_tensor({1, 16384}, 0.25)},
             {"value_weight", values_tensor({1, 16384}, 0.25)}};
  expect_rejected(run_evidence(request), "qkv",
                  "query projection: shape [8192,1,16384] has more than 67,108,864 elements", "input");
}

// Every command the tool runs, in the order --help and the error messages name them.
const std::vector<std::string> kCommands = {
    "report", "trace", "init",    "evidence", "randn", "self-score", "find-off-diagonal",
    "fields", "bench", "variant", "example"};

TEST(CliArguments, UnknownOrIncompleteCommandLines) {
  expect_rejected(run_cli("evidence"), "arguments", "--input is required");
  std::string commands = "one of ";
  for (const std::string& command : kCommands)
    commands += command + (command == kCommands.back() ? "" : ", ");
  expect_rejected(run_cli(""), "arguments", "a subcommand is required: " + commands);
  // Issue 18: a misspelt command said only "A subcommand is required".
  expect_rejected(run_cli("x"), "arguments", "unknown subcommand \"x\"; expected " + commands);
  expect_rejected(run_cli("reprot --seed 1"), "arguments",
                  "unknown subcommand \"reprot\"; expected " + commands);
  expect_rejected(run_cli("--seed 1"), "arguments", "unknown subcommand \"--seed\"; expected " + commands);
  const CliRun help = run_cli("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("SUBCOMMAND"), std::string::npos) << help.out;
  expect_rejected(run_cli("report --extra"), "arguments", "The following argument was not expected: --extra");
}

// Issue 39: --help lists every command the tool runs, bench included, each on its own line with its
// description, and bench's own help names its options.
TEST(CliArguments, HelpListsEveryCommandBenchIncluded) {
  const CliRun help = run_cli("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_EQ(help.err, "");
  for (const std::string& command : kCommands) {
    // "  bench    the Q/K/V layer's ..." or "  self-score, self-bias    X X^T ...".
    const std::size_t at = help.out.find("\n  " + command);
    ASSERT_NE(at, std::string::npos) << command << " is missing from --help:\n" << help.out;
    const char after = help.out[at + 3 + command.size()];
    EXPECT_TRUE(after == ' ' || after == ',') << command << " in --help:\n" << help.out;
  }
  const CliRun bench = run_cli("bench --help");
  EXPECT_EQ(bench.status, 0);
  for (const char* option : {"--batch", "--tokens", "--model-width", "--head-width", "--repeat"})
    EXPECT_NE(bench.out.find(option), std::string::npos) << option << " in bench --help:\n" << bench.out;
}

// Issue 39: self-bias, the command's earlier name, runs self-score (the pre-check compared names only and
// refused it as an unknown subcommand), its refusals included.
TEST(CliArguments, TheEarlierNameSelfBiasWorksAsSelfScore) {
  const CliRun score = run_cli("self-score --seed 1 --tokens 5 --dim 8");
  const CliRun bias = run_cli("self-bias --seed 1 --tokens 5 --dim 8");
  EXPECT_EQ(score.status, 0) << score.out;
  EXPECT_EQ(bias.status, 0) << bias.out;
  EXPECT_TRUE(bias.out == score.out) << "self-bias printed " << bias.out.substr(0, 300);
  EXPECT_EQ(bias.err, "");
  const CliRun refused = run_cli("self-bias --seed -1 --tokens 5 --dim 8");
  EXPECT_EQ(refused.status, 2);
  EXPECT_EQ(refused.out, run_cli("self-score --seed -1 --tokens 5 --dim 8").out);
  EXPECT_NE(refused.out.find("\"field\":\"seed\""), std::string::npos) << refused.out;
}

}  // namespace
}  // namespace qkv

namespace qkv {
namespace {

using namespace test;

// `qkv-lesson example`: an accepted file prints its words and the questions; a misspelt field is refused by
// the field lists' reader (an author's file refuses fields it does not name), not left out.
TEST(CliExample, AcceptedFilePrintsItsWordsAndQuestions) {
  const std::string path = write_temp(
      "example.json",
      R"({"title":"t","tokens":["a","b"],"X":[[[1,0],[0,"0.5"]]],"W_Q":[[1,0],[0,1]],"W_K":[[1,0],[0,1]],)"
      R"("W_V":[[1,0],[0,1]]})");
  const CliRun run = run_cli("example --input " + quoted(path));
  ASSERT_TRUE(run.exited);
  EXPECT_EQ(run.status, 0) << run.out;
  const nlohmann::json out = nlohmann::json::parse(run.out);
  EXPECT_EQ(out.at("token_names"), (nlohmann::json{"a", "b"}));
  EXPECT_EQ(out.at("state").at("input").at("cells"), (nlohmann::json{"1", "0", "0", "0.5"}));
  EXPECT_FALSE(out.at("exercises").empty());
  EXPECT_TRUE(out.contains("evidence"));
}

TEST(CliExample, UnknownFieldIsRefused) {
  const std::string path = write_temp("example.json", R"({"title":"t","tokens":["a"],"W_q":[[1]]})");
  const CliRun run = run_cli("example --input " + quoted(path));
  ASSERT_TRUE(run.exited);
  EXPECT_EQ(run.status, 2);
  const nlohmann::json error = nlohmann::json::parse(run.out).at("error");
  EXPECT_EQ(error.at("kind"), "arguments");
  EXPECT_EQ(error.at("message"),
            "request.W_q is not a field; the fields are title, tokens, X, W_Q, W_K, W_V, U_Q, U_K, U_V");
}

TEST(CliExample, CellOfTheWrongTypeIsNamedByItsPath) {
  const std::string path = write_temp("example.json", R"({"title":"t","tokens":["a"],"X":[[[true]]]})");
  const CliRun run = run_cli("example --input " + quoted(path));
  ASSERT_TRUE(run.exited);
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(nlohmann::json::parse(run.out).at("error").at("message"),
            "request.X[0][0][0] must be a number or a string, got boolean");
}

}  // namespace
}  // namespace qkv
