#include "api/lesson_api.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "attention/value_preview.hpp"
#include "chapter26/score_changes.hpp"
#include "learner/answer_reader.hpp"
#include "learner/exercises.hpp"
#include "response/tensor_names.hpp"
#include "self_score/numpy_random.hpp"
#include "text/format.hpp"

namespace qkv::api {
namespace {

TensorView tensor_view(const Tensor& tensor) {
  TensorView out{tensor.shape(), shape_text(tensor.shape()), tensor.values(), {}};
  for (double value : tensor.values()) out.text.push_back(format_shortest(value));
  return out;
}

NumberView number_view(double value) { return {value, format_shortest(value)}; }

// A heatmap's colour of each score: round(4 · score / the largest |score| given), from −4 to 4 (a diverging
// scale centred on 0); all zeros when every score is 0.
std::vector<int> heat_levels(const std::vector<double>& scores) {
  double largest = 0.0;
  for (double score : scores) largest = std::max(largest, std::fabs(score));
  std::vector<int> levels;
  for (double score : scores)
    levels.push_back(largest > 0.0 ? static_cast<int>(std::lround(4.0 * score / largest)) : 0);
  return levels;
}

RoundedView rounded_view(const std::vector<double>& values) {
  RoundedView out{values, {}, {}};
  for (double value : values) {
    out.text.push_back(format_shortest(value));
    out.rounded.push_back(format_fixed(value, 2));
  }
  return out;
}

// The preview's output row written out: each weight to four decimals times its token's row of V (batch item
// 0), joined by " + " (the page shows it with "≈": the weights are rounded).
std::string mixture_text(const ValuePreview& preview, const Tensor& value) {
  const std::size_t tokens = value.shape()[1], width = value.shape()[2];
  std::string out;
  for (std::size_t j = 0; j < tokens; ++j) {
    std::vector<double> row(value.values().begin() + static_cast<std::ptrdiff_t>(j * width),
                            value.values().begin() + static_cast<std::ptrdiff_t>((j + 1) * width));
    std::string terms;
    for (double entry : row) terms += (terms.empty() ? "" : ", ") + format_prose(entry);
    out += (j > 0 ? " + " : "") + with_minus_sign(format_fixed(preview.weights[j], 4)) + " · [" + terms + "]";
  }
  return out;
}

ShapeProbeView probe_view(const ShapeProbe& probe) {
  return {shape_text(probe.input), shape_text(probe.query), shape_text(probe.key), shape_text(probe.value)};
}

RejectionView rejection_view(const RejectionProbe& probe) { return {probe.message, probe.expected_variant}; }

// The rules autograd/gradcheck.cpp applies, with the options ProjectionGradcheck passes it
// (GradcheckOptions{} and the loss's rounding bound ε, which the view states as a number of its own).
GradcheckRules gradcheck_rules() {
  const GradcheckOptions options;
  const std::string step = format_significant(options.step, 3);
  const std::string tolerance = format_significant(options.tolerance, 3);
  const std::string judgeable = format_significant(options.judgeable, 3);
  GradcheckRules out;
  out.step_rule = "Each checked number x is moved down and up by h = " + step + " · max(1, |x|) (" + step +
                  " when |x| ≤ 1).";
  out.pass_rule =
      "A number passes when |a/s − n/s| ≤ " + tolerance + " + r, with s = max(1, |a|, |n|) " +
      "and the rounding allowance r = 2 · ε / (h′ · s), " +
      "where ε bounds how far rounding can move L at these numbers " +
      "and h′ is the smaller of the two steps x − (x − h) and (x + h) − x as floating point gives them. " +
      "A number whose " + tolerance + " + r reaches " + judgeable + " is not judged: " +
      "there rounding in L could hide a gradient off by a factor of two or of the wrong sign.";
  return out;
}

// The gradcheck as the page states it.
GradcheckView gradcheck_view(const GradcheckSummary& check) {
  const GradcheckOptions options;
  GradcheckView out;
  out.passed = check.passed;
  out.checks = check.checks;
  out.input_checks = check.input_checks;
  out.query_checks = check.query_checks;
  out.key_checks = check.key_checks;
  out.value_checks = check.value_checks;
  out.max_error = {check.max_error, format_significant(check.max_error, 3)};  // 3 digits, value exact
  out.tolerance = {check.tolerance, format_significant(check.tolerance, 3)};  // "2e-6", exact
  out.step = {options.step, format_significant(options.step, 3)};             // "1e-6", exact
  out.problem = check.problem;
  out.unjudged = check.unjudged;
  out.max_allowance = {check.max_allowance, format_significant(check.max_allowance, 3)};
  out.rounding_bound = {check.loss_rounding_bound, format_significant(check.loss_rounding_bound, 3)};
  const std::string& bound = out.rounding_bound.text;
  const std::string unjudged =
      std::to_string(check.unjudged) + " of " + std::to_string(check.unjudged + check.checks) + " numbers";
  if (!check.problem.empty())
    out.verdict = "not checked: " + check.problem;
  else if (check.checks == 0)
    out.verdict = "cannot be checked at this scale: at every number probed, rounding in L (ε = " + bound +
                  ") could hide any error in the gradient, so this check proves nothing here";
  else if (!check.passed)
    out.verdict = "they do not agree";
  else if (check.unjudged > 0)
    out.verdict = "the gradients agree at the " + std::to_string(check.checks) +
                  " numbers that could be judged; " + unjudged +
                  " could not be checked at this scale (rounding in L could hide any error there)";
  else
    out.verdict = "the gradients agree";
  return out;
}

EvidenceView evidence_view(const ChapterEvidence& e) {
  const ProjectionRequest& r = e.request;
  const ProjectionGradients& g = *e.primary.gradients;
  EvidenceView out;
  out.input = tensor_view(r.input);
  out.query_weight = tensor_view(r.query_weight);
  out.key_weight = tensor_view(r.key_weight);
  out.value_weight = tensor_view(r.value_weight);
  out.query_upstream = tensor_view(r.upstream->query);
  out.key_upstream = tensor_view(r.upstream->key);
  out.value_upstream = tensor_view(r.upstream->value);
  out.query = tensor_view(e.primary.query);
  out.key = tensor_view(e.primary.key);
  out.value = tensor_view(e.primary.value);
  out.scores = tensor_view(e.primary.scores);
  out.score_heat = heat_levels(e.primary.scores.values());
  if (auto preview = value_preview(e.primary.query, e.primary.key, e.primary.value, 0)) {
    out.value_preview = ValuePreviewView{preview->row,
                                         rounded_view(preview->scores),
                                         rounded_view(preview->scaled),
                                         rounded_view(preview->weights),
                                         rounded_view(preview->unscaled_weights),
                                         rounded_view(preview->output),
                                         number_view(preview->scale),
                                         mixture_text(*preview, e.primary.value)};
  }
  if (auto peaks = own_token_peaks(r.input, e.primary.scores); peaks && *peaks)
    out.own_token_peaks = (*peaks)->sentence;
  out.token_names = token_names(r.input.shape()[1]);
  out.input_gradient = tensor_view(g.input);
  out.query_weight_gradient = tensor_view(g.query_weight);
  out.key_weight_gradient = tensor_view(g.key_weight);
  out.value_weight_gradient = tensor_view(g.value_weight);
  out.loss = number_view(g.loss);
  out.parameter_names = e.primary.parameter_names;
  out.parameter_count = e.primary.parameter_count;
  out.model_width = e.model_width;
  out.head_width = e.head_width;
  if (e.primary.gradcheck) out.gradcheck = gradcheck_view(*e.primary.gradcheck);
  out.batch_probe = probe_view(e.batch);
  out.empty_batch_probe = probe_view(e.empty_batch);
  out.empty_token_probe = probe_view(e.empty_token);
  out.rank_rejection = rejection_view(e.rank);
  out.width_rejection = rejection_view(e.width);
  out.model_mismatch_rejection = rejection_view(e.model_mismatch);
  out.head_mismatch_rejection = rejection_view(e.head_mismatch);
  out.duplicate_name_rejection = rejection_view(e.duplicate_name);
  out.initialization_seed = e.initialization.seed;
  out.initialization_reproducible = e.initialization.reproducible;
  out.initialization_independent = e.initialization.independent;
  out.initialization_transactional = e.initialization.transactional;
  out.initialization_state_after = format_hex64(e.initialization.state_after);
  out.bitwise = e.bitwise;
  return out;
}

// The page's name for a field of any call's request: the self-score settings, then the lesson's state.
std::string page_label(const std::string& field) {
  static const std::pair<const char*, const char*> labels[] = {
      {"seed", "the seed"},
      {"dim", "the width d"},
      {"count", "the number of seeds"},
      {"start", "the first seed"},
  };
  for (const auto& [name, label] : labels)
    if (field == name) return label;
  return field_label(field);
}

// A typed count, or the error naming its field in the learner's words.
Result<std::int64_t, LessonError> read_setting(const std::string& text, const std::string& field, Extent min,
                                               Extent max, ErrorKind kind) {
  auto value = read_count(text, min, max);
  if (!value) {
    std::string label = page_label(field);
    if (label[0] >= 'a' && label[0] <= 'z') label[0] = static_cast<char>(label[0] - 'a' + 'A');  // "The seed"
    return fail(LessonError{kind, label + ": " + value.error().message(), field});
  }
  return static_cast<std::int64_t>(*value);
}

// An experiment's sizes, as the self-score section and the seed search take them: tokens, then dim.
struct ExperimentSizes {
  std::int64_t tokens, dim;
};
Result<ExperimentSizes, LessonError> read_sizes(const std::string& tokens_text, const std::string& dim_text) {
  auto tokens = read_setting(tokens_text, "tokens", 1, kSelfScoreMaxSize, ErrorKind::SelfScore);
  if (!tokens) return fail(tokens.error());
  auto dim = read_setting(dim_text, "dim", 1, kSelfScoreMaxSize, ErrorKind::SelfScore);
  if (!dim) return fail(dim.error());
  return ExperimentSizes{*tokens, *dim};
}

Result<SelfScoreExperiment, LessonError> read_self_score(const SelfScoreRequest& typed) {
  auto seed = read_setting(typed.seed, "seed", 0, NumpyLegacyRandom::kMaxSeed, ErrorKind::SelfScore);
  if (!seed) return fail(seed.error());
  auto sizes = read_sizes(typed.tokens, typed.dim);
  if (!sizes) return fail(sizes.error());
  return SelfScoreExperiment{*seed, sizes->tokens, sizes->dim};
}

const SelfScoreResult& module_experiment() {
  static const SelfScoreResult result = run_self_score_experiment(kModuleExperiment).value();
  return result;
}

bool same_settings(const SelfScoreExperiment& a, const SelfScoreExperiment& b) {
  return a.seed == b.seed && a.tokens == b.tokens && a.dim == b.dim;
}

// The experiment for a request, computed once: the page asks for the same settings to draw the tables,
// to list the exercises and to check each answer. The page starts at the module's own settings, whose
// experiment the exercises read anyway: it is not run twice.
Result<const SelfScoreResult*, LessonError> experiment(const SelfScoreExperiment& request) {
  if (same_settings(request, kModuleExperiment)) return &module_experiment();
  static std::optional<std::pair<SelfScoreExperiment, SelfScoreResult>> last;
  if (last && same_settings(last->first, request)) return &last->second;
  auto result = run_self_score_experiment(request);
  if (!result) return fail(LessonError{ErrorKind::SelfScore, result.error().message()});
  last.emplace(request, std::move(*result));
  return &last->second;
}

// The typed settings read, and their experiment run (or found in the cache).
struct TypedExperiment {
  SelfScoreExperiment request;
  const SelfScoreResult* result;
};
Result<TypedExperiment, LessonError> typed_experiment(const SelfScoreRequest& typed) {
  auto request = read_self_score(typed);
  if (!request) return fail(request.error());
  auto computed = experiment(*request);
  if (!computed) return fail(computed.error());
  return TypedExperiment{*request, *computed};
}

// The fixture's evidence as the page starts from it (the gradcheck comes with numerical_checks_step()) ...
const ChapterEvidence& fixture_evidence() {
  static const ChapterEvidence evidence = compute_chapter_evidence(chapter_fixture(), false).value();
  return evidence;
}
// ... its state, as fixture() returns it (made once: it writes every cell) ...
const LessonState& fixture_lesson_state() {
  static const LessonState state = fixture_state();
  return state;
}
// ... and as the course's report and trace state it, gradcheck included.
const ChapterEvidence& report_evidence() {
  static const ChapterEvidence evidence = compute_chapter_evidence(chapter_fixture()).value();
  return evidence;
}

// The exercises that read the learner's experiment; every other one reads only the frozen fixture or the
// module's experiment (lesson_api_test pins this list against the registry).
const std::vector<std::string> kExperimentExercises = {"qkv04-exercise-1", "qkv04-exercise-3"};

bool reads_experiment(const std::string& id) {
  return std::find(kExperimentExercises.begin(), kExperimentExercises.end(), id) !=
         kExperimentExercises.end();
}

ExperimentFacts facts_of(const SelfScoreResult& r, std::int64_t seed) {
  return {
      seed, r.tokens, r.dim, r.none.argmax, r.none.guaranteed_rows, r.tied.argmax, r.tied.guaranteed_rows};
}

// The facts agree with the settings they claim to describe, and every row they name exists.
std::optional<LessonError> check_facts(const ExperimentFacts& f, const SelfScoreExperiment& request) {
  const auto refuse = [](const std::string& message) {
    return LessonError{ErrorKind::Arguments, "experiment " + message, "experiment"};
  };
  if (f.seed != request.seed || f.tokens != static_cast<std::size_t>(request.tokens) ||
      f.dim != static_cast<std::size_t>(request.dim))
    return refuse("describes seed " + std::to_string(f.seed) + ", " + format_count(f.tokens) +
                  " tokens, width " + format_count(f.dim) + ", not the settings asked for");
  for (const auto* rows : {&f.none_argmax, &f.tied_argmax}) {
    if (rows->size() != f.tokens) return refuse("needs one argmax per token");
    for (std::size_t column : *rows)
      if (column >= f.tokens) return refuse("names a column past the last token");
  }
  for (const auto* rows : {&f.none_guaranteed_rows, &f.tied_guaranteed_rows}) {
    for (std::size_t i = 0; i < rows->size(); ++i)
      if ((*rows)[i] >= f.tokens || (i > 0 && (*rows)[i] <= (*rows)[i - 1]))
        return refuse("guaranteed rows must be ascending rows of the experiment");
  }
  return std::nullopt;
}

// What the exercises read of an experiment, rebuilt from its facts (no scores, vectors or lengths).
SelfScoreResult result_of(const ExperimentFacts& f) {
  const auto summary = [](const std::vector<std::size_t>& argmax,
                          const std::vector<std::size_t>& guaranteed) {
    ScoreSummary out;
    out.argmax = argmax;
    out.diagonal_rows = diagonal_rows(argmax);
    out.guaranteed_rows = guaranteed;
    return out;
  };
  SelfScoreResult out;
  out.tokens = f.tokens;
  out.dim = f.dim;
  out.none = summary(f.none_argmax, f.none_guaranteed_rows);
  out.tied = summary(f.tied_argmax, f.tied_guaranteed_rows);
  return out;
}

struct Registry {
  std::vector<Exercise> exercises;
  std::optional<LessonError> pending;  // why kExperimentExercises have no answer yet
};

// The chapter's numbers a registry is about, and the questions' name for them: the fixture's (no state, or
// the fixture's own), or a state's, evaluated as evaluate() does and kept for the next request about the
// same state (the page lists the exercises and checks each answer for the numbers on screen).
struct ChapterNumbers {
  const ChapterEvidence* evidence;
  std::string setting;
};
Result<ChapterNumbers, LessonError> chapter_numbers(const std::optional<LessonState>& state) {
  if (!state || *state == fixture_lesson_state())
    return ChapterNumbers{&fixture_evidence(), "the frozen fixture"};
  static std::optional<std::pair<LessonState, ChapterEvidence>> last;
  if (!last || !(last->first == *state)) {
    LessonEvaluation evaluation = evaluate_lesson(*state, false, true);
    if (evaluation.error) return fail(*evaluation.error);
    last.emplace(*state, std::move(*evaluation.evidence));
  }
  return ChapterNumbers{&last->second, "the numbers on screen"};
}

// One word per token, each 1 to kMaxTokenNameBytes bytes.
std::optional<LessonError> check_token_names(const std::vector<std::string>& names, Extent tokens) {
  if (names.size() != tokens)
    return LessonError{ErrorKind::Arguments,
                       "token_names needs one word per token: " + std::to_string(tokens) + " tokens, got " +
                           std::to_string(names.size()) + " words",
                       "token_names"};
  for (const std::string& name : names)
    if (name.empty() || name.size() > kMaxTokenNameBytes)
      return LessonError{ErrorKind::Arguments,
                         "a token's word must be 1 to " + std::to_string(kMaxTokenNameBytes) +
                             " bytes, got \"" + shortened(name) + "\"",
                         "token_names"};
  return std::nullopt;
}

// The registry for these settings: from the facts when the request brings them, from the experiment when
// it is cheap, else with the experiment's two exercises pending (the module's experiment stands in for
// it, and nothing of it is shown or graded). The chapter's questions are about `state` (chapter_numbers).
Result<Registry, LessonError> registry(const SelfScoreRequest& typed, const std::optional<LessonState>& state,
                                       const std::optional<std::vector<std::string>>& names) {
  auto chapter = chapter_numbers(state);
  if (!chapter) return fail(chapter.error());
  if (names)
    if (auto error = check_token_names(*names, chapter->evidence->request.input.shape()[1]))
      return fail(*error);
  auto request = read_self_score(typed);
  if (!request) return fail(request.error());
  std::optional<SelfScoreResult> from_facts;
  const SelfScoreResult* current = &module_experiment();
  std::optional<LessonError> pending;
  if (typed.experiment) {
    if (auto error = check_facts(*typed.experiment, *request)) return fail(*error);
    current = &from_facts.emplace(result_of(*typed.experiment));
  } else if (self_score_cost(request->tokens, request->dim) <= kInlineExperimentWork) {
    auto computed = experiment(*request);
    if (!computed) return fail(computed.error());
    current = *computed;
  } else {
    pending = LessonError{ErrorKind::Budget,
                          "this exercise asks about the experiment at " + std::to_string(request->tokens) +
                              " tokens of width " + std::to_string(request->dim) +
                              ", which is still being computed; check again once its summary is shown",
                          "experiment"};
  }
  return Registry{lesson_exercises({*chapter->evidence, *current, request->seed, module_experiment(),
                                    names.value_or(std::vector<std::string>{}), chapter->setting}),
                  std::move(pending)};
}

// Numbers the page was shown, kept so that explaining one of their cells (provenance) reads them instead of
// computing them again: the fixture's, and the last evaluation's (the page shows one at a time).
struct KeptEvaluation {
  LessonState state;  // as fixture() or evaluate() returned it (conformed to the sizes)
  ProjectionRequest request;
  ProjectionEvidence evidence;  // forward, scores and gradients
};
const KeptEvaluation& kept_fixture() {
  static const KeptEvaluation kept{fixture_lesson_state(), fixture_evidence().request,
                                   fixture_evidence().primary};
  return kept;
}
std::optional<KeptEvaluation>& last_evaluation() {
  static std::optional<KeptEvaluation> kept;
  return kept;
}
const KeptEvaluation* kept_for(const LessonState& state) {
  if (const auto& last = last_evaluation(); last && last->state == state) return &*last;
  if (kept_fixture().state == state) return &kept_fixture();
  return nullptr;
}

}  // namespace

FixtureResponse fixture() {
  FixtureResponse out{true, kept_fixture().state, {}, evidence_view(fixture_evidence()), gradcheck_rules()};
  out.evidence.bitwise.reset();  // as evaluate() leaves them out: the page asks numerical_checks_step()
  for (const SizeLimit& limit : kSizeLimits)
    out.size_limits.push_back(
        {limit.field, static_cast<std::size_t>(limit.min), static_cast<std::size_t>(limit.max)});
  return out;
}

LessonResponse evaluate(const EvaluateRequest& request) {
  LessonEvaluation evaluation = evaluate_lesson(request.state, false, false);
  if (evaluation.evidence && request.token_names)
    if (auto error = check_token_names(*request.token_names, evaluation.evidence->request.input.shape()[1])) {
      evaluation.error = std::move(error);
      evaluation.evidence.reset();
    }
  LessonResponse out;
  out.ok = evaluation.evidence.has_value();
  out.state = std::move(evaluation.state);
  if (evaluation.evidence) {
    out.evidence = evidence_view(*evaluation.evidence);
    if (request.token_names) out.evidence->token_names = *request.token_names;
    last_evaluation() =
        KeptEvaluation{out.state, evaluation.evidence->request, std::move(evaluation.evidence->primary)};
  }
  if (evaluation.error) out.error = error_view(*evaluation.error, page_label);
  out.notes = std::move(evaluation.notes);
  return out;
}

namespace {

ChecksResponse checks_response(const GradcheckSummary& summary, const BitwiseChecks& bitwise) {
  ChecksResponse out;
  out.ok = out.done = true;
  out.gradcheck = gradcheck_view(summary);
  out.bitwise = bitwise;
  return out;
}

// Numbers not on screen: computed, gradcheck included, and checked in one go.
ChecksResponse checks_of_unkept(const LessonState& state) {
  LessonRequest read = read_lesson_request(state);
  if (!read.request) return refusal<ChecksResponse>(*read.error, page_label);
  EvidenceParts parts;
  parts.scores = true;  // as the bitwise checks' replay computes them
  auto evidence = compute_projection_evidence(*read.request, parts);
  if (!evidence) return refusal<ChecksResponse>(evidence.error(), page_label);
  auto bitwise = check_bitwise(*read.request, *evidence);
  if (!bitwise) return refusal<ChecksResponse>(bitwise.error(), page_label);
  return checks_response(*evidence->gradcheck, *bitwise);
}

// The steps done so far for one state's kept numbers.
struct ChecksInProgress {
  LessonState state;
  ProjectionGradcheck gradcheck;
};
std::optional<ChecksInProgress>& checks_in_progress() {
  static std::optional<ChecksInProgress> checks;
  return checks;
}

}  // namespace

ChecksResponse numerical_checks_step(const LessonState& state) {
  const KeptEvaluation* kept = kept_for(state);
  if (!kept) return checks_of_unkept(state);
  std::optional<ChecksInProgress>& checks = checks_in_progress();
  if (!checks || !(checks->state == state)) {
    checks.reset();
    // A lesson state always has its three upstreams, so every kept evaluation has gradients to check.
    assert(kept->evidence.gradients);
    auto started = ProjectionGradcheck::start(kept->request, *kept->evidence.gradients);
    if (!started) return refusal<ChecksResponse>(started.error(), page_label);
    checks = ChecksInProgress{state, std::move(*started)};
  }
  if (!checks->gradcheck.done()) {
    checks->gradcheck.check_next();
    ChecksResponse out;
    out.ok = true;
    return out;
  }
  const GradcheckSummary summary = checks->gradcheck.summary();
  checks.reset();
  auto bitwise = check_bitwise(kept->request, kept->evidence);
  if (!bitwise) return refusal<ChecksResponse>(bitwise.error(), page_label);
  return checks_response(summary, *bitwise);
}

ChecksResponse numerical_checks(const LessonState& state) {
  for (;;) {
    ChecksResponse step = numerical_checks_step(state);
    if (!step.ok || step.done) return step;
  }
}

ProvenanceResponse provenance(const ProvenanceRequest& request) {
  // The numbers the page was shown when the state is one fixture() or evaluate() returned; otherwise
  // only what a cell's sum uses: forward, scores and gradients, not the chapter's other evidence or
  // gradcheck.
  std::optional<KeptEvaluation> computed;
  const KeptEvaluation* kept = kept_for(request.state);
  if (!kept) {
    LessonRequest read = read_lesson_request(request.state);
    if (!read.request) return refusal<ProvenanceResponse>(*read.error, page_label);
    EvidenceParts parts;
    parts.gradcheck = false;
    parts.scores = true;
    auto evidence = compute_projection_evidence(*read.request, parts);
    if (!evidence) return refusal<ProvenanceResponse>(evidence.error(), page_label);
    computed = KeptEvaluation{std::move(read.state), std::move(*read.request), std::move(*evidence)};
  }
  const KeptEvaluation& numbers = computed ? *computed : *kept;
  auto cell =
      cell_provenance(numbers.request, numbers.evidence, request.tensor, static_cast<Extent>(request.index));
  if (!cell) return refusal<ProvenanceResponse>(cell.error(), page_label);
  ProvenanceResponse out;
  out.ok = true;
  out.target = std::move(cell->target);
  out.sources = std::move(cell->sources);
  out.expression = std::move(cell->expression);
  out.description = std::move(cell->description);
  return out;
}

SelfScoreResponse self_score(const SelfScoreRequest& typed) {
  auto run = typed_experiment(typed);
  if (!run) return refusal<SelfScoreResponse>(run.error(), page_label);
  SelfScoreResponse out;
  const SelfScoreExperiment& request = run->request;
  const SelfScoreResult& r = *run->result;
  const auto summary = [](const ScoreSummary& s) {
    return ScoreSummaryView{rounded_view(s.scores), s.argmax, s.diagonal_rows, s.guaranteed_rows};
  };
  out.ok = true;
  out.result = SelfScoreView{request.seed,
                             r.tokens,
                             r.dim,
                             rounded_view(r.x),
                             rounded_view(r.wq),
                             rounded_view(r.wk),
                             rounded_view(r.norms),
                             rounded_view(r.projected_norms),
                             summary(r.none),
                             summary(r.separate),
                             summary(r.tied)};
  return out;
}

SelfScoreSummaryResponse self_score_summary(const SelfScoreRequest& typed) {
  auto run = typed_experiment(typed);
  if (!run) return refusal<SelfScoreSummaryResponse>(run.error(), page_label);
  SelfScoreSummaryResponse out;
  const SelfScoreExperiment& request = run->request;
  const SelfScoreResult& r = *run->result;
  const std::size_t n = r.tokens;
  const bool complete = n <= kCompleteTokens;
  const std::size_t shown = complete ? n : kCornerTokens;
  const auto first = [&](const std::vector<double>& values) {
    return rounded_view(
        std::vector<double>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(shown)));
  };
  const auto kind = [&](const ScoreSummary& s, bool guaranteed) {
    KindSummaryView view;
    std::vector<double> corner;
    for (std::size_t i = 0; i < shown; ++i)
      for (std::size_t j = 0; j < shown; ++j) corner.push_back(s.scores[i * n + j]);
    view.scores = rounded_view(corner);
    view.heat = heat_levels(corner);
    view.argmax = s.argmax;
    view.diagonal_count = s.diagonal_rows.size();
    view.diagonal_rows = s.diagonal_rows;
    view.diagonal_rows_text = rows_text(s.diagonal_rows);
    view.off_diagonal_count = n - s.diagonal_rows.size();
    for (std::size_t row = 0; row < n && view.off_diagonal.size() < kListedRows; ++row) {
      if (s.argmax[row] == row) continue;
      view.off_diagonal.push_back({row, s.argmax[row], format_fixed(s.scores[row * n + row], 2),
                                   format_fixed(s.scores[row * n + s.argmax[row]], 2)});
    }
    if (guaranteed) view.guaranteed_rows = s.guaranteed_rows;
    view.guaranteed_rows_text = rows_text(view.guaranteed_rows);
    return view;
  };
  out.ok = true;
  out.result = SelfScoreSummaryView{request.seed,
                                    r.tokens,
                                    r.dim,
                                    complete,
                                    shown,
                                    first(r.norms),
                                    first(r.projected_norms),
                                    kind(r.none, true),
                                    kind(r.separate, false),
                                    kind(r.tied, true),
                                    facts_of(r, request.seed)};
  return out;
}

