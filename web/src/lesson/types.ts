// The shapes of what the WebAssembly core returns (cpp/wasm/bindings.cpp). Every number the page shows
// arrives here already formatted by C++ (`text`); `values` are kept for tests that compare bits.

export interface TensorEvidence {
  shape: number[];
  shapeText: string;
  values: number[];
  text: string[];
}

export interface NumberEvidence {
  value: number;
  text: string;
}

export const tensorKeys = [
  'input',
  'query_weight',
  'key_weight',
  'value_weight',
  'query',
  'key',
  'value',
  'input_gradient',
  'query_weight_gradient',
  'key_weight_gradient',
  'value_weight_gradient',
  'query_upstream',
  'key_upstream',
  'value_upstream',
] as const;
export type TensorKey = (typeof tensorKeys)[number];

export interface ShapeProbe {
  input: string;
  query: string;
  key: string;
  value: string;
}

export interface Rejection {
  message: string;
  expectedVariant: boolean;
}

export interface Evidence {
  tensors: Record<TensorKey, TensorEvidence>;
  loss: NumberEvidence;
  parameterNames: string[];
  parameterCount: number;
  modelWidth: number;
  headWidth: number;
  gradcheck: {
    passed: boolean;
    checks: number;
    inputChecks: number;
    queryChecks: number;
    keyChecks: number;
    valueChecks: number;
    maxError: NumberEvidence;
    tolerance: NumberEvidence;
    step: NumberEvidence;
    problem: string;
  };
  probes: { batch: ShapeProbe; emptyBatch: ShapeProbe; emptyToken: ShapeProbe };
  rejections: Record<'rank' | 'width' | 'modelMismatch' | 'headMismatch' | 'duplicateName', Rejection>;
  initialization: { seed: number; reproducible: boolean; independent: boolean; transactional: boolean; stateAfter: string };
  history: { earlierLeft: string; earlierRight: string; transformerSource: string; mapping: string };
  independence: { queryChanged: boolean; keyUnchanged: boolean; valueUnchanged: boolean };
  replayBitwise: boolean;
}

export interface EditableTensor {
  shape: number[];
  cells: string[];
}

export const sizeFields = ['batch', 'tokens', 'model_width', 'head_width'] as const;
export type SizeField = (typeof sizeFields)[number];
export const editableKeys = [
  'input',
  'query_weight',
  'key_weight',
  'value_weight',
  'query_upstream',
  'key_upstream',
  'value_upstream',
] as const;
export type EditableKey = (typeof editableKeys)[number];

export type LessonState = Record<SizeField, string> & Record<EditableKey, EditableTensor>;

export interface CoreError {
  kind: string;
  message: string;
  field?: string;
  index?: number;
}

export type Evaluation =
  | { ok: true; state: LessonState; evidence: Evidence }
  | { ok: false; state: LessonState; error: CoreError };

export type ExerciseCheck =
  | { ok: true; correct: boolean; expected: string; problem: string }
  | { ok: false; error: CoreError };

export interface QkvCore {
  fixtureState(): { ok: true; state: LessonState; maxExtent: number } | { ok: false; error: CoreError };
  evaluateLesson(state: LessonState): Evaluation;
  checkExercise(id: string, responses: string[]): ExerciseCheck;
  exerciseIds(): string[];
  report(): { ok: true; text: string } | { ok: false; error: CoreError };
  trace(): { ok: true; text: string } | { ok: false; error: CoreError };
}

export interface FlatNumbers {
  values: number[];
  text: string[];
}

export interface RoundedNumbers extends FlatNumbers {
  rounded: string[]; // two decimals, formatted by C++
}

export interface ScoreSummary {
  scores: RoundedNumbers; // n × n, row-major
  argmax: number[];
  diagonalRows: number[];
  guaranteedRows: number[];
}

export interface SelfBiasResult {
  seed: number;
  tokens: number;
  dim: number;
  x: FlatNumbers;
  wq: FlatNumbers;
  wk: FlatNumbers;
  norms: RoundedNumbers;
  projectedNorms: RoundedNumbers;
  none: ScoreSummary;
  separate: ScoreSummary;
  tied: ScoreSummary;
}

export interface SelfBiasCore {
  selfBias(seed: number, tokens: number, dim: number): { ok: true; result: SelfBiasResult } | { ok: false; error: CoreError };
  findOffDiagonalSeed(
    kind: 'none' | 'tied',
    start: number,
    count: number,
    tokens: number,
    dim: number,
  ): { ok: true; found: boolean; seed: number | null; row: number | null; argmax: number | null } | { ok: false; error: CoreError };
}
