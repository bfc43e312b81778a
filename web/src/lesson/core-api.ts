// The page's WebAssembly module: its calls (EMSCRIPTEN_BINDINGS in cpp/wasm/bindings.cpp), typed with the core's
// request and response types, which scripts/generate-core-types.mjs writes from the C++ field lists into
// core-types.d.ts at build time (never by hand). The tests' module adds selfScore, findSeed, report, trace,
// evidence and bench; the Node tests call those untyped.
import type {
  AnswerRequest,
  AnswerResponse,
  ChecksResponse,
  EvaluateRequest,
  ExampleFile,
  ExampleResponse,
  ExercisesRequest,
  ExercisesResponse,
  FixtureResponse,
  LessonResponse,
  LessonState,
  OutcomeRequest,
  OutcomeResponse,
  PracticeStreakRequest,
  PracticeStreakResponse,
  ProvenanceRequest,
  ProvenanceResponse,
  SeedSearchRequest,
  SeedSearchResponse,
  SelfScoreRequest,
  SelfScoreSummaryResponse,
  VariantRequest,
  VariantResponse,
} from './core-types';

export type * from './core-types';

/** What a call reads: a member left out, at any depth, keeps its C++ default (the readers: cpp/response/fields.hpp). */
export type Request<T> = T extends readonly (infer Item)[] ? Request<Item>[] : T extends object ? { [K in keyof T]?: Request<T[K]> } : T;

export interface QkvCore {
  fixture(): FixtureResponse;
  // The numbers, and a drawn problem's or an example's words for their tokens (the evidence names the tokens with them).
  evaluate(request: Request<EvaluateRequest>): LessonResponse;
  numericalChecksStep(state: Request<LessonState>): ChecksResponse;
  exercises(request: Request<SelfScoreRequest>): ExercisesResponse;
  // The registry for the chapter's numbers on screen (a state, a drawn problem's words), as well as the experiment.
  exercisesFor(request: Request<ExercisesRequest>): ExercisesResponse;
  // A drawn problem: hand-computable numbers and its tokens' words, the same for the same seed.
  variant(request: Request<VariantRequest>): VariantResponse;
  // An author's example file (docs/examples.md), checked: its state and its tokens' words.
  example(request: Request<ExampleFile>): ExampleResponse;
  checkAnswer(request: Request<AnswerRequest>): AnswerResponse;
  lessonOutcome(request: Request<OutcomeRequest>): OutcomeResponse;
  // The run of drawn problems right in a row after a check (learner/practice_streak.hpp): the page keeps run and checked.
  practiceStreak(request: Request<PracticeStreakRequest>): PracticeStreakResponse;
  // The worker's calls: the experiment as the page shows it (its doubles as Float64Arrays, which the worker
  // transfers), and a search that reports the seeds tried.
  selfScoreSummary(request: Request<SelfScoreRequest>): SelfScoreSummaryResponse<Float64Array>;
  findSeedWithProgress(request: Request<SeedSearchRequest>, onProgress: (tried: number) => void): SeedSearchResponse;
  provenance(request: Request<ProvenanceRequest>): ProvenanceResponse;
}