SeedSearchResponse find_seed(const SeedSearchRequest& typed, const SearchProgress& progress) {
  const auto refuse = [](const LessonError& error) { return refusal<SeedSearchResponse>(error, page_label); };
  CounterexampleSearch search;
  const std::optional<ScoreKind> kind = search_kind_named(typed.kind);
  if (!kind)
    return refuse({ErrorKind::Arguments,
                   "kind must be \"none\" or \"tied\", got \"" + shortened(typed.kind) + "\"", "kind"});
  search.kind = *kind;
  std::int64_t start = 0;
  if (!typed.start.empty()) {
    auto first = read_setting(typed.start, "start", 0, NumpyLegacyRandom::kMaxSeed, ErrorKind::SelfScore);
    if (!first) return refuse(first.error());
    start = *first;
  } else if (!typed.after.empty()) {
    auto after = read_setting(typed.after, "seed", 0, NumpyLegacyRandom::kMaxSeed, ErrorKind::SelfScore);
    if (!after) return refuse(after.error());
    start = (*after + 1) % (NumpyLegacyRandom::kMaxSeed + 1);
  }
  auto count = read_setting(typed.count, "count", 1, kMaxSearchSeeds, ErrorKind::SelfScore);
  if (!count) return refuse(count.error());
  auto sizes = read_sizes(typed.tokens, typed.dim);
  if (!sizes) return refuse(sizes.error());
  search.start_seed = start;
  search.max_seeds = *count;
  search.tokens = sizes->tokens;
  search.dim = sizes->dim;
  auto found = find_off_diagonal_seed(search, progress);
  if (!found) {
    const bool budget = found.error().kind == SelfScoreErrorKind::SearchOverBudget;
    return refuse(
        {budget ? ErrorKind::Budget : ErrorKind::SelfScore, found.error().message(), budget ? "count" : ""});
  }
  SeedSearchResponse out;
  out.ok = true;
  out.found = found->has_value();
  if (*found) {
    out.seed = (*found)->seed;
    out.row = (*found)->row;
    out.argmax = (*found)->argmax;
  }
  return out;
}

