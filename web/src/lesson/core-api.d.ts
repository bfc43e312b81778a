// The WebAssembly core's calls and their request and response objects, field for field as
// cpp/api/lesson_api.hpp lists them (one key casing: the C++ names). Every number the page shows arrives
// already formatted by C++ (`text`, `rounded`, `shape_text`); `values` are kept for tests that compare bits.

export interface TensorView {
  shape: number[];
  shape_text: string;
  values: number[];
  text: string[];
}
export interface NumberView {
  value: number;
  text: string;
}
export interface RoundedView {
  values: number[];
  text: string[];
  rounded: string[];
}
export interface ErrorView {
  kind: string;
  message: string;
  field: string;
  index: number;
  sentence: string;
}

export interface ShapeProbeView {
  input: string;
  query: string;
  key: string;
  value: string;
}
export interface RejectionView {
  message: string;
  expected_variant: boolean;
}
// The bitwise checks of one computation (chapter26.hpp).
export interface BitwiseChecks {
  // W_Q[0,0] + 1 with everything else the same: did Q change, and are K and V bit for bit the same?
  query_changed: boolean;
  key_unchanged: boolean;
  value_unchanged: boolean;
  key_upstream_empty: boolean; // U_K has no cell to change (an empty axis): the four below are all false
  // U_K[0] + 1, backward run again: which gradients changed bit for bit
  key_gradient_changed: boolean;
  query_gradient_unchanged: boolean;
  value_gradient_unchanged: boolean;
  input_gradient_changed: boolean;
  replay_bitwise: boolean; // the computation run twice, the same bits both times
}
// The gradcheck's rules, the same for every state: the page shows them while the check is still to come.
export interface GradcheckRules {
  step_rule: string;
  pass_rule: string;
}
export interface GradcheckView {
  passed: boolean;
  checks: number;
  input_checks: number;
  query_checks: number;
  key_checks: number;
  value_checks: number;
  max_error: NumberView; // text: 3 significant digits (fixture: "4.36e-10"); value exact
  tolerance: NumberView;
  step: NumberView;
  problem: string;
  rounding_bound: NumberView; // ε: how far rounding can move L at these numbers (text: 3 significant digits)
  unjudged: number; // numbers probed where rounding in L could hide any error: neither passed nor failed
  max_allowance: NumberView; // the largest τ + r a judged number was held to
  verdict: string; // the outcome in the core's words: agree, do not agree, or cannot be checked at this scale
}
// The next lesson's preview for query token 0 of batch item 0 (cpp/attention/value_preview.hpp).
export interface ValuePreviewView {
  row: number;
  scores: RoundedView; // [T]: q_row · k_j
  scaled: RoundedView; // [T]: the scores / √d_head
  weights: RoundedView; // [T]: softmax of the scaled scores
  unscaled_weights: RoundedView; // [T]: softmax of the raw scores, for comparison
  output: RoundedView; // [d_head]: Σ_j weights_j · v_j
  scale: NumberView; // √d_head
}
export interface EvidenceView {
  input: TensorView;
  query_weight: TensorView;
  key_weight: TensorView;
  value_weight: TensorView;
  query_upstream: TensorView;
  key_upstream: TensorView;
  value_upstream: TensorView;
  query: TensorView;
  key: TensorView;
  value: TensorView;
  scores: TensorView; // [B, T, T]: scores[b,i,j] = q_{b,i}·k_{b,j}, raw dot products (not scaled, no softmax)
  score_heat: number[]; // per score, −4 … 4, as the self-score heatmaps colour theirs (relative to the largest |score| of the tensor)
  value_preview?: ValuePreviewView; // absent when an axis is empty
  token_names: string[]; // [T]: "fresh", "bread", then "token 2", "token 3", ...
  input_gradient: TensorView;
  query_weight_gradient: TensorView;
  key_weight_gradient: TensorView;
  value_weight_gradient: TensorView;
  loss: NumberView;
  parameter_names: string[];
  parameter_count: number;
  model_width: number;
  head_width: number;
  gradcheck?: GradcheckView; // absent from fixture() and evaluate(): numericalChecksStep() gives it
  batch_probe: ShapeProbeView;
  empty_batch_probe: ShapeProbeView;
  empty_token_probe: ShapeProbeView;
  rank_rejection: RejectionView;
  width_rejection: RejectionView;
  model_mismatch_rejection: RejectionView;
  head_mismatch_rejection: RejectionView;
  duplicate_name_rejection: RejectionView;
  initialization_seed: number;
  initialization_reproducible: boolean;
  initialization_independent: boolean;
  initialization_transactional: boolean;
  initialization_state_after: string;
  bitwise?: BitwiseChecks; // not in fixture() and evaluate(): the page asks numericalChecksStep()
}

export interface EditableCells {
  shape: number[];
  cells: string[];
}
export interface EditableTensor extends EditableCells {
  kept?: EditableCells; // cells typed at larger sizes; the core fills and reads it
}
export interface LessonState {
  batch: string;
  tokens: string;
  model_width: string;
  head_width: string;
  input: EditableTensor;
  query_weight: EditableTensor;
  key_weight: EditableTensor;
  value_weight: EditableTensor;
  query_upstream: EditableTensor;
  key_upstream: EditableTensor;
  value_upstream: EditableTensor;
}
export interface SizeLimitView {
  field: string;
  min: number;
  max: number;
}

export type Failure = { ok: false; error: ErrorView };

