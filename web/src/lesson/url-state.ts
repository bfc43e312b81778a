// The lesson's state in a link: sizes and every cell as typed (valid decimals never contain commas).
//
// Whose names. A course page's address is the course's: there the lesson's parameters carry the prefix `qkv-`
// (?unit=3&qkv-b=1&qkv-t=2…) and the page's own (t=120, page=3, even b or x) are never read or changed. The
// lesson's own pages (the standalone page, embed.html) own their whole address and use the bare names
// (sync-url="unprefixed"), the form every link written before the prefix has, so those links still read there.
// Below, "the lesson's part" of a link is always in bare names (b=1&t=2…, as the `state` attribute takes it);
// the prefix is put on and taken off at the address only.
//
// Where the numbers go. While the page's path and query stay within queryLimit characters, everything is in the
// query: ?sseed=1&sn=5&sd=8&b=1&t=2&d=3&h=2&x=…&wq=…. Longer than that (every size at 8 is 2,240 cells), the
// cell lists move to the #fragment, which a browser never sends to a server, so no server's URL or header limit
// can refuse the page: ?sseed=1&sn=5&sd=8&b=8&t=8&d=8&h=8#diagram?x=…&wq=…. In the fragment the lesson's
// parameters follow a '?', after the section name or the host page's own fragment (kept as it was). A reader
// takes the query's parameters and then the fragment's, so every link an earlier page wrote still reads.
import type { Request } from './core-api';
import { joinWords } from './words';
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
const selfScoreParams: Record<'seed' | 'tokens' | 'dim', string> = { seed: 'sseed', tokens: 'sn', dim: 'sd' };

// A drawn problem ("Another one") is its seed: the core draws the same numbers and words from it, so a teacher
// can hand the same problem to a class.
const variantParam = 'v';
// The tokens' words beside a state's cells, one `w` per token, when they are not the fixture's (an edited drawn
// problem's, an author's example's): the core checks them as it checks any token_names.
const wordParam = 'w';

const lessonNames = new Set<string>([...Object.values(sizeParams), ...Object.values(tensorParams), ...Object.values(selfScoreParams), variantParam, wordParam]);

// The prefix of the lesson's parameter names on a course page's address (see the top of this file).
export const linkPrefix = 'qkv-';

// The prefix the sync-url attribute's value asks for: null when it is absent (the address is left alone), ''
// for "unprefixed" (a page that is the lesson's own), linkPrefix for any other value.
export function linkPrefixFor(syncUrl: string | null): string | null {
  if (syncUrl === null) return null;
  return syncUrl === 'unprefixed' ? '' : linkPrefix;
}
const cellNames = new Set<string>(Object.values(tensorParams));

// The longest path and query (the request target a server reads) that keeps the numbers in the query: 2,000
// characters pass every server, proxy and browser (nginx refuses a request line over 8 KiB by default, Node's
// http all headers over 16 KiB, and a page's URL also travels as the Referer of each request it makes).
export const queryLimit = 2000;

// The longest lesson part of a link, or `state` attribute, the lesson reads; anything longer is refused unread
// (the fixture and a note are shown). Every size at 8 with every cell a 17-digit decimal is about 65,000
// characters; reading a link of this limit takes a fraction of a second, a 2 MB one took seconds.
export const linkLimit = 131072;

// `cells` false: the sizes and settings only (a reader fills the cells with zeros and says so).
// `tokenNames`: words that are not the fixture's, written only with the cells they name.
export function stateToSearch(state: LessonState, selfScore?: SelfScoreRequest, cells = true, tokenNames?: string[]): string {
  const params = new URLSearchParams();
  if (selfScore) for (const key of Object.keys(selfScoreParams) as (keyof typeof selfScoreParams)[]) params.set(selfScoreParams[key], selfScore[key]);
  for (const field of sizeFields) params.set(sizeParams[field], state[field]);
  if (cells) for (const key of editableKeys) params.set(tensorParams[key], state[key].cells.join(','));
  if (cells) for (const word of tokenNames ?? []) params.append(wordParam, word);
  return params.toString();
}