namespace {

// An exercise as the page lists it: its words where they name numbers, and no answer while it is pending
// or not graded.
ExerciseView exercise_view(const Exercise& exercise, bool pending) {
  const bool no_answer = pending || !exercise.not_graded.empty();
  ExerciseView out{
      exercise.id,
      answer_kind_name(exercise.blanks[0].kind),
      exercise.blanks.size(),
      exercise.choices,
      no_answer ? std::vector<std::string>{} : answer_text(exercise),
      pending ? "The experiment for these settings is still being computed." : exercise.explanation,
      exercise.question,
      {},
      exercise.blank_labels,
      std::nullopt};
  if (!exercise.choice_texts.empty())
    for (const std::string& option : exercise.choices)
      for (const auto& [id, text] : exercise.choice_texts)
        if (id == option) out.choice_texts.push_back(text);
  if (!exercise.not_graded.empty()) out.not_graded = exercise.not_graded;
  return out;
}

}  // namespace

ExercisesResponse exercises(const SelfScoreRequest& self_score) {
  return exercises_for({self_score, {}, {}});
}

ExercisesResponse exercises_for(const ExercisesRequest& request) {
  auto all = registry(request.self_score, request.state, request.token_names);
  if (!all) return refusal<ExercisesResponse>(all.error(), page_label);
  ExercisesResponse out;
  out.ok = true;
  for (const Exercise& exercise : all->exercises)
    out.exercises.push_back(exercise_view(exercise, all->pending && reads_experiment(exercise.id)));
  return out;
}