// evidence: what evaluate(state) gives for the fixture, computed once in the core.
export type FixtureResponse = { ok: true; state: LessonState; size_limits: SizeLimitView[]; evidence: EvidenceView; gradcheck_rules: GradcheckRules } | Failure;
// The gradcheck of a state's numbers, asked once they are on screen (the core keeps the evaluation's request).
// numericalChecksStep: a step with more to come (done false), or the last, with the checks.
export type ChecksResponse = { ok: true; done: false } | { ok: true; done: true; gradcheck: GradcheckView; bitwise: BitwiseChecks } | Failure;
export type LessonResponse =
  | { ok: true; state: LessonState; evidence: EvidenceView; notes: string[] }
  | { ok: false; state: LessonState; error: ErrorView; notes: string[] }
  | Failure;

export interface SelfScoreRequest {
  seed: string;
  tokens: string;
  dim: string;
}
// The settings with the facts selfScoreSummary gave for them: exercises() and checkAnswer() then grade from
// the facts instead of recomputing the experiment (C++'s optional SelfScoreRequest::experiment).
export interface SelfScoreRequestWithFacts extends SelfScoreRequest {
  experiment?: ExperimentFacts;
}
// What the self-score exercises read of an experiment; the page hands it back unread.
export interface ExperimentFacts {
  seed: number;
  tokens: number;
  dim: number;
  none_argmax: number[];
  none_guaranteed_rows: number[];
  tied_argmax: number[];
  tied_guaranteed_rows: number[];
}
// The worker's summary: its doubles arrive as Float64Arrays (transferred from the worker).
export interface ShownNumbers {
  values: Float64Array;
  text: string[];
  rounded: string[];
}
export interface OffDiagonalRowView {
  row: number;
  argmax: number;
  own: string; // the row's own score, two decimals
  peak: string; // its maximum, two decimals
}
export interface KindSummaryView {
  scores: ShownNumbers; // shown × shown, the top-left corner, row-major
  argmax: number[]; // every row
  diagonal_count: number;
  diagonal_rows: number[];
  diagonal_rows_text: string; // in words: "rows 0, 1 and 2", "row 0", "none"
  off_diagonal_count: number;
  off_diagonal: OffDiagonalRowView[]; // the first few
  guaranteed_rows: number[];
  guaranteed_rows_text: string;
  heat: number[]; // per shown score, −4 … 4: round(4 · score / the largest |score| shown)
}
export interface SelfScoreSummaryView {
  seed: number;
  tokens: number;
  dim: number;
  complete: boolean; // every score is shown (at most 16 tokens)
  shown: number; // rows and columns shown
  norms: ShownNumbers; // the first `shown`
  projected_norms: ShownNumbers;
  none: KindSummaryView;
  separate: KindSummaryView;
  tied: KindSummaryView;
  facts: ExperimentFacts;
}
export type SelfScoreSummaryResponse = { ok: true; result: SelfScoreSummaryView } | Failure;

export interface SeedSearchRequest extends Omit<SelfScoreRequest, 'seed'> {
  kind: 'none' | 'tied';
  after: string; // the current seed: the search starts at the next one; '' starts at seed 0
  count: string;
  start?: string; // the first seed tried, instead of after (the command line's --start; the page never sends it)
}
export type SeedSearchResponse = { ok: true; found: boolean; seed: number; row: number; argmax: number } | Failure;

export interface ExerciseView {
  id: string;
  kind: 'choice' | 'count' | 'shape' | 'vector';
  blanks: number;
  choices: string[];
  answer: string[];
  explanation: string;
}
export type ExercisesResponse = { ok: true; exercises: ExerciseView[] } | Failure;

export interface AnswerRequest {
  id: string;
  responses: string[];
  self_score: SelfScoreRequest;
  answer_shown?: boolean; // the answer was on screen before this check: then it never counts
}
export type AnswerResponse =
  | { ok: true; correct: boolean; counts: boolean; read: string[]; hint: string; answer: string[]; explanation: string }
  | Failure;

// What a course records of the whole lesson (cpp/learner/mastery.hpp has the rules).
export interface QuestionStandingView {
  checked: boolean;
  counts: boolean;
  revealed: boolean;
}
export interface OutcomeRequest {
  questions: QuestionStandingView[]; // one per question shown
  passing?: number; // the course's passing fraction, 0.8 without it
}
export type OutcomeResponse =
  | { ok: true; shown: number; right: number; settled: number; scaled: number; percent: number; passing: number; completed: boolean; passed: boolean }
  | Failure;

// Where one computed cell comes from (cpp/learner/provenance.hpp): its source cells and the sum written out.
export interface ProvenanceRequest {
  state: LessonState;
  tensor: string; // query, key, value, scores, input_gradient, query_weight_gradient, key_weight_gradient, value_weight_gradient
  index: number; // row-major
}
export interface SourceCells {
  tensor: string;
  indices: number[];
}
export type ProvenanceResponse =
  | { ok: true; target: string; sources: SourceCells[]; expression: string; description: string }
  | Failure;

// The page's module's calls (the tests' module adds selfScore, findSeed, report, trace, evidence and bench;
// the Node tests call those).
export interface QkvCore {
  fixture(): FixtureResponse;
  evaluate(state: LessonState): LessonResponse;
  numericalChecksStep(state: LessonState): ChecksResponse;
  exercises(request: SelfScoreRequest): ExercisesResponse;
  checkAnswer(request: AnswerRequest): AnswerResponse;
  lessonOutcome(request: OutcomeRequest): OutcomeResponse;
  // The worker's calls: the experiment as the page shows it, and a search that reports seeds tried.
  selfScoreSummary(request: SelfScoreRequest): SelfScoreSummaryResponse;
  findSeedWithProgress(request: SeedSearchRequest, onProgress: (tried: number) => void): SeedSearchResponse;
  provenance(request: ProvenanceRequest): ProvenanceResponse;
}