// A drawn problem's link: its seed and the self-score settings.
export function variantToSearch(seed: string, selfScore?: SelfScoreRequest): string {
  const params = new URLSearchParams();
  if (selfScore) for (const key of Object.keys(selfScoreParams) as (keyof typeof selfScoreParams)[]) params.set(selfScoreParams[key], selfScore[key]);
  params.set(variantParam, seed);
  return params.toString();
}

// The name of one `name=value` piece of a query, decoded as URLSearchParams decodes it.
function pieceName(piece: string): string {
  const equals = piece.indexOf('=');
  return new URLSearchParams(`${equals < 0 ? piece : piece.slice(0, equals)}=`).keys().next().value ?? '';
}

// The lesson's name of a query piece's name under `prefix`, or null when the piece is not the lesson's.
function lessonName(name: string, prefix: string): string | null {
  return name.startsWith(prefix) && lessonNames.has(name.slice(prefix.length)) ? name.slice(prefix.length) : null;
}

const withoutQuestionMark = (query: string): string => (query.startsWith('?') ? query.slice(1) : query);

// The pieces of a query that are not the lesson's, exactly as written.
function foreignPieces(query: string, prefix: string): string[] {
  return withoutQuestionMark(query).split('&').filter((piece) => piece !== '' && lessonName(pieceName(piece), prefix) === null);
}

// The lesson's pieces of a query, as written but for the prefix taken off their names, by bare name.
function lessonPieces(query: string, prefix: string): [string, string][] {
  return withoutQuestionMark(query)
    .split('&')
    .flatMap((piece): [string, string][] => {
      const name = lessonName(pieceName(piece), prefix);
      const equals = piece.indexOf('=');
      return name === null ? [] : [[name, `${name}${equals < 0 ? '' : piece.slice(equals)}`]];
    });
}

// The page's own query with the lesson's parameters replaced by `lesson` (stateToSearch's output, or part of
// it), named under `prefix`: a host page's parameters (a course's ?unit=3) stay where and as they were, the
// lesson's follow them.
export function withLessonParams(search: string, lesson: string, prefix = ''): string {
  const pieces = foreignPieces(search, prefix);
  for (const piece of lesson.split('&')) if (piece) pieces.push(prefix + piece);
  return pieces.join('&');
}

// A URL's #fragment as the lesson reads it: the section name (or the host page's own fragment) before the
// first '?', and the parameters after it.
export function splitFragment(hash: string): { anchor: string; params: string } {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  const question = text.indexOf('?');
  return question < 0 ? { anchor: text, params: '' } : { anchor: text.slice(0, question), params: text.slice(question + 1) };
}

// The section a link's fragment names (#diagram, or #diagram?x=… once the numbers are there too).
export function fragmentAnchor(hash: string): string {
  return splitFragment(hash).anchor;
}

// The lesson's part of a page URL, in bare names: its query's lesson parameters (named under `prefix`), with
// the fragment's in place of the query's (a link the page wrote has each in one place only). Past linkLimit,
// the two are only joined, unread, for the reader to refuse by their length.
export function linkFromUrl(search: string, hash: string, prefix = ''): string {
  const { params } = splitFragment(hash);
  if (search.length + params.length > linkLimit) return `${search}&${params}`;
  const fromFragment = lessonPieces(params, prefix);
  const inFragment = new Set(fromFragment.map(([name]) => name));
  const fromQuery = lessonPieces(search, prefix).filter(([name]) => !inFragment.has(name));
  return [...fromQuery, ...fromFragment].map(([, piece]) => piece).join('&');
}

