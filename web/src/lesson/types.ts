// The core's types (core-api.ts: generated from the C++ field lists) and the page's names for their keys.
export type {
  AnswerResponse,
  ErrorView as CoreError,
  EvidenceView as Evidence,
  EditableTensor,
  ExerciseView,
  LessonResponse,
  LessonState,
  ProvenanceResponse,
  QkvCore,
  SelfScoreRequest,
  SizeLimitView,
  TensorView as TensorEvidence,
} from './core-api';

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

// The computed tensors whose cells explain themselves (their provenance).
export const computedKeys = [
  'query',
  'key',
  'value',
  'scores',
  'input_gradient',
  'query_weight_gradient',
  'key_weight_gradient',
  'value_weight_gradient',
] as const;
export type ComputedKey = (typeof computedKeys)[number];

// Every tensor the diagram shows: the ones the learner edits and the ones the core computes.
export const tensorKeys = [...editableKeys, ...computedKeys] as const;
export type TensorKey = (typeof tensorKeys)[number];
