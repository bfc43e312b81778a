// `qkv-lesson randn`, `self-score` and `find-off-diagonal` against numpy (fixtures/numpy/*.json), run as a
// separate process: what the tool prints is compared, not what the library returns.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_support.hpp"
#include "numpy_support.hpp"

namespace {

using namespace qkv::test;

// 16 hex digits, most significant first, as the fixtures write bit patterns.
std::string hex_of(std::uint64_t bits) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(bits));
  return buffer;
}

// All of a case's calls as one stream (consecutive randn calls continue it), with numpy's bits for
// this machine's log(): "hex", or "hex_without_fma" where that build differs.
std::vector<std::uint64_t> numpy_stream(const json& c, bool fma) {
  std::vector<std::uint64_t> out;
  for (const json& call : c.at("calls")) {
    const json other = fma ? json::object() : call.value("hex_without_fma", json::object());
    for (std::size_t i = 0; i < call.at("hex").size(); ++i) {
      const std::string key = std::to_string(i);
      out.push_back(bits_of_hex(other.contains(key) ? other.at(key) : call.at("hex").at(i)));
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

std::string format17(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

// The widest row length from 8 down that divides `count`, so most cases print several rows.
std::size_t columns_for(std::size_t count) {
  for (std::size_t cols : {8u, 7u, 5u, 4u, 3u, 2u}) {
    if (count % cols == 0) return cols;
  }
  return 1;
}

TEST(CliNumpyRandn, PrintsNumpysDrawsBitForBitForEveryFixtureSeed) {
  const json fixture = load_numpy_fixture("randn.json");
  const bool fma = log_uses_fma(fixture.at("log_probe"));
  std::size_t compared = 0;
  for (const json& c : fixture.at("cases")) {
    const std::string seed = c.at("seed").dump();
    const std::vector<std::uint64_t> want = numpy_stream(c, fma);
    const std::size_t cols = columns_for(want.size());
    const std::size_t rows = want.size() / cols;
    const CliRun run =
        run_cli({"randn", "--seed", seed, "--rows", std::to_string(rows), "--cols", std::to_string(cols)});
    ASSERT_EQ(run.status, 0) << run.out;
    ASSERT_FALSE(run.out.empty());
    ASSERT_EQ(run.out.back(), '\n') << "seed " << seed;
    const std::vector<std::string> lines = split(run.out, '\n');
    ASSERT_EQ(lines.size(), rows) << "seed " << seed;
    for (std::size_t r = 0; r < rows; ++r) {
      const std::vector<std::string> items = split(lines[r], ' ');
      ASSERT_EQ(items.size(), cols) << "seed " << seed << ", row " << r << ": " << lines[r];
      for (std::size_t c2 = 0; c2 < cols; ++c2, ++compared) {
        const std::string& text = items[c2];
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        ASSERT_EQ(*end, '\0') << "not a number: \"" << text << "\"";
        EXPECT_EQ(text, format17(value)) << "not %.17g";
        const std::size_t i = r * cols + c2;
        EXPECT_EQ(hex_of(bits_of(value)), hex_of(want[i]))
            << "seed " << seed << ", draw " << i << ": printed " << text;
      }
    }
  }
  EXPECT_GT(compared, 1000u);
}

// Rows whose length beats every other row's strictly, from numpy's norms: where Cauchy–Schwarz
// guarantees the diagonal.
std::vector<std::size_t> strictly_longest(const std::vector<double>& norms) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < norms.size(); ++i) {
    bool longest = true;
    for (std::size_t j = 0; j < norms.size(); ++j) longest = longest && (j == i || norms[i] > norms[j]);
    if (longest) rows.push_back(i);
  }
  return rows;
}

json run_self_score_cli(const json& c) {
  const CliRun run = run_cli({"self-score", "--seed", c.at("seed").dump(), "--tokens", c.at("tokens").dump(),
                              "--dim", c.at("dim").dump()});
  EXPECT_EQ(run.status, 0) << run.out;
  return json::parse(run.out);
}

// The module's setting (seed 1, 5 tokens, width 8) is the fixture's first case; the others are run too.
TEST(CliNumpySelfScore, MatchesNumpyForEveryFixtureCase) {
  const json fixture = load_numpy_fixture("self_score.json");
  const json& cases = fixture.at("cases");
  ASSERT_GE(cases.size(), 3u);
  const json& module = cases.at(0);
  EXPECT_EQ(module.at("seed"), 1);
  EXPECT_EQ(module.at("tokens"), 5);
  EXPECT_EQ(module.at("dim"), 8);
  for (const json& c : cases) {
    const json got = run_self_score_cli(c);
    const std::string where = "seed " + c.at("seed").dump() + ": ";
    EXPECT_EQ(got.at("seed"), c.at("seed"));
    EXPECT_EQ(got.at("tokens"), c.at("tokens"));
    EXPECT_EQ(got.at("dim"), c.at("dim"));
    const std::size_t n = c.at("tokens").get<std::size_t>();
    // api::SelfScoreView: each list of numbers is a RoundedView {values, text, rounded}, matrices row-major.
    expect_close(flatten(got.at("norms").at("values")), flatten(c.at("norms")), where + "norms");
    expect_close(flatten(got.at("projected_norms").at("values")), flatten(c.at("projected_norms")),
                 where + "projected_norms");
    for (const char* name : {"none", "separate", "tied"}) {
      const json& want = c.at(name);
      const json& summary = got.at(name);
      ASSERT_EQ(summary.at("scores").at("values").size(), n * n) << where << name << ": n x n, row-major";
      expect_close(flatten(summary.at("scores").at("values")), flatten(want.at("scores")),
                   where + name + " scores");
      EXPECT_EQ(summary.at("argmax"), want.at("argmax")) << where << name;
      EXPECT_EQ(summary.at("diagonal_rows"), want.at("diagonal_rows")) << where << name;
    }
    // Guaranteed rows follow from numpy's norms; separate projections guarantee nothing.
    EXPECT_EQ(got.at("none").at("guaranteed_rows"), json(strictly_longest(flatten(c.at("norms"))))) << where;
    EXPECT_EQ(got.at("tied").at("guaranteed_rows"), json(strictly_longest(flatten(c.at("projected_norms")))))
        << where;
    EXPECT_EQ(got.at("separate").at("guaranteed_rows"), json::array()) << where;
  }
}

TEST(CliNumpySelfScore, FindOffDiagonalAgreesWithNumpysSearches) {
  const json fixture = load_numpy_fixture("self_score.json");
  ASSERT_FALSE(fixture.at("searches").empty());
  for (const json& want : fixture.at("searches")) {
    const CliRun run = run_cli({"find-off-diagonal", "--kind", want.at("kind").get<std::string>(), "--start",
                                want.at("start_seed").dump(), "--count", "1000", "--tokens",
                                want.at("tokens").dump(), "--dim", want.at("dim").dump()});
    ASSERT_EQ(run.status, 0) << run.out;
    const json got = json::parse(run.out);
    EXPECT_EQ(got, (json{{"found", true},
                         {"seed", want.at("seed")},
                         {"row", want.at("row")},
                         {"argmax", want.at("argmax")}}))
        << want.dump();
  }
  // One token always peaks on itself: nothing to find.
  const CliRun none = run_cli({"find-off-diagonal", "--kind", "tied", "--start", "0", "--tokens", "1"});
  EXPECT_EQ(none.status, 0);
  EXPECT_EQ(json::parse(none.out), (json{{"found", false}, {"seed", 0}, {"row", 0}, {"argmax", 0}}));
}

// Exactly exit status 2 and one line {"error":{"kind","message"[,"field"]}}, the message being the library's
// where the library has one.
void expect_rejected(const std::vector<std::string>& arguments, const std::string& kind,
                     const std::string& message, const std::string& field = "") {
  std::string shown;
  for (const std::string& argument : arguments) shown += " " + argument;
  const CliRun run = run_cli(arguments);
  EXPECT_EQ(run.status, 2) << shown;
  ASSERT_FALSE(run.out.empty()) << shown;
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 1) << shown;
  const json got = json::parse(run.out);
  json error{{"kind", kind}, {"message", message}};
  if (!field.empty()) error["field"] = field;
  EXPECT_EQ(got, (json{{"error", error}})) << shown;
}

std::vector<std::string> randn_args(const std::string& seed, const std::string& rows,
                                    const std::string& cols) {
  return {"randn", "--seed", seed, "--rows", rows, "--cols", cols};
}

std::vector<std::string> bias_args(const std::string& seed, const std::string& tokens,
                                   const std::string& dim) {
  return {"self-score", "--seed", seed, "--tokens", tokens, "--dim", dim};
}

TEST(CliNumpyErrors, RandnRejectsBadSeedsAndSizes) {
  // numpy's seed range, in the kind the API's randn() gives it (self_score).
  const std::string seed_range = "seed must be between 0 and 4,294,967,295, got ";
  expect_rejected(randn_args("-1", "2", "3"), "self_score", seed_range + "-1");
  expect_rejected(randn_args("4294967296", "2", "3"), "self_score", seed_range + "4294967296");
  expect_rejected(randn_args("abc", "2", "3"), "arguments", "--seed must be an integer, got abc");
  expect_rejected(randn_args("1.5", "2", "3"), "arguments", "--seed must be an integer, got 1.5");
  expect_rejected(randn_args("99999999999999999999", "2", "3"), "arguments",
                  "--seed must be an integer from -9223372036854775808 to 9223372036854775807, got "
                  "99999999999999999999");
  expect_rejected(randn_args("1", "0", "3"), "arguments", "--rows must be between 1 and 100000, got 0");
  expect_rejected(randn_args("1", "2", "100001"), "arguments",
                  "--cols must be between 1 and 100000, got 100001");
  expect_rejected(randn_args("1", "100000", "101"), "arguments",
                  "--rows times --cols must be at most 10000000, got 100000 * 101");
  expect_rejected(randn_args("1", "2", "3e2"), "arguments", "--cols must be an integer, got 3e2");
  // Validation order: seed, rows, cols.
  expect_rejected(randn_args("-1", "0", "0"), "self_score", seed_range + "-1");
  expect_rejected(randn_args("1", "0", "0"), "arguments", "--rows must be between 1 and 100000, got 0");
  expect_rejected({"randn", "--seed", "1", "--rows", "2"}, "arguments", "--cols is required");
}

// The settings are read as typed by the API, as the page's are (api::self_score, api::find_seed): a setting
// it cannot use is named by the page's label and its field, in the answer reader's words (ReadError).
std::string not_read(const std::string& label, const std::string& typed, const std::string& range) {
  return label + ": \"" + typed + "\" is not read: expected a whole number from " + range;
}

TEST(CliNumpyErrors, SelfScoreRejectsBadSeedsAndSizesWithTheApisMessages) {
  const std::string seeds = "0 to 4,294,967,295", sizes = "1 to 512";
  expect_rejected(bias_args("-1", "5", "8"), "self_score", not_read("The seed", "-1", seeds), "seed");
  expect_rejected(bias_args("4294967296", "5", "8"), "self_score", not_read("The seed", "4294967296", seeds),
                  "seed");
  expect_rejected(bias_args("abc", "5", "8"), "self_score", not_read("The seed", "abc", seeds), "seed");
  expect_rejected(bias_args("1", "0", "8"), "self_score", not_read("Tokens T", "0", sizes), "tokens");
  expect_rejected(bias_args("1", "100000", "8"), "self_score", not_read("Tokens T", "100000", sizes),
                  "tokens");
  expect_rejected(bias_args("1", "5", "0"), "self_score", not_read("The width d", "0", sizes), "dim");
  expect_rejected(bias_args("1", "5", "513"), "self_score", not_read("The width d", "513", sizes), "dim");
  expect_rejected(bias_args("1", "1.5", "8"), "self_score", not_read("Tokens T", "1.5", sizes), "tokens");
  expect_rejected(bias_args("1", "5", "eight"), "self_score", not_read("The width d", "eight", sizes), "dim");
  // Validation order: seed, tokens, dim.
  expect_rejected(bias_args("-1", "0", "0"), "self_score", not_read("The seed", "-1", seeds), "seed");
  expect_rejected(bias_args("1", "0", "0"), "self_score", not_read("Tokens T", "0", sizes), "tokens");
  // Read as the page reads them: "-0" is 0 and "2 of 5" is 2.
  EXPECT_EQ(run_cli(bias_args("-0", "2 of 5", "8")).out, run_cli(bias_args("0", "2", "8")).out);
}

TEST(CliNumpyErrors, FindOffDiagonalRejectsBadKindsAndCounts) {
  expect_rejected({"find-off-diagonal", "--kind", "separate", "--start", "0"}, "arguments",
                  "kind must be \"none\" or \"tied\", got \"separate\"", "kind");
  expect_rejected({"find-off-diagonal", "--kind", "none", "--start", "-1"}, "self_score",
                  not_read("The first seed", "-1", "0 to 4,294,967,295"), "start");
  expect_rejected({"find-off-diagonal", "--kind", "none", "--start", "0", "--count", "0"}, "self_score",
                  not_read("The number of seeds", "0", "1 to 1,000,000"), "count");
  expect_rejected({"find-off-diagonal", "--kind", "tied", "--start", "0", "--tokens", "0"}, "self_score",
                  not_read("Tokens T", "0", "1 to 512"), "tokens");
}

}  // namespace
