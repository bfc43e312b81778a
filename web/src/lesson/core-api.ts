// The page's WebAssembly module: its calls (EMSCRIPTEN_BINDINGS in cpp/wasm/bindings.cpp), typed with the core's
// request and response types, which scripts/generate-core-types.mjs writes from the C++ field lists into
// core-types.d.ts at build time (never by hand). The tests' module adds selfScore, findSeed, report, trace,
// evidence and bench; the Node tests call those untyped.
import type {
  AnswerRequest,
  AnswerResponse,
  ChecksResponse,
  ExercisesResponse,
  FixtureResponse,
  LessonResponse,
  LessonState,
  OutcomeRequest,
  OutcomeResponse,
  ProvenanceRequest,
  ProvenanceResponse,
  SeedSearchRequest,
  SeedSearchResponse,
  SelfScoreRequest,
  SelfScoreSummaryResponse,
} from './core-types';

export type * from './core-types';

// Each request is Partial: a member left out keeps its C++ default (the readers: cpp/response/fields.hpp).
export interface QkvCore {
  fixture(): FixtureResponse;
  evaluate(state: Partial<LessonState>): LessonResponse;
  numericalChecksStep(state: Partial<LessonState>): ChecksResponse;
  exercises(request: Partial<SelfScoreRequest>): ExercisesResponse;
  checkAnswer(request: Partial<AnswerRequest>): AnswerResponse;
  lessonOutcome(request: Partial<OutcomeRequest>): OutcomeResponse;
  // The worker's calls: the experiment as the page shows it (its doubles as Float64Arrays, which the worker
  // transfers), and a search that reports the seeds tried.
  selfScoreSummary(request: Partial<SelfScoreRequest>): SelfScoreSummaryResponse<Float64Array>;
  findSeedWithProgress(request: Partial<SeedSearchRequest>, onProgress: (tried: number) => void): SeedSearchResponse;
  provenance(request: Partial<ProvenanceRequest>): ProvenanceResponse;
}
