// The lesson's state in a link: sizes and every cell as typed (valid decimals never contain commas).
import { editableKeys, sizeFields, type EditableKey, type LessonState, type SelfScoreRequest, type SizeField } from './types';

const sizeParams: Record<SizeField, string> = { batch: 'b', tokens: 't', model_width: 'd', head_width: 'h' };
const tensorParams: Record<EditableKey, string> = {
  input: 'x',
  query_weight: 'wq',
  key_weight: 'wk',
  value_weight: 'wv',
  query_upstream: 'uq',
  key_upstream: 'uk',
  value_upstream: 'uv',
};

// The self-score experiment's settings ride along: a copied link reopens the same seed.
const selfScoreParams: Record<keyof SelfScoreRequest, string> = { seed: 'sseed', tokens: 'sn', dim: 'sd' };

export function stateToSearch(state: LessonState, selfScore?: SelfScoreRequest): string {
  const params = new URLSearchParams();
  if (selfScore) for (const key of Object.keys(selfScoreParams) as (keyof SelfScoreRequest)[]) params.set(selfScoreParams[key], selfScore[key]);
  for (const field of sizeFields) params.set(sizeParams[field], state[field]);
  for (const key of editableKeys) params.set(tensorParams[key], state[key].cells.join(','));
  return params.toString();
}

// The page's own query with the lesson's parameters replaced by `lesson` (stateToSearch's output): a host
// page's parameters (a course's ?unit=3) stay where they were, the lesson's follow them.
export function withLessonParams(search: string, lesson: string): string {
  const own = new Set<string>([...Object.values(sizeParams), ...Object.values(tensorParams), ...Object.values(selfScoreParams)]);
  const params = new URLSearchParams(search);
  for (const name of [...params.keys()]) if (own.has(name)) params.delete(name);
  for (const [name, value] of new URLSearchParams(lesson)) params.append(name, value);
  return params.toString();
}

// Null when the link carries no lesson state. Shapes are left empty: the core takes the cells in
// row-major order when their count fits the sizes, and says what is wrong otherwise.
export function stateFromSearch(search: string): LessonState | null {
  const params = new URLSearchParams(search);
  if (!sizeFields.every((field) => params.has(sizeParams[field]))) return null;
  const state = {} as LessonState;
  for (const field of sizeFields) state[field] = params.get(sizeParams[field]) ?? '';
  for (const key of editableKeys) {
    const text = params.get(tensorParams[key]) ?? '';
    state[key] = { shape: [], cells: text === '' ? [] : text.split(',') };
  }
  return state;
}

// The self-score settings of a link, as typed (the core reads and judges them), `defaults` for those the
// link leaves out; null when the link has none.
export function selfScoreFromSearch(search: string, defaults: SelfScoreRequest): SelfScoreRequest | null {
  const params = new URLSearchParams(search);
  if (!params.has(selfScoreParams.seed)) return null;
  return {
    seed: params.get(selfScoreParams.seed) ?? defaults.seed,
    tokens: params.get(selfScoreParams.tokens) ?? defaults.tokens,
    dim: params.get(selfScoreParams.dim) ?? defaults.dim,
  };
}