namespace {
// The seed a variant request asks for: typed, or derived from an attempt key.
Result<std::uint64_t, LessonError> requested_seed(const VariantRequest& request) {
  if (request.attempt_key.empty()) {
    auto seed = read_setting(request.seed, "seed", 0, kMaxVariantSeed, ErrorKind::Arguments);
    if (!seed) return fail(seed.error());
    return static_cast<std::uint64_t>(*seed);
  }
  if (!request.seed.empty())
    return fail(LessonError{ErrorKind::Arguments, "give a seed or an attempt key, not both", "attempt_key"});
  if (request.attempt_key.size() > kMaxAttemptKeyLength)
    return fail(LessonError{ErrorKind::Arguments,
                            "attempt_key is at most " + std::to_string(kMaxAttemptKeyLength) +
                                " characters, got " + std::to_string(request.attempt_key.size()),
                            "attempt_key"});
  return attempt_seed(request.attempt_key);
}
}  // namespace

VariantResponse variant(const VariantRequest& request) {
  auto seed = requested_seed(request);
  if (!seed) return refusal<VariantResponse>(seed.error(), page_label);
  auto drawn = draw_variant(*seed);
  if (!drawn) return refusal<VariantResponse>(drawn.error(), page_label);
  return VariantResponse{true, drawn->seed, std::move(drawn->state), std::move(drawn->token_names),
                         std::nullopt};
}

