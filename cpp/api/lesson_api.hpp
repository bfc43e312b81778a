// The lesson's calls as its two front ends see them (the WebAssembly module and the command-line tool):
// one request and one response type per call, each listing its fields once in a describe() function.
// The front ends only convert these fields (to JavaScript values or to JSON); validation, reading numbers,
// rounding and error fields all happen here. Every response is {ok: true, ...} or {ok: false, error}.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "learner/editable_state.hpp"
#include "learner/example.hpp"
#include "learner/exercise.hpp"
#include "learner/mastery.hpp"
#include "learner/practice_streak.hpp"
#include "learner/provenance.hpp"
#include "learner/variant.hpp"
#include "response/response.hpp"
#include "self_score/self_score.hpp"

namespace qkv::api {

// ---- values the page shows: numbers with the text C++ formatted for them ----

struct TensorView {
  Shape shape;
  std::string shape_text;         // "[1, 2, 3]"
  std::vector<double> values;     // exact, for tests that compare bits
  std::vector<std::string> text;  // shortest round-trip decimal of each value
};
struct NumberView {
  double value = 0.0;
  std::string text;
};
struct RoundedView {
  std::vector<double> values;
  std::vector<std::string> text;     // shortest round-trip decimal
  std::vector<std::string> rounded;  // two decimals, as np.round(x, 2) prints
};
// ---- chapter 26: the editable lesson ----

struct ShapeProbeView {
  std::string input, query, key, value;
};
struct RejectionView {
  std::string message;
  bool expected_variant = false;
};
// The gradcheck's rules in the words the page shows: the same for every state, so they come once, with
// fixture() (the one number they depend on, the rounding bound ε of L, comes with each check:
// GradcheckView::rounding_bound).
struct GradcheckRules {
  std::string step_rule, pass_rule;
};
struct GradcheckView {
  bool passed = false;
  std::size_t checks = 0, input_checks = 0, query_checks = 0, key_checks = 0, value_checks = 0;
  NumberView max_error, tolerance, step;  // max_error.text: 3 significant digits (value stays exact)
  std::string problem;
  NumberView rounding_bound;  // ε: how far rounding can move L at these numbers (3 digits in text)
  // Numbers probed where rounding in L could hide any error (not judged), the largest τ + r a judged number
  // had, and the outcome in words: agree, disagree, or not checkable at this scale.
  std::size_t unjudged = 0;
  NumberView max_allowance;
  std::string verdict;
};
// The next lesson's preview (cpp/attention/value_preview.hpp): query token 0 of batch item 0, its scores
// divided by √d_head, their softmax (and the unscaled scores' softmax beside it), and the weighted sum of V.
struct ValuePreviewView {
  std::size_t row = 0;
  RoundedView scores, scaled, weights, unscaled_weights, output;
  NumberView scale;  // √d_head
  // The output row written out: each weight (four decimals) times its row of V, "0.0142 · [3, −3] + …".
  std::string mixture_text;
};
struct EvidenceView {
  TensorView input, query_weight, key_weight, value_weight, query_upstream, key_upstream, value_upstream;
  TensorView query, key, value;
  TensorView scores;  // [B, T, T]: scores[b,i,j] = q_{b,i}·k_{b,j}, raw dot products (not scaled, no softmax)
  // The score figure's colour of each score, as the self-score heatmaps colour theirs (heat_levels): relative
  // to the largest |score| of the whole tensor, so equal scores look equal in every batch item.
  std::vector<int> score_heat;
  std::optional<ValuePreviewView> value_preview;  // none when an axis is empty
  // Without projections (X Xᵀ) and with them (S): the rows of batch item 0 that peak on their own token, in
  // words (chapter26/score_changes.hpp). None when an axis is empty.
  std::optional<std::string> own_token_peaks;
  std::vector<std::string> token_names;  // [T]: the fixture story's word for each token position
  TensorView input_gradient, query_weight_gradient, key_weight_gradient, value_weight_gradient;
  NumberView loss;
  std::vector<std::string> parameter_names;
  std::size_t parameter_count = 0, model_width = 0, head_width = 0;
  std::optional<GradcheckView> gradcheck;  // only in the report: the page asks numerical_checks_step()
  ShapeProbeView batch_probe, empty_batch_probe, empty_token_probe;
  RejectionView rank_rejection, width_rejection, model_mismatch_rejection, head_mismatch_rejection,
      duplicate_name_rejection;
  std::uint64_t initialization_seed = 26;
  bool initialization_reproducible = false, initialization_independent = false,
       initialization_transactional = false;
  std::string initialization_state_after;  // "0x1fe68f0af33cb994"
  // The bitwise checks (chapter26.hpp): not in fixture() and evaluate(), the page asks
  // numerical_checks_step().
  std::optional<BitwiseChecks> bitwise;
};

struct SizeLimitView {
  std::string field;
  std::size_t min = 0, max = 0;
};

struct FixtureResponse {
  bool ok = true;
  LessonState state;
  std::vector<SizeLimitView> size_limits;
  EvidenceView evidence;  // what evaluate(state) shows, computed once for the page's start and the registry
  GradcheckRules gradcheck_rules;  // shown while the numerical checks are still to come
};
FixtureResponse fixture();

struct LessonResponse {
  bool ok = false;
  LessonState state;  // conformed to the sizes, whether or not they were accepted
  std::optional<EvidenceView> evidence;
  std::optional<ErrorView> error;
  std::vector<std::string> notes;  // values a link gave that could not be used, and what was used
};
// The numbers to evaluate, and their tokens' words (a drawn problem's or an author's example's), checked as
// ExercisesRequest's are; without them the evidence names the tokens with the fixture story's words.
struct EvaluateRequest {
  LessonState state;
  std::optional<std::vector<std::string>> token_names;
};
// Everything but the gradcheck, which is most of the work: the page shows these numbers first and asks
// numerical_checks_step() for the same state, a step per idle moment.
LessonResponse evaluate(const EvaluateRequest& request);

// The checks of a state's numbers, the gradcheck and the bitwise checks (of the numbers on screen, kept from
// fixture() or evaluate(), without computing them again).
struct ChecksResponse {
  bool ok = false;
  bool done = false;  // false: a step of numerical_checks_step with more to come (no checks yet)
  std::optional<GradcheckView> gradcheck;
  std::optional<BitwiseChecks> bitwise;
  std::optional<ErrorView> error;
};
ChecksResponse numerical_checks(const LessonState& state);
// The same checks in steps, so that none holds a slow phone's page for long: the gradcheck of X, W_Q, W_K
// and W_V one per call, then the bitwise checks, whose response has both (done). The core keeps the steps
// done for one state, the last asked: a call for another state starts again. A state whose numbers are not
// on screen is checked in one call.
ChecksResponse numerical_checks_step(const LessonState& state);

// Where one computed cell of the lesson's current numbers comes from (learner/provenance.hpp).
struct ProvenanceRequest {
  LessonState state;
  std::string tensor;     // query, key, value, scores, input_gradient, query_weight_gradient, ...
  std::size_t index = 0;  // row-major
};
struct ProvenanceResponse {
  bool ok = false;
  std::string target;                // "Q[0,0,1]"
  std::vector<SourceCells> sources;  // the cells it was computed from
  std::string expression;            // "Q[0,0,1] = 1·0 + 2·1 + (−1)·(−1) = 3"
  std::string description;           // the same in words
  std::optional<ErrorView> error;
};
ProvenanceResponse provenance(const ProvenanceRequest& request);

// ---- the self-score experiment (typed text; C++ reads it) ----

// What the self-score exercises need to know about the learner's experiment, as self_score_summary()
// computed it (in the page's worker): the page hands it back with exercises() and check_answer() so that
// its own thread never recomputes a large experiment. Checked against the request's settings.
struct ExperimentFacts {
  std::int64_t seed = 0;
  std::size_t tokens = 0, dim = 0;
  std::vector<std::size_t> none_argmax, none_guaranteed_rows;  // [n], ascending rows
  std::vector<std::size_t> tied_argmax, tied_guaranteed_rows;
};

struct SelfScoreRequest {
  std::string seed = "1", tokens = "5", dim = "8";
  std::optional<ExperimentFacts> experiment;  // optional: from self_score_summary() for these settings
};
struct ScoreSummaryView {
  RoundedView scores;  // n × n, row-major
  std::vector<std::size_t> argmax, diagonal_rows, guaranteed_rows;
};
struct SelfScoreView {
  std::int64_t seed = 0;
  std::size_t tokens = 0, dim = 0;
  RoundedView x, wq, wk, norms, projected_norms;
  ScoreSummaryView none, separate, tied;
};
struct SelfScoreResponse {
  bool ok = false;
  std::optional<SelfScoreView> result;
  std::optional<ErrorView> error;
};
SelfScoreResponse self_score(const SelfScoreRequest& request);

// The same experiment as a page shows it at any size: every score up to kCompleteTokens tokens, the
// top-left kCornerTokens x kCornerTokens corner above that, and counts and a few rows instead of the
// rest. Text is formatted only for what is shown, which keeps n = d = 512 fast (the full response
// formats ~1.6 million numbers).
inline constexpr std::size_t kCompleteTokens = 16;
inline constexpr std::size_t kCornerTokens = 8;
inline constexpr std::size_t kListedRows = 5;  // off-diagonal rows listed
struct OffDiagonalRowView {
  std::size_t row = 0, argmax = 0;
  std::string own, peak;  // the row's own score and its maximum, two decimals (np.round)
};
struct KindSummaryView {
  RoundedView scores;                            // [shown, shown], the top-left corner, row-major
  std::vector<std::size_t> argmax;               // [n]
  std::size_t diagonal_count = 0;                // rows peaking on their own token ...
  std::vector<std::size_t> diagonal_rows;        // ... and which, ascending
  std::string diagonal_rows_text;                // ... in words: "rows 0, 1 and 2" (rows_text)
  std::size_t off_diagonal_count = 0;            // n - diagonal_count
  std::vector<OffDiagonalRowView> off_diagonal;  // the first kListedRows rows peaking elsewhere
  std::vector<std::size_t> guaranteed_rows;      // none for separate
  std::string guaranteed_rows_text;              // in words: "row 0", "none"
  // The heatmap's colour of each shown score: round(4 · score / the largest |score| shown), from −4 to 4
  // (a diverging scale centred on 0; the page shows the sign and the value as text too).
  std::vector<int> heat;
};
struct SelfScoreSummaryView {
  std::int64_t seed = 0;
  std::size_t tokens = 0, dim = 0;
  bool complete = false;               // every score and length is shown (tokens <= kCompleteTokens)
  std::size_t shown = 0;               // rows and columns shown: tokens, or kCornerTokens
  RoundedView norms, projected_norms;  // the first `shown`
  KindSummaryView none, separate, tied;
  ExperimentFacts facts;
};
struct SelfScoreSummaryResponse {
  bool ok = false;
  std::optional<SelfScoreSummaryView> result;
  std::optional<ErrorView> error;
};
SelfScoreSummaryResponse self_score_summary(const SelfScoreRequest& request);

// Searches the seeds after `after` (the current one, as typed; wrapping to 0 after the last; empty: from
// seed 0) for a seed where some row peaks off the diagonal, so pressing again finds the next one.
struct SeedSearchRequest {
  std::string kind = "none";  // "none" or "tied"
  std::string after, count = "1000", tokens = "5", dim = "8";
  std::string start;  // the first seed tried (the command line's --start); when given, `after` is not read
};
struct SeedSearchResponse {
  bool ok = false;
  bool found = false;
  std::int64_t seed = 0;
  std::size_t row = 0, argmax = 0;
  std::optional<ErrorView> error;
};
// Refused with kind "budget" when count x the work of one seed exceeds kSearchBudget
// (self_score/self_score.hpp). `progress` hears the number of seeds tried, every ~kSearchProgressWork.
SeedSearchResponse find_seed(const SeedSearchRequest& request, const SearchProgress& progress = nullptr);

// ---- exercises ----

struct ExerciseView {
  std::string id;
  std::string kind;  // answer_kind_name()
  std::size_t blanks = 1;
  std::vector<std::string> choices;  // option ids, in the order shown
  std::vector<std::string> answer;   // for reveal="always": the right answer per blank (none when not graded)
  std::string explanation;
  // The words of a question that names the chapter's numbers, written by the core from the numbers the
  // registry is for (empty: the page's prose stands) ...
  std::string question;
  std::vector<std::string> choice_texts;  // ... its options' words, in the order of `choices` (or none) ...
  std::vector<std::string> blank_labels;  // ... and its blanks' labels (or none)
  // Why these numbers make the question meaningless, when they do: it is not graded, has no answer, and
  // checking it is refused with this reason (kind "exercise").
  std::optional<std::string> not_graded;
};
struct ExercisesResponse {
  bool ok = false;
  std::vector<ExerciseView> exercises;
  std::optional<ErrorView> error;
};
// The registry for the experiment as the learner set it. Without `experiment` facts, an experiment costing
// more than kInlineExperimentWork is not computed: the two exercises about it (kExperimentExercises) are
// listed with no answer yet, and checking them is refused with kind "budget".
inline constexpr std::int64_t kInlineExperimentWork = 4000000;  // multiply-adds; a few ms
ExercisesResponse exercises(const SelfScoreRequest& self_score);

// The registry for the chapter's numbers on screen (the fixture, a `state`, a learner's edit or a drawn
// variant) as well as the experiment. Without `state` the chapter's questions are about the frozen fixture;
// a state is read as evaluate() reads it and refused with the same error. `token_names`, one word per
// token of the state (a variant's), name the tokens in the questions; without them, the fixture story's.
struct ExercisesRequest {
  SelfScoreRequest self_score;
  std::optional<LessonState> state;
  std::optional<std::vector<std::string>> token_names;
};
ExercisesResponse exercises_for(const ExercisesRequest& request);
// A token's word: 1 to kMaxTokenNameBytes bytes.
inline constexpr std::size_t kMaxTokenNameBytes = 32;

struct AnswerRequest {
  std::string id;
  std::vector<std::string> responses;  // one per blank; an option id for a choice
  SelfScoreRequest self_score;
  bool answer_shown = false;  // the answer was on screen before this check (counts_as_success)
  // The chapter's numbers the question is about, as in ExercisesRequest (absent: the frozen fixture).
  std::optional<LessonState> state;
  std::optional<std::vector<std::string>> token_names;
  // An author's allowance of checks per question (absent or 0: unlimited), the ids that count (absent: every
  // question) and the checks already made of this one: a check of a question that counts past the allowance
  // is refused with kind "attempts" (learner/mastery.hpp attempts_allowed_for, check_allowed).
  std::optional<std::size_t> attempts_allowed, attempts_used;
  std::optional<std::vector<std::string>> graded;
};
struct AnswerResponse {
  bool ok = false;
  bool correct = false;  // the responses match the answer
  bool counts = false;   // and the check counts as a success: counts_as_success in learner/exercise.hpp
  std::vector<std::string> read;  // what was read from each response
  std::string hint;
  std::vector<std::string> answer;  // the right answer per blank
  std::string explanation;
  std::optional<ErrorView> error;  // kind "number" when a response could not be read
};
AnswerResponse check_answer(const AnswerRequest& request);

// ---- new numbers on demand (learner/variant.hpp) ----

struct VariantRequest {
  std::string seed;         // 0 to kMaxVariantSeed (2^53 - 1), as typed
  std::string attempt_key;  // or, instead of a seed, a graded attempt's key: its seed is attempt_seed(key)
};
struct VariantResponse {
  bool ok = false;
  std::uint64_t seed = 0;
  LessonState state;                     // loads like a `state=` link's; ask exercises_for() with it ...
  std::vector<std::string> token_names;  // ... and these words
  std::optional<ErrorView> error;
};
// A fresh, hand-computable instance of the chapter's numbers, the same for the same seed (or attempt key;
// a request with both, or with a key longer than kMaxAttemptKeyLength characters, is refused).
inline constexpr std::size_t kMaxAttemptKeyLength = 1000;
VariantResponse variant(const VariantRequest& request);

// ---- an author's own example (learner/example.hpp, docs/examples.md) ----

using ExampleRequest = ExampleFile;  // the file's JSON, parsed, is the request
struct ExampleResponse {
  bool ok = false;
  std::string title;
  LessonState state;                     // loads like a `state=` link's; ask exercises_for() with it ...
  std::vector<std::string> token_names;  // ... and these words
  std::optional<ErrorView> error;
};
// An author's example checked and made a state, or refused with its first problem.
ExampleResponse example(const ExampleRequest& request);

// ---- the lesson's outcome: what a course records (learner/mastery.hpp has the rules) ----

inline constexpr std::size_t kMaxOutcomeQuestions = 1024;  // the registry has 19
struct QuestionStandingView {
  bool checked = false, counts = false, revealed = false;
  std::optional<std::string> id;        // the exercise's id (needed for `graded`)
  std::optional<std::size_t> attempts;  // checks made (needed for `attempts`)
};
struct OutcomeRequest {
  std::vector<QuestionStandingView> questions;  // one per question shown
  std::optional<double> passing;                // the course's passing fraction; kDefaultPassingFraction
  // The author's options as written in the element's attributes, read here as answers are
  // (answer_reader.hpp):
  std::optional<std::string> passing_percent;  // the pass mark as a percent (0 to 100), not with `passing`
  std::optional<std::string> attempts;  // checks allowed per question, a whole number; absent or 0: unlimited
  std::optional<std::vector<std::string>> graded;  // the ids that count; absent: every question shown
};
// One question shown, as the results view shows it (learner/mastery.hpp QuestionResult).
struct QuestionResultView {
  std::string id;
  bool counted = false, right = false, settled = false, revealed = false, out_of_attempts = false;
  std::size_t attempts = 0;
  std::string standing, checks_note;  // the words for its result, and the note beside a form out of checks
};
struct OutcomeResponse {
  bool ok = false;
  std::size_t shown = 0, counted = 0, right = 0, settled = 0;
  double scaled = 0, percent = 0, passing = 0;
  double passing_percent = 0;  // 100 × passing, to two decimals, for the results view
  std::size_t attempts = 0;    // the allowance used (0: unlimited)
  bool completed = false, passed = false;
  std::vector<QuestionResultView> questions;
  std::optional<ErrorView> error;
};
OutcomeResponse lesson_outcome(const OutcomeRequest& request);

// The run of drawn problems right in a row (learner/practice_streak.hpp): the page keeps `run` and `checked`
// as the last response gave them and shows `text`.
struct PracticeStreakRequest {
  std::size_t run = 0;
  std::vector<std::string> checked;  // at most kMaxPracticeChecked seeds
  std::string seed;                  // the drawn problem just checked; empty: none (the text for `run` only)
  bool right = false;                // its check counts as a success
};
struct PracticeStreakResponse {
  bool ok = false;
  std::size_t run = 0;
  std::vector<std::string> checked;
  bool has_it = false;  // kPracticeStreakEnough or more in a row
  std::string text;     // what the page says of the run ("" for none)
  std::optional<ErrorView> error;
};
PracticeStreakResponse practice_streak(const PracticeStreakRequest& request);

// ---- for tests and the command line: numpy's generator, the chapter's report and trace ----

inline constexpr Extent kMaxRandnCount = 100000;  // draws handed out at once
struct RandnRequest {
  std::string seed = "0", count = "1";
};
struct RandnResponse {
  bool ok = false;
  std::vector<double> values;
  std::vector<std::string> text;  // %.17g, as numpy-style listings print
  std::optional<ErrorView> error;
};
RandnResponse randn(const RandnRequest& request);

struct TextResponse {
  bool ok = true;
  std::string text;
};
TextResponse report();
TextResponse trace();

// ---- projection evidence for any request (the command line's `evidence`, and the tests' module) ----

struct TensorData {
  Shape shape;
  std::vector<double> values;  // exact; JSON and JavaScript numbers round-trip them
};
struct GradcheckData {
  bool passed = false;
  std::size_t checks = 0;
  std::size_t unjudged = 0;  // probed where rounding in L could hide any error (not judged)
  double max_error = 0.0, tolerance = 0.0;
  // The largest allowance a judged number had: the tolerance plus the most that rounding in L can move its
  // numeric derivative (autograd/gradcheck.hpp). A number passes when its error is within its own allowance,
  // so a passing check's max_error is at most this, even where it is far above the tolerance.
  double max_allowance = 0.0;
  std::optional<std::string> problem;  // why it could not run, when it could not
};
// The next lesson's preview row (attention/value_preview.hpp), unrounded: what tests compare bit for bit.
struct PreviewData {
  std::size_t row = 0;
  std::vector<double> scores, scaled, weights, unscaled_weights, output;
  double scale = 0.0;  // √d_head
};
struct ProjectionResponse {
  bool ok = true;
  std::vector<std::string> parameter_names;
  std::size_t parameter_count = 0;
  TensorData query, key, value;
  std::optional<double> loss;  // with upstreams: backward and the gradcheck
  std::optional<TensorData> input_gradient, query_weight_gradient, key_weight_gradient, value_weight_gradient;
  std::optional<GradcheckData> gradcheck;
  std::optional<PreviewData> value_preview;  // query token 0 of batch item 0; none when an axis is empty
  std::optional<ErrorView> error;
};
ProjectionResponse projection_response(const ProjectionEvidence& evidence);

// Every tensor is required: an absent one is refused by name (optional only so that a reader can tell).
struct UpstreamData {
  std::optional<TensorData> query, key, value;
};
struct EvidenceRequest {
  std::optional<TensorData> input, query_weight, key_weight, value_weight;
  std::optional<UpstreamData> upstream;  // absent: forward only
};
// compute_projection_evidence for any request, as `qkv-lesson evidence` computes it.
ProjectionResponse evidence(const EvidenceRequest& request);

// ---- the field lists: one per type, used by both front ends (QKV_DESCRIBE: response/describe.hpp) ----
// A front end's converter walks these lists (is_vector: response/response.hpp).
// A writer visits v(name, member) to convert each field out; a reader visits the same list over an object
// it owns (not const) and fills each member, so a request's fields are listed once as well.
// clang-format off
QKV_DESCRIBE(TensorView) {
  QKV_FIELD(shape); QKV_FIELD(shape_text); QKV_FIELD(values); QKV_FIELD(text);
}
QKV_DESCRIBE(NumberView) { QKV_FIELD(value); QKV_FIELD(text); }
QKV_DESCRIBE(RoundedView) { QKV_FIELD(values); QKV_FIELD(text); QKV_FIELD(rounded); }
QKV_DESCRIBE(ShapeProbeView) { QKV_FIELD(input); QKV_FIELD(query); QKV_FIELD(key); QKV_FIELD(value); }
QKV_DESCRIBE(RejectionView) { QKV_FIELD(message); QKV_FIELD(expected_variant); }
QKV_DESCRIBE(GradcheckView) {
  QKV_FIELD(passed); QKV_FIELD(checks); QKV_FIELD(input_checks); QKV_FIELD(query_checks); QKV_FIELD(key_checks);
  QKV_FIELD(value_checks); QKV_FIELD(max_error); QKV_FIELD(tolerance); QKV_FIELD(step); QKV_FIELD(problem);
  QKV_FIELD(rounding_bound); QKV_FIELD(unjudged);
  QKV_FIELD(max_allowance); QKV_FIELD(verdict);
}
QKV_DESCRIBE(GradcheckRules) { QKV_FIELD(step_rule); QKV_FIELD(pass_rule); }
QKV_DESCRIBE(BitwiseChecks) {
  QKV_FIELD(query_changed); QKV_FIELD(key_unchanged); QKV_FIELD(value_unchanged); QKV_FIELD(key_upstream_empty);
  QKV_FIELD(key_gradient_changed);
  QKV_FIELD(query_gradient_unchanged); QKV_FIELD(value_gradient_unchanged); QKV_FIELD(input_gradient_changed);
  QKV_FIELD(replay_bitwise);
}
QKV_DESCRIBE(ValuePreviewView) {
  QKV_FIELD(row); QKV_FIELD(scores); QKV_FIELD(scaled); QKV_FIELD(weights); QKV_FIELD(unscaled_weights);
  QKV_FIELD(output); QKV_FIELD(scale); QKV_FIELD(mixture_text);
}
QKV_DESCRIBE(EvidenceView) {
  QKV_FIELD(input); QKV_FIELD(query_weight); QKV_FIELD(key_weight); QKV_FIELD(value_weight);
  QKV_FIELD(query_upstream); QKV_FIELD(key_upstream); QKV_FIELD(value_upstream);
  QKV_FIELD(query); QKV_FIELD(key); QKV_FIELD(value); QKV_FIELD(scores); QKV_FIELD(score_heat);
  QKV_FIELD(value_preview);
  QKV_FIELD(own_token_peaks);
  QKV_FIELD(token_names);
  QKV_FIELD(input_gradient); QKV_FIELD(query_weight_gradient); QKV_FIELD(key_weight_gradient);
  QKV_FIELD(value_weight_gradient); QKV_FIELD(loss); QKV_FIELD(parameter_names); QKV_FIELD(parameter_count);
  QKV_FIELD(model_width); QKV_FIELD(head_width); QKV_FIELD(gradcheck);
  QKV_FIELD(batch_probe); QKV_FIELD(empty_batch_probe); QKV_FIELD(empty_token_probe);
  QKV_FIELD(rank_rejection); QKV_FIELD(width_rejection); QKV_FIELD(model_mismatch_rejection);
  QKV_FIELD(head_mismatch_rejection); QKV_FIELD(duplicate_name_rejection);
  QKV_FIELD(initialization_seed); QKV_FIELD(initialization_reproducible); QKV_FIELD(initialization_independent);
  QKV_FIELD(initialization_transactional); QKV_FIELD(initialization_state_after);
  QKV_FIELD(bitwise);
}
QKV_DESCRIBE(SizeLimitView) { QKV_FIELD(field); QKV_FIELD(min); QKV_FIELD(max); }
QKV_DESCRIBE(EditableCells) { QKV_FIELD(shape); QKV_FIELD(cells); }
QKV_DESCRIBE(EditableTensor) { QKV_FIELD(shape); QKV_FIELD(cells); QKV_FIELD(kept); }
QKV_DESCRIBE(LessonState) {
  QKV_FIELD(batch); QKV_FIELD(tokens); QKV_FIELD(model_width); QKV_FIELD(head_width);
  QKV_FIELD(input); QKV_FIELD(query_weight); QKV_FIELD(key_weight); QKV_FIELD(value_weight);
  QKV_FIELD(query_upstream); QKV_FIELD(key_upstream); QKV_FIELD(value_upstream);
}
QKV_DESCRIBE(ExperimentFacts) {
  QKV_FIELD(seed); QKV_FIELD(tokens); QKV_FIELD(dim); QKV_FIELD(none_argmax); QKV_FIELD(none_guaranteed_rows);
  QKV_FIELD(tied_argmax); QKV_FIELD(tied_guaranteed_rows);
}
QKV_DESCRIBE(SelfScoreRequest) {
  QKV_FIELD(seed); QKV_FIELD(tokens); QKV_FIELD(dim); QKV_FIELD(experiment);
}
QKV_DESCRIBE(ProvenanceRequest) { QKV_FIELD(state); QKV_FIELD(tensor); QKV_FIELD(index); }
QKV_DESCRIBE(SourceCells) { QKV_FIELD(tensor); QKV_FIELD(indices); }
QKV_DESCRIBE(ProvenanceResponse) {
  QKV_FIELD(ok); QKV_FIELD(target); QKV_FIELD(sources); QKV_FIELD(expression); QKV_FIELD(description); QKV_FIELD(error);
}
QKV_DESCRIBE(SeedSearchRequest) {
  QKV_FIELD(kind); QKV_FIELD(after); QKV_FIELD(count); QKV_FIELD(tokens); QKV_FIELD(dim); QKV_FIELD(start);
}
QKV_DESCRIBE(AnswerRequest) {
  QKV_FIELD(id); QKV_FIELD(responses); QKV_FIELD(self_score); QKV_FIELD(answer_shown); QKV_FIELD(state);
  QKV_FIELD(token_names); QKV_FIELD(attempts_allowed); QKV_FIELD(attempts_used); QKV_FIELD(graded);
}
QKV_DESCRIBE(FixtureResponse) {
  QKV_FIELD(ok); QKV_FIELD(state); QKV_FIELD(size_limits); QKV_FIELD(evidence); QKV_FIELD(gradcheck_rules);
}
QKV_DESCRIBE(ChecksResponse) {
  QKV_FIELD(ok); QKV_FIELD(done); QKV_FIELD(gradcheck); QKV_FIELD(bitwise); QKV_FIELD(error);
}
QKV_DESCRIBE(EvaluateRequest) { QKV_FIELD(state); QKV_FIELD(token_names); }
QKV_DESCRIBE(LessonResponse) {
  QKV_FIELD(ok); QKV_FIELD(state); QKV_FIELD(evidence); QKV_FIELD(error); QKV_FIELD(notes);
}
QKV_DESCRIBE(ScoreSummaryView) {
  QKV_FIELD(scores); QKV_FIELD(argmax); QKV_FIELD(diagonal_rows); QKV_FIELD(guaranteed_rows);
}
QKV_DESCRIBE(SelfScoreView) {
  QKV_FIELD(seed); QKV_FIELD(tokens); QKV_FIELD(dim); QKV_FIELD(x); QKV_FIELD(wq); QKV_FIELD(wk); QKV_FIELD(norms);
  QKV_FIELD(projected_norms); QKV_FIELD(none); QKV_FIELD(separate); QKV_FIELD(tied);
}
QKV_DESCRIBE(SelfScoreResponse) { QKV_FIELD(ok); QKV_FIELD(result); QKV_FIELD(error); }
QKV_DESCRIBE(OffDiagonalRowView) { QKV_FIELD(row); QKV_FIELD(argmax); QKV_FIELD(own); QKV_FIELD(peak); }
QKV_DESCRIBE(KindSummaryView) {
  QKV_FIELD(scores); QKV_FIELD(argmax); QKV_FIELD(diagonal_count); QKV_FIELD(diagonal_rows);
  QKV_FIELD(diagonal_rows_text); QKV_FIELD(off_diagonal_count); QKV_FIELD(off_diagonal); QKV_FIELD(guaranteed_rows);
  QKV_FIELD(guaranteed_rows_text); QKV_FIELD(heat);
}
QKV_DESCRIBE(SelfScoreSummaryView) {
  QKV_FIELD(seed); QKV_FIELD(tokens); QKV_FIELD(dim); QKV_FIELD(complete); QKV_FIELD(shown); QKV_FIELD(norms);
  QKV_FIELD(projected_norms); QKV_FIELD(none); QKV_FIELD(separate); QKV_FIELD(tied); QKV_FIELD(facts);
}
QKV_DESCRIBE(SelfScoreSummaryResponse) { QKV_FIELD(ok); QKV_FIELD(result); QKV_FIELD(error); }
QKV_DESCRIBE(SeedSearchResponse) {
  QKV_FIELD(ok); QKV_FIELD(found); QKV_FIELD(seed); QKV_FIELD(row); QKV_FIELD(argmax); QKV_FIELD(error);
}
QKV_DESCRIBE(ExerciseView) {
  QKV_FIELD(id); QKV_FIELD(kind); QKV_FIELD(blanks); QKV_FIELD(choices); QKV_FIELD(answer); QKV_FIELD(explanation);
  QKV_FIELD(question); QKV_FIELD(choice_texts); QKV_FIELD(blank_labels); QKV_FIELD(not_graded);
}
QKV_DESCRIBE(ExercisesRequest) { QKV_FIELD(self_score); QKV_FIELD(state); QKV_FIELD(token_names); }
QKV_DESCRIBE(VariantRequest) { QKV_FIELD(seed); QKV_FIELD(attempt_key); }
QKV_DESCRIBE(VariantResponse) {
  QKV_FIELD(ok); QKV_FIELD(seed); QKV_FIELD(state); QKV_FIELD(token_names); QKV_FIELD(error);
}
// A misspelt field in an author's file is refused, not left out.
inline constexpr bool refuses_unknown_fields(UnknownFields, const ExampleFile*) { return true; }
QKV_DESCRIBE(ExampleFile) {
  QKV_FIELD(title); QKV_FIELD(tokens); QKV_FIELD(X); QKV_FIELD(W_Q); QKV_FIELD(W_K); QKV_FIELD(W_V);
  QKV_FIELD(U_Q); QKV_FIELD(U_K); QKV_FIELD(U_V);
}
QKV_DESCRIBE(ExampleResponse) {
  QKV_FIELD(ok); QKV_FIELD(title); QKV_FIELD(state); QKV_FIELD(token_names); QKV_FIELD(error);
}
QKV_DESCRIBE(ExercisesResponse) { QKV_FIELD(ok); QKV_FIELD(exercises); QKV_FIELD(error); }
QKV_DESCRIBE(AnswerResponse) {
  QKV_FIELD(ok); QKV_FIELD(correct); QKV_FIELD(counts); QKV_FIELD(read); QKV_FIELD(hint); QKV_FIELD(answer); QKV_FIELD(explanation);
  QKV_FIELD(error);
}
QKV_DESCRIBE(QuestionStandingView) {
  QKV_FIELD(checked); QKV_FIELD(counts); QKV_FIELD(revealed); QKV_FIELD(id); QKV_FIELD(attempts);
}
QKV_DESCRIBE(OutcomeRequest) {
  QKV_FIELD(questions); QKV_FIELD(passing); QKV_FIELD(passing_percent); QKV_FIELD(attempts); QKV_FIELD(graded);
}
QKV_DESCRIBE(QuestionResultView) {
  QKV_FIELD(id); QKV_FIELD(counted); QKV_FIELD(right); QKV_FIELD(settled); QKV_FIELD(revealed);
  QKV_FIELD(out_of_attempts); QKV_FIELD(attempts); QKV_FIELD(standing); QKV_FIELD(checks_note);
}
QKV_DESCRIBE(PracticeStreakRequest) { QKV_FIELD(run); QKV_FIELD(checked); QKV_FIELD(seed); QKV_FIELD(right); }
QKV_DESCRIBE(PracticeStreakResponse) {
  QKV_FIELD(ok); QKV_FIELD(run); QKV_FIELD(checked); QKV_FIELD(has_it); QKV_FIELD(text); QKV_FIELD(error);
}
QKV_DESCRIBE(OutcomeResponse) {
  QKV_FIELD(ok); QKV_FIELD(shown); QKV_FIELD(counted); QKV_FIELD(right); QKV_FIELD(settled); QKV_FIELD(scaled);
  QKV_FIELD(percent); QKV_FIELD(passing); QKV_FIELD(passing_percent); QKV_FIELD(attempts); QKV_FIELD(completed);
  QKV_FIELD(passed); QKV_FIELD(questions); QKV_FIELD(error);
}
QKV_DESCRIBE(RandnRequest) { QKV_FIELD(seed); QKV_FIELD(count); }
QKV_DESCRIBE(RandnResponse) { QKV_FIELD(ok); QKV_FIELD(values); QKV_FIELD(text); QKV_FIELD(error); }
QKV_DESCRIBE(TextResponse) { QKV_FIELD(ok); QKV_FIELD(text); }
QKV_DESCRIBE(TensorData) { QKV_FIELD(shape); QKV_FIELD(values); }
QKV_DESCRIBE(GradcheckData) {
  QKV_FIELD(passed); QKV_FIELD(checks); QKV_FIELD(unjudged); QKV_FIELD(max_error); QKV_FIELD(tolerance);
  QKV_FIELD(max_allowance); QKV_FIELD(problem);
}
QKV_DESCRIBE(PreviewData) {
  QKV_FIELD(row); QKV_FIELD(scores); QKV_FIELD(scaled); QKV_FIELD(weights); QKV_FIELD(unscaled_weights);
  QKV_FIELD(output); QKV_FIELD(scale);
}
QKV_DESCRIBE(ProjectionResponse) {
  QKV_FIELD(ok); QKV_FIELD(parameter_names); QKV_FIELD(parameter_count); QKV_FIELD(query); QKV_FIELD(key); QKV_FIELD(value);
  QKV_FIELD(loss); QKV_FIELD(input_gradient); QKV_FIELD(query_weight_gradient); QKV_FIELD(key_weight_gradient);
  QKV_FIELD(value_weight_gradient); QKV_FIELD(gradcheck); QKV_FIELD(value_preview); QKV_FIELD(error);
}
QKV_DESCRIBE(UpstreamData) { QKV_FIELD(query); QKV_FIELD(key); QKV_FIELD(value); }
QKV_DESCRIBE(EvidenceRequest) {
  QKV_FIELD(input); QKV_FIELD(query_weight); QKV_FIELD(key_weight); QKV_FIELD(value_weight); QKV_FIELD(upstream);
}
// clang-format on

}  // namespace qkv::api