// The relative URL (?query#fragment) that holds `lesson` (stateToSearch's output), named under `prefix`, at a
// page whose address is `place`: in the query while the path and query fit queryLimit, else with the cell lists
// in the fragment. The host page's parameters and fragment stay; the lesson's are written in one place and
// removed from the other. (`pathname` counts toward the request's length when it is known.)
export function linkTarget(place: { pathname?: string; search: string; hash: string }, lesson: string, prefix = ''): string {
  const { anchor, params } = splitFragment(place.hash);
  const ownFragment = withLessonParams(params, '', prefix);
  const query = withLessonParams(place.search, lesson, prefix);
  if ((place.pathname ?? '').length + 1 + query.length <= queryLimit) {
    const hash = anchor === '' && ownFragment === '' ? '' : `#${anchor}${ownFragment ? `?${ownFragment}` : ''}`;
    return `?${query}${hash}`;
  }
  const pieces = lesson.split('&');
  const cells = pieces.filter((piece) => cellNames.has(pieceName(piece))).join('&');
  const rest = pieces.filter((piece) => !cellNames.has(pieceName(piece))).join('&');
  return `?${withLessonParams(place.search, rest, prefix)}#${anchor}?${withLessonParams(ownFragment, cells, prefix)}`;
}

// The link's numbers as the diagram's state; null when it does not give all four sizes. Shapes are left empty:
// the core takes the cells in row-major order when their count fits the sizes, and says what is wrong otherwise.
export function stateFromSearch(search: string): LinkedState | null {
  return stateFromParams(new URLSearchParams(search));
}

function stateFromParams(params: URLSearchParams): LinkedState | null {
  if (!sizeFields.every((field) => params.has(sizeParams[field]))) return null;
  const state = {} as LinkedState;
  for (const field of sizeFields) state[field] = params.get(sizeParams[field]) ?? '';
  for (const key of editableKeys) {
    const text = params.get(tensorParams[key]) ?? '';
    state[key] = { shape: [], cells: text === '' ? [] : text.split(',') };
  }
  return state;
}

// 131072 as "131,072": the page's words are English.
const count = (n: number): string => n.toLocaleString('en-US');

// What a link says about the diagram, the one reader of it: nothing (none of b, t, d, h, v or the cell lists: a
// plain page, or the self-score settings alone), a state for the core to judge, a drawn problem's seed (v, when
// the link gives no state), or a link the lesson does not read, and why in words. One longer than linkLimit is refused before it is read: reading megabytes of cells
// held the page for seconds.
// A state as a link gives it: sizes and cells, without what the core keeps of cells typed at larger sizes (kept).
export type LinkedState = Request<LessonState>;
export type DiagramLink = { kind: 'none' } | { kind: 'state'; state: LinkedState; tokenNames?: string[] } | { kind: 'variant'; seed: string } | { kind: 'unread'; why: string };

export function readDiagramLink(search: string): DiagramLink {
  if (search.length > linkLimit) return { kind: 'unread', why: `it is ${count(search.length)} characters long, and the lesson reads links of at most ${count(linkLimit)}` };
  const params = new URLSearchParams(search);
  const state = stateFromParams(params);
  const words = params.getAll(wordParam);
  if (state) return words.length ? { kind: 'state', state, tokenNames: words } : { kind: 'state', state };
  const seed = params.get(variantParam);
  if (seed !== null) return { kind: 'variant', seed };
  if (![...Object.values(sizeParams), ...cellNames].some((name) => params.has(name))) return { kind: 'none' };
  const missing = sizeFields.map((field) => sizeParams[field]).filter((name) => !params.has(name));
  return { kind: 'unread', why: `it has no ${joinWords(missing, 'or')}, and a link gives all four sizes: b, t, d and h` };
}

// The self-score settings of a link, as typed (the core reads and judges them), `defaults` for those the
// link leaves out; null when the link has none, or is too long to read.
export function selfScoreFromSearch(search: string, defaults: SelfScoreRequest): SelfScoreRequest | null {
  if (search.length > linkLimit) return null;
  const params = new URLSearchParams(search);
  if (!params.has(selfScoreParams.seed)) return null;
  return {
    seed: params.get(selfScoreParams.seed) ?? defaults.seed,
    tokens: params.get(selfScoreParams.tokens) ?? defaults.tokens,
    dim: params.get(selfScoreParams.dim) ?? defaults.dim,
  };
}