ExampleResponse example(const ExampleRequest& request) {
  auto read = read_example(request);
  if (!read) return refusal<ExampleResponse>(read.error(), page_label);
  return ExampleResponse{true, std::move(read->title), std::move(read->state), std::move(read->token_names),
                         std::nullopt};
}

AnswerResponse check_answer(const AnswerRequest& request) {
  auto all = registry(request.self_score, request.state, request.token_names);
  if (!all) return refusal<AnswerResponse>(all.error(), page_label);
  for (const Exercise& exercise : all->exercises) {
    if (exercise.id != request.id) continue;
    if (all->pending && reads_experiment(exercise.id))
      return refusal<AnswerResponse>(*all->pending, page_label);
    GradingOptions grading;
    grading.attempts_allowed = request.attempts_allowed.value_or(0);
    grading.graded = request.graded;
    if (auto allowed =
            check_allowed(request.attempts_used.value_or(0), attempts_allowed_for(exercise.id, grading));
        !allowed)
      return refusal<AnswerResponse>(allowed.error(), page_label);
    auto verdict = qkv::check_answer(exercise, request.responses);
    if (!verdict) return refusal<AnswerResponse>(verdict.error(), page_label);
    AnswerResponse out;
    out.ok = true;
    out.correct = verdict->correct;
    out.counts = counts_as_success(verdict->correct, request.answer_shown);
    out.read = verdict->read;
    out.hint = verdict->hint;
    out.answer = verdict->answer;
    out.explanation = verdict->explanation;
    return out;
  }
  return refusal<AnswerResponse>(
      {ErrorKind::Exercise, "unknown exercise \"" + shortened(request.id) + "\"", "id"}, page_label);
}

