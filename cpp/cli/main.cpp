// qkv-lesson: the chapter's report and trace, seeded initialisation, projection evidence as JSON, and
// numpy's seeded randn() with the self-score experiment built on it.
//
// The contract is total: every input ends either in its output with status 0, or in status 2 with
// {"error":{"kind","message"}} on stdout carrying the library's own message. That includes bytes that are
// not UTF-8 (written as U+FFFD), requests over a work budget (support/budget.hpp, kind "budget"), memory
// the machine will not give (kind "allocation"), and a stdout that cannot be written (then the error goes
// to stderr with kind "io", since stdout is what failed), and SIGINT or SIGTERM (kind "interrupted").
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>

#include "bench/core_bench.hpp"
#include "chapter26/chapter26.hpp"
#include "cli/example_command.hpp"
#include "cli/field_lists.hpp"
#include "cli/limits.hpp"
#include "cli/request.hpp"
#include "cli/variant_command.hpp"
#include "learner/answer_reader.hpp"
#include "self_score/numpy_random.hpp"
#include "self_score/self_score.hpp"
#include "text/format.hpp"

namespace {

using qkv::ErrorKind;
using qkv::LessonError;
using qkv::Result;
using qkv::cli::dump_line;
using qkv::cli::ordered_json;

constexpr int kBadInput = 2;

// Everything the tool prints on stdout goes through here; whether it all arrived is checked once, at exit.
void emit(const std::string& text) { std::cout << text; }

int report_error(const LessonError& error) {
  emit(dump_line(qkv::cli::error_json(error)));
  return kBadInput;
}

// A described response (api/lesson_api.hpp), as cli::response_json() writes it: status 2 when it refuses.
template <class Response>
int print_response(const Response& response) {
  emit(dump_line(qkv::cli::response_json(response)));
  return response.error ? kBadInput : 0;
}

int run_evidence(const std::string& path) {
  auto text = qkv::cli::read_request(path);
  if (!text) return report_error(text.error());
  const ordered_json out = qkv::cli::evidence_from_text(*text);
  emit(dump_line(out));
  return out.contains("error") ? kBadInput : 0;
}

// Validation order: the library's widths and element cap (zero widths and oversized shapes get its
// messages), then the budget, then the rest of the library's checks.
int run_init(std::uint64_t seed, std::uint64_t model_width, std::uint64_t head_width,
             const std::string& prefix) {
  if (model_width > 0 && head_width > 0 && qkv::element_count({model_width, head_width})) {
    const double cost = qkv::init_cost(static_cast<double>(model_width), static_cast<double>(head_width));
    if (cost > qkv::kMaxInitOperations) {
      return report_error(
          LessonError{ErrorKind::Budget, qkv::BudgetError{"initialization", cost, qkv::kMaxInitOperations,
                                                          "three weights of " + std::to_string(model_width) +
                                                              " x " + std::to_string(head_width)}
                                             .message()});
    }
  }
  qkv::SplitMix64 rng(seed);
  auto layer = qkv::QkvProjections::create(prefix, model_width, head_width, rng);
  if (!layer) return report_error(qkv::lesson_error(layer.error()));
  ordered_json parameters = ordered_json::array();
  for (const qkv::NamedParameter& parameter : layer->parameters()) {
    parameters.push_back({{"name", parameter.name()},
                          {"shape", parameter.shape()},
                          {"values", parameter.value().value().values()}});
  }
  emit(dump_line(
      ordered_json{{"parameters", parameters}, {"generator_state", qkv::format_hex64(rng.state())}}));
  return 0;
}

int run_chapter(bool trace) {
  auto evidence = qkv::compute_chapter_evidence(qkv::chapter_fixture());
  if (!evidence) return report_error(evidence.error());
  emit(trace ? qkv::render_trace(*evidence) : qkv::render_report(*evidence));
  return 0;
}

// The value of a run of decimal digits, or nothing if it is empty, holds anything else, or passes 2^64 - 1.
std::optional<std::uint64_t> decimal_digits(const std::string& digits) {
  if (digits.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// 0 to 2^64 - 1 (SplitMix64 seeds and widths). "-0" is 0, as in parse_i64 (the numpy seeds) and as
// Python's int("-0") that numpy's seed() receives: every integer option reads the same text the same way.
Result<std::uint64_t, LessonError> parse_u64(const std::string& option, const std::string& text) {
  const bool negative = !text.empty() && text[0] == '-';
  const std::optional<std::uint64_t> value = decimal_digits(negative ? text.substr(1) : text);
  if (value && (!negative || *value == 0)) return *value;
  return qkv::fail(LessonError{ErrorKind::Arguments,
                               option + " must be an integer from 0 to 18446744073709551615, got " + text});
}

// An optional '-' then decimal digits, within int64_t. Ranges are the library's business: "-1" parses
// here and comes back from the library with its own message.
Result<std::int64_t, LessonError> parse_i64(const std::string& option, const std::string& text) {
  const bool negative = !text.empty() && text[0] == '-';
  const std::string digits = negative ? text.substr(1) : text;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
    return qkv::fail(LessonError{ErrorKind::Arguments, option + " must be an integer, got " + text});
  }
  const std::optional<std::uint64_t> magnitude = decimal_digits(digits);
  const std::uint64_t limit = negative ? 9223372036854775808u : 9223372036854775807u;
  if (!magnitude || *magnitude > limit) {
    return qkv::fail(LessonError{
        ErrorKind::Arguments,
        option + " must be an integer from -9223372036854775808 to 9223372036854775807, got " + text});
  }
  if (!negative) return static_cast<std::int64_t>(*magnitude);
  return *magnitude == 0 ? 0 : -static_cast<std::int64_t>(*magnitude - 1) - 1;
}

// randn prints about 24 bytes per draw: 10^7 draws is a quarter of a gigabyte, plenty for any check.
constexpr std::int64_t kMaxRandnExtent = 100000;
constexpr std::int64_t kMaxRandnDraws = 10000000;

// --rows or --cols: a whole number in [1, kMaxRandnExtent].
Result<std::int64_t, LessonError> parse_extent(const std::string& option, const std::string& text) {
  auto value = parse_i64(option, text);
  if (!value) return value;
  if (*value < 1 || *value > kMaxRandnExtent) {
    return qkv::fail(
        LessonError{ErrorKind::Arguments,
                    option + " must be between 1 and " + std::to_string(kMaxRandnExtent) + ", got " + text});
  }
  return value;
}

// numpy's seed range, in the kind the API's randn() gives it.
LessonError random_error(const qkv::RandomError& error) { return {ErrorKind::SelfScore, error.message()}; }

// `np.random.seed(seed); np.random.randn(rows, cols)`: one line per row, draws as %.17g (enough digits
// to read back the exact double) separated by single spaces.
// Validation order: seed, rows, cols, rows * cols.
int run_randn(const std::string& seed_text, const std::string& rows_text, const std::string& cols_text) {
  auto seed = parse_i64("--seed", seed_text);
  if (!seed) return report_error(seed.error());
  auto rng = qkv::NumpyLegacyRandom::seeded(*seed);
  if (!rng) return report_error(random_error(rng.error()));
  auto rows = parse_extent("--rows", rows_text);
  if (!rows) return report_error(rows.error());
  auto cols = parse_extent("--cols", cols_text);
  if (!cols) return report_error(cols.error());
  if (*rows * *cols > kMaxRandnDraws) {  // both at most 10^5, so the product fits
    return report_error(LessonError{ErrorKind::Arguments, "--rows times --cols must be at most " +
                                                              std::to_string(kMaxRandnDraws) + ", got " +
                                                              rows_text + " * " + cols_text});
  }
  // Row by row: consecutive randn calls continue one stream, so this is randn(rows, cols) row-major.
  // std::to_chars(general, 17) is specified to print what printf's %.17g prints (format_significant17),
  // at a fraction of the cost: 10^7 draws took 2.4 s through snprintf.
  std::string line;
  char number[32];
  for (std::int64_t row = 0; row < *rows && std::cout; ++row) {
    line.clear();
    for (double value : rng->randn(static_cast<std::size_t>(*cols))) {
      if (!line.empty()) line += ' ';
      const auto written =
          std::to_chars(number, number + sizeof number, value, std::chars_format::general, 17);
      line.append(number, written.ptr);
    }
    line += '\n';
    emit(line);
  }
  return 0;
}

// The self-score request's cost written out, when its settings read (by the reader and within the ranges the
// API reads them with); nothing when one does not, for the API to refuse in its own words.
std::optional<qkv::BudgetError> self_score_over_budget(const qkv::api::SelfScoreRequest& request) {
  const auto seed = qkv::read_count(request.seed, 0, qkv::NumpyLegacyRandom::kMaxSeed);
  const auto tokens = qkv::read_count(request.tokens, 1, qkv::kSelfScoreMaxSize);
  const auto dim = qkv::read_count(request.dim, 1, qkv::kSelfScoreMaxSize);
  if (!seed || !tokens || !dim) return std::nullopt;
  const double cost =
      qkv::self_score_output_cost(static_cast<std::int64_t>(*tokens), static_cast<std::int64_t>(*dim));
  if (cost <= qkv::kMaxSelfScoreOperations) return std::nullopt;
  const auto numbers = static_cast<std::uint64_t>(
      qkv::self_score_numbers(static_cast<double>(*tokens), static_cast<double>(*dim)));
  return qkv::BudgetError{"self-score request", cost, qkv::kMaxSelfScoreOperations,
                          qkv::format_count(*tokens) + (*tokens == 1 ? " token" : " tokens") + " of width " +
                              qkv::format_count(*dim) + ": " + qkv::format_count(numbers) +
                              " numbers written"};
}

// The experiment as api::self_score() gives the page's tests (SelfScoreView, without {ok, result}): the
// settings are read as typed, by the API, as the page's are.
// Validation order: the API's (seed, tokens, dim), then the budget of the experiment written out.
int run_self_score(const qkv::api::SelfScoreRequest& request) {
  if (const auto over = self_score_over_budget(request))
    return report_error(LessonError{ErrorKind::Budget, over->message()});
  const qkv::api::SelfScoreResponse response = qkv::api::self_score(request);
  if (response.error) return print_response(response);
  emit(dump_line(qkv::cli::to_json(*response.result)));
  return 0;
}

// `qkv-lesson bench --batch B --tokens T --model-width D --head-width H [--repeat N]`: times the layer's
// forward and backward on seeded data; prints api::BenchResponse {median_seconds, gflops, peak_bytes,
// minimum_bytes}.
struct BenchOptions {
  static constexpr int kCount = 5;
  static constexpr const char* kNames[kCount] = {"--batch", "--tokens", "--model-width", "--head-width",
                                                 "--repeat"};
  std::string texts[kCount] = {"", "", "", "", "5"};
};

CLI::App* add_bench(CLI::App& app, BenchOptions& options) {
  CLI::App* bench =
      app.add_subcommand("bench", "the Q/K/V layer's forward and backward, timed, with peak heap bytes");
  for (int i = 0; i < 4; ++i) bench->add_option(BenchOptions::kNames[i], options.texts[i])->required();
  bench->add_option(BenchOptions::kNames[4], options.texts[4], "runs; the median is reported")
      ->capture_default_str();
  return bench;
}

int run_bench(const BenchOptions& options) {
  std::uint64_t values[BenchOptions::kCount];
  for (int i = 0; i < BenchOptions::kCount; ++i) {
    auto value = parse_u64(BenchOptions::kNames[i], options.texts[i]);
    if (!value) return report_error(value.error());
    values[i] = *value;
  }
  return print_response(qkv::api::bench({values[0], values[1], values[2], values[3], values[4]}));
}

int run(int argc, char** argv) {
  CLI::App app{
      "qkv-lesson: query, key and value projections (chapter 26), computed by the lesson's C++ core"};
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

  CLI::App* randn = app.add_subcommand("randn", "np.random.seed(S); np.random.randn(R, C), one row per line");
  std::string randn_seed, rows, cols;
  randn->add_option("--seed", randn_seed, "numpy seed, 0 to 4294967295")->required();
  randn->add_option("--rows", rows, "R, 1 to 100000")->required();
  randn->add_option("--cols", cols, "C, 1 to 100000 (R * C at most 10000000)")->required();

  CLI::App* self_score =
      app.add_subcommand("self-score", "X X^T, (X Wq)(X Wk)^T and (X Wq)(X Wq)^T, as JSON");
  self_score->alias("self-bias");  // the command's earlier name, kept for scripts that call it
  // Options straight into the API's requests, as text: the API reads the numbers, as it does the page's.
  qkv::api::SelfScoreRequest settings;
  self_score->add_option("--seed", settings.seed, "numpy seed, 0 to 4294967295")->required();
  self_score->add_option("--tokens", settings.tokens, "n, 1 to 512")->required();
  self_score->add_option("--dim", settings.dim, "d, 1 to 512")->required();

  CLI::App* find =
      app.add_subcommand("find-off-diagonal", "the first seed where a row peaks off the diagonal");
  qkv::api::SeedSearchRequest search;
  find->add_option("--kind", search.kind, "none (Q = K = X) or tied (Q = K = X Wq)")->required();
  find->add_option("--start", search.start, "first seed tried")->required();
  find->add_option("--count", search.count, "seeds tried at most, 1 to 1000000")->capture_default_str();
  find->add_option("--tokens", search.tokens, "n, 1 to 512")->capture_default_str();
  find->add_option("--dim", search.dim, "d, 1 to 512")->capture_default_str();

  CLI::App* fields = app.add_subcommand(
      "fields", "every request and response type's field list, as both front ends convert them, as JSON");
  BenchOptions bench_options;
  CLI::App* bench = add_bench(app, bench_options);
  qkv::cli::VariantOptions variant_options;
  CLI::App* variant = qkv::cli::add_variant_command(app, variant_options);
  qkv::cli::ExampleOptions example_options;
  CLI::App* example = qkv::cli::add_example_command(app, example_options);

  // The first word names the command (or an alias of one, as self-bias): CLI11 would say only "A subcommand
  // is required" for a misspelt one.
  std::string names;
  bool known = false;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + command->get_name();
    known = known || (argc > 1 && command->check_name(argv[1]));
  }
  const std::string first = argc > 1 ? argv[1] : "";
  if (!known && first != "-h" && first != "--help" && first != "--help-all") {
    return report_error(
        LessonError{ErrorKind::Arguments, (argc > 1 ? "unknown subcommand \"" + first + "\"; expected"
                                                    : std::string("a subcommand is required:")) +
                                              " one of " + names});
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    return report_error(LessonError{ErrorKind::Arguments, error.what()});
  }
  if (*fields) {
    emit(dump_line(qkv::cli::field_lists()));
    return 0;
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
  if (*randn) return run_randn(randn_seed, rows, cols);
  if (*self_score) return run_self_score(settings);
  if (*find) return print_response(qkv::api::find_seed(search));
  if (*bench) return run_bench(bench_options);
  if (*variant) {
    bool ok = false;
    emit(dump_line(qkv::cli::variant_json(variant_options, ok)));
    return ok ? 0 : kBadInput;
  }
  if (*example) {
    bool ok = false;
    emit(dump_line(qkv::cli::example_json(example_options, ok)));
    return ok ? 0 : kBadInput;
  }
  return run_evidence(input_path);
}

// The last resort for an exception that escapes where it cannot be caught: nlohmann's destructors free
// deep documents with a heap-allocated stack, so running out of memory there terminates. Report it in the
// promised form; _exit, because the half-written buffers must not be flushed after it.
// The lines the last resorts print, written at start (through error_json, the kinds from kind_name()):
// neither a terminate handler out of memory nor a signal handler may allocate.
const LessonError kOutOfMemory{ErrorKind::Allocation, "not enough memory for the requested sizes"};
std::string g_allocation_line, g_internal_line, g_sigint_line, g_sigterm_line;

void write_line(const std::string& line) {
  [[maybe_unused]] const ssize_t written = ::write(STDOUT_FILENO, line.data(), line.size());
}

[[noreturn]] void on_terminate() {
  bool out_of_memory = false;
  if (const std::exception_ptr current = std::current_exception()) {
    try {
      std::rethrow_exception(current);
    } catch (const std::bad_alloc&) {
      out_of_memory = true;
    } catch (...) {
    }
  }
  write_line(out_of_memory ? g_allocation_line : g_internal_line);
  ::_exit(kBadInput);
}

// SIGINT and SIGTERM (Ctrl-C, kill, a timeout) end the tool in the promised form too, with kind
// "interrupted" and status 2. Only async-signal-safe calls: one write() of a fixed line, then _exit (what
// is still buffered is dropped, so the line follows only what had already reached stdout).
extern "C" void on_stop_signal(int signal) {
  write_line(signal == SIGINT ? g_sigint_line : g_sigterm_line);
  ::_exit(kBadInput);
}

// Whatever was printed must have reached stdout: a full disk or a closed pipe is a failure, not success.
int finish(int status) {
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return status;
  std::cerr << dump_line(qkv::cli::error_json(LessonError{ErrorKind::Io, "cannot write to standard output"}));
  return kBadInput;
}

// The layer's tensors are megabytes each, and a pass frees them and allocates them again. glibc's defaults
// give such blocks back to the kernel (munmap, or trimming the heap) and fault them in page by page on the
// next pass; on a virtual machine that cost about as much as the arithmetic (`qkv-lesson bench` at
// [1,1024,768]→768: 0.27 s a pass, 0.14 s with these; README, Core speed). Kept, they are reused: the peak is
// the same, and the process holds on to it until it exits. Blocks over 32 MiB still come from mmap.
void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();
  g_allocation_line = dump_line(qkv::cli::error_json(kOutOfMemory));
  g_internal_line = dump_line(
      qkv::cli::error_json(LessonError{ErrorKind::Internal, "the tool stopped on an unexpected error"}));
  g_sigint_line = dump_line(qkv::cli::error_json(LessonError{ErrorKind::Interrupted, "stopped by SIGINT"}));
  g_sigterm_line = dump_line(qkv::cli::error_json(LessonError{ErrorKind::Interrupted, "stopped by SIGTERM"}));
  std::set_terminate(on_terminate);
  // A closed pipe should be a write error we report, not a signal that kills the tool.
  std::signal(SIGPIPE, SIG_IGN);
  for (const int stop : {SIGINT, SIGTERM}) {
    struct sigaction action {
    }, previous{};
    // A signal the caller ignores stays ignored (a shell's background job ignores SIGINT).
    if (sigaction(stop, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(stop, &action, nullptr);
  }
  try {
    return finish(run(argc, argv));
  } catch (const std::bad_alloc&) {
    return finish(report_error(kOutOfMemory));
  } catch (const std::length_error&) {  // a std::vector asked for more than it can ever hold
    return finish(report_error(kOutOfMemory));
  }
}