namespace {

QuestionResultView result_view(const QuestionResult& result) {
  return {result.id,       result.counted,  result.right,
          result.settled,  result.revealed, result.out_of_attempts,
          result.attempts, result.standing, result.checks_note};
}

// The passing fraction given, or the author's percent made one (refused outside 0 to 100), else the default.
Result<double, LessonError> passing_fraction(const OutcomeRequest& request) {
  if (request.passing && request.passing_percent)
    return fail(LessonError{ErrorKind::Arguments,
                            "give the passing fraction or the passing percent, not both", "passing_percent"});
  if (!request.passing_percent) return request.passing.value_or(kDefaultPassingFraction);
  auto read = read_number(*request.passing_percent);
  if (!read)
    return fail(
        LessonError{ErrorKind::Arguments, "the passing score " + read.error().message(), "passing_percent"});
  const double percent = *read;
  if (!(percent >= 0.0 && percent <= 100.0))
    return fail(LessonError{ErrorKind::Arguments, "the passing score must be a percent from 0 to 100",
                            "passing_percent"});
  return percent / 100.0;
}

}  // namespace

OutcomeResponse lesson_outcome(const OutcomeRequest& request) {
  if (request.questions.size() > kMaxOutcomeQuestions)
    return refusal<OutcomeResponse>(
        {ErrorKind::Arguments, "at most " + std::to_string(kMaxOutcomeQuestions) + " questions are graded",
         "questions"},
        page_label);
  if (request.graded && request.graded->size() > kMaxOutcomeQuestions)
    return refusal<OutcomeResponse>(
        {ErrorKind::Arguments, "at most " + std::to_string(kMaxOutcomeQuestions) + " questions are graded",
         "graded"},
        page_label);
  auto passing = passing_fraction(request);
  if (!passing) return refusal<OutcomeResponse>(passing.error(), page_label);
  std::vector<QuestionStanding> standings;
  for (const QuestionStandingView& q : request.questions)
    standings.push_back({q.checked, q.counts, q.revealed, q.id.value_or(""), q.attempts.value_or(0)});
  GradingOptions options;
  options.passing = *passing;
  if (request.attempts) {
    // Read as a count (no upper bound here: mastery refuses an allowance past its own limit, in its words).
    auto allowed = read_count(*request.attempts, 0, std::numeric_limits<Extent>::max());
    if (!allowed)
      return refusal<OutcomeResponse>(
          {ErrorKind::Arguments, "the attempts allowed per question " + allowed.error().message(),
           "attempts"},
          page_label);
    options.attempts_allowed = static_cast<std::size_t>(*allowed);
  }
  options.graded = request.graded;
  auto graded = mastery(standings, options);
  if (!graded) return refusal<OutcomeResponse>(graded.error(), page_label);
  OutcomeResponse out;
  out.ok = true;
  out.shown = graded->shown;
  out.counted = graded->counted;
  out.right = graded->right;
  out.settled = graded->settled;
  out.scaled = graded->scaled;
  out.percent = graded->percent;
  out.passing = options.passing;
  out.passing_percent = std::round(10000.0 * options.passing) / 100.0;
  out.attempts = options.attempts_allowed;
  out.completed = graded->completed;
  out.passed = graded->passed;
  for (const QuestionResult& result : graded->questions) out.questions.push_back(result_view(result));
  return out;
}

PracticeStreakResponse practice_streak(const PracticeStreakRequest& request) {
  if (request.checked.size() > kMaxPracticeChecked)
    return refusal<PracticeStreakResponse>(
        {ErrorKind::Arguments,
         "at most " + std::to_string(kMaxPracticeChecked) + " checked problems are remembered, got " +
             std::to_string(request.checked.size()),
         "checked"},
        page_label);
  PracticeStreak streak = after_check({request.run, request.checked}, request.seed, request.right);
  PracticeStreakResponse out;
  out.ok = true;
  out.has_it = has_it(streak.run);
  out.text = practice_streak_text(streak.run);
  out.run = streak.run;
  out.checked = std::move(streak.checked);
  return out;
}

RandnResponse randn(const RandnRequest& typed) {
  auto seed = read_setting(typed.seed, "seed", 0, NumpyLegacyRandom::kMaxSeed, ErrorKind::SelfScore);
  if (!seed) return refusal<RandnResponse>(seed.error(), page_label);
  auto count = read_setting(typed.count, "draws", 1, kMaxRandnCount, ErrorKind::Arguments);
  if (!count) return refusal<RandnResponse>(count.error(), page_label);
  RandnResponse out;
  out.ok = true;
  out.values = NumpyLegacyRandom::seeded(*seed).value().randn(static_cast<std::size_t>(*count));
  for (double value : out.values) out.text.push_back(format_significant17(value));
  return out;
}

TextResponse report() { return {true, render_report(report_evidence())}; }
TextResponse trace() { return {true, render_trace(report_evidence())}; }

ProjectionResponse projection_response(const ProjectionEvidence& evidence) {
  const auto data = [](const Tensor& tensor) { return TensorData{tensor.shape(), tensor.values()}; };
  ProjectionResponse out;
  out.parameter_names = evidence.parameter_names;
  out.parameter_count = evidence.parameter_count;
  out.query = data(evidence.query);
  out.key = data(evidence.key);
  out.value = data(evidence.value);
  if (evidence.gradients) {
    const ProjectionGradients& g = *evidence.gradients;
    out.loss = g.loss;
    out.input_gradient = data(g.input);
    out.query_weight_gradient = data(g.query_weight);
    out.key_weight_gradient = data(g.key_weight);
    out.value_weight_gradient = data(g.value_weight);
  }
  if (evidence.gradcheck) {
    const GradcheckSummary& check = *evidence.gradcheck;
    out.gradcheck = GradcheckData{check.passed,    check.checks,        check.unjudged, check.max_error,
                                  check.tolerance, check.max_allowance, std::nullopt};
    if (!check.problem.empty()) out.gradcheck->problem = check.problem;
  }
  if (auto preview = value_preview(evidence.query, evidence.key, evidence.value, 0))
    out.value_preview = PreviewData{preview->row,     preview->scores,           preview->scaled,
                                    preview->weights, preview->unscaled_weights, preview->output,
                                    preview->scale};
  return out;
}

ProjectionResponse evidence(const EvidenceRequest& typed) {
  ProjectionResponse out;
  out.ok = false;
  // Validation order: input, query_weight, key_weight, value_weight, then the upstreams' query, key, value;
  // the first absent or malformed tensor is the error.
  const auto tensor = [&](const std::optional<TensorData>& data, const char* path,
                          const char* field) -> std::optional<Tensor> {
    if (out.error) return std::nullopt;
    if (!data) {
      out.error = error_view({ErrorKind::Arguments, std::string("request.") + path + " is missing", field},
                             page_label);
      return std::nullopt;
    }
    auto made = Tensor::from_values(data->shape, data->values);
    if (!made) {
      out.error = error_view(lesson_error(made.error(), field), page_label);
      return std::nullopt;
    }
    return std::move(*made);
  };
  auto input = tensor(typed.input, "input", tensor_name<TensorRole::Input>().key);
  auto query = tensor(typed.query_weight, "query_weight", tensor_name<TensorRole::Weight>(0).key);
  auto key = tensor(typed.key_weight, "key_weight", tensor_name<TensorRole::Weight>(1).key);
  auto value = tensor(typed.value_weight, "value_weight", tensor_name<TensorRole::Weight>(2).key);
  ProjectionRequest request;
  if (typed.upstream) {
    auto uq = tensor(typed.upstream->query, "upstream.query", tensor_name<TensorRole::Upstream>(0).key);
    auto uk = tensor(typed.upstream->key, "upstream.key", tensor_name<TensorRole::Upstream>(1).key);
    auto uv = tensor(typed.upstream->value, "upstream.value", tensor_name<TensorRole::Upstream>(2).key);
    if (uq && uk && uv) request.upstream = Upstreams{std::move(*uq), std::move(*uk), std::move(*uv)};
  }
  if (out.error) return out;
  request.input = std::move(*input);
  request.query_weight = std::move(*query);
  request.key_weight = std::move(*key);
  request.value_weight = std::move(*value);
  auto computed = compute_projection_evidence(request);
  if (!computed) return refusal<ProjectionResponse>(computed.error(), page_label);
  return projection_response(*computed);
}

}  // namespace qkv::api
