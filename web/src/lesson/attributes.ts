// The element's attributes as course authors write them: the values each takes, the property that parses each
// (LessonAttributes, the base of <qkv-lesson>), and what is said (on the console and in data-<name>-error) about
// a value the element does not know.
import { readParentOrigin } from './embed-protocol';
import type { Reveal } from './exercises';

export const sectionNames = ['prediction', 'rule', 'diagram', 'scale', 'exercises', 'self-score', 'next'] as const;
export type SectionName = (typeof sectionNames)[number];
// Earlier names of a section, still read in `sections` and in links: courses stored them.
const sectionAliases: Readonly<Record<string, SectionName>> = { 'self-bias': 'self-score' };
export function sectionNamed(word: string): SectionName | null {
  return (sectionNames as readonly string[]).includes(word) ? (word as SectionName) : (sectionAliases[word] ?? null);
}
export const reveals: readonly Reveal[] = ['after-check', 'never', 'always'];
const themes = ['light', 'dark'] as const;
/** light or dark; auto (no attribute) follows the learner's system setting. */
export type Theme = (typeof themes)[number] | 'auto';

/** The attributes <qkv-lesson> observes, as a page writes them (for JSX and template type checkers). */
export interface QkvLessonAttributes {
  /** Space-separated section names; unknown names warn and set data-sections-error. Default: every section. */
  sections?: string;
  /** after-check | never | always; another value warns and sets data-reveal-error. */
  reveal?: string;
  /** The starting numbers in link format (b=1&t=2&d=3&h=2&x=…&wq=…); empty: the frozen fixture. */
  state?: string;
  /** The address of an author's example file (JSON: docs/examples.md), fetched same-origin or with CORS; the lesson
   * starts and resets to its numbers and words. A file that cannot be read or is refused: the fixture, and why. */
  example?: string;
  /** Keeps answers in localStorage under "<key>:<exercise id>" and restores them on load. */
  'progress-key'?: string;
  /** Present: the lesson's numbers live in the page URL, as qkv-b=…&qkv-t=…, beside the page's own parameters, which
   * are never read or changed; "unprefixed": as b=…&t=…, for a page that is the lesson's own. */
  'sync-url'?: boolean | '' | 'unprefixed';
  /** The course page's origin: the only place answer messages from an iframe are posted to. */
  'parent-origin'?: string;
  /** light or dark; another value follows the system setting (and warns, except auto). */
  theme?: string;
  /** The lesson's xAPI activity IRI; its questions' are "<activity-id>/exercise/<id>". Default: the page's address + #qkv-lesson. */
  'activity-id'?: string;
  /** A graded attempt's own problem: opaque text (never a name) from which the core derives the seed of the numbers
   * shown when no link, `state` or saved progress gives numbers. The SCORM and cmi5 launchers set it. */
  'attempt-key'?: string;
  /** A graded run's pass mark, a percent from 0 to 100 (default 80); a launcher's LMS value wins (passingFraction). */
  'passing-score'?: string;
  /** Checks allowed per graded question, a whole number (0 or none: unlimited); past it, checks are refused. */
  attempts?: string;
  /** Space-separated exercise ids that count (default: every question shown); the others are practice. */
  'graded-questions'?: string;
}

/** What an attribute does to the opening the build prerendered (prerendered.ts): 'stale' when, present, the lesson
 * starts from other numbers or shows other sections or answers than it shows; 'valid' when it still shows what the
 * element will show. */
export type PrerenderedOpening = 'valid' | 'stale';

/** Whether embed.html takes the attribute from its own address (`?sections=diagram&reveal=never`), and the longest
 * value it reads there; null: an iframe's address cannot set it. */
export type EmbedQuery = { longest: number } | null;

// Every attribute the element observes: what it does to the prerendered opening, and whether an iframe's address may
// set it. The observed list is these names, so a new attribute cannot be observed without saying both (and the type
// makes each of QkvLessonAttributes named). Not from an address: `state` (a shared link's own numbers come instead),
// `example` (a fetch of any address), `attempt-key` (a launcher's: the address must not choose the graded problem),
// `sync-url` (set when the address holds the lesson's numbers). 200 characters is room for any other value;
// graded-questions has room for every question's id (all 21 are 352 characters with their spaces).
const short: EmbedQuery = { longest: 200 };
export const lessonAttributes: Readonly<Record<keyof QkvLessonAttributes, { prerenderedOpening: PrerenderedOpening; embedQuery: EmbedQuery }>> = {
  'sync-url': { prerenderedOpening: 'valid', embedQuery: null },
  sections: { prerenderedOpening: 'stale', embedQuery: short },
  reveal: { prerenderedOpening: 'stale', embedQuery: short },
  state: { prerenderedOpening: 'stale', embedQuery: null },
  example: { prerenderedOpening: 'stale', embedQuery: null },
  'progress-key': { prerenderedOpening: 'valid', embedQuery: short },
  'parent-origin': { prerenderedOpening: 'valid', embedQuery: short },
  theme: { prerenderedOpening: 'valid', embedQuery: short },
  'activity-id': { prerenderedOpening: 'valid', embedQuery: short },
  'attempt-key': { prerenderedOpening: 'stale', embedQuery: null },
  'passing-score': { prerenderedOpening: 'valid', embedQuery: short },
  attempts: { prerenderedOpening: 'valid', embedQuery: short },
  'graded-questions': { prerenderedOpening: 'valid', embedQuery: { longest: 2000 } },
};

export interface EmbedAttributes {
  attributes: [string, string][];
  problems: string[]; // each value not used, in words, for the console
}

// The attributes embed.html sets on its lesson from its own address: those the table lets an address set, each up to
// its length (a longer value is not used, and said).
export function embedAttributes(search: string): EmbedAttributes {
  const params = new URLSearchParams(search);
  const attributes: [string, string][] = [];
  const problems: string[] = [];
  for (const [name, { embedQuery }] of Object.entries(lessonAttributes)) {
    const value = params.get(name);
    if (value === null || embedQuery === null) continue;
    if (value.length <= embedQuery.longest) attributes.push([name, value]);
    else problems.push(`${name} in the frame's address is ${value.length} characters long, more than the ${embedQuery.longest} read, so it is not used.`);
  }
  // The lesson's own numbers may come in the same query string (a shared link): keep them in sync, in bare names
  // (embed.html's address is the lesson's own: url-state.ts).
  if (params.has('b')) attributes.push(['sync-url', 'unprefixed']);
  return { attributes, problems };
}

// Whether `attribute`, present, makes the prerendered opening stale (an attribute the element does not observe never does).
export function changesPrerender(attribute: string): boolean {
  return Object.hasOwn(lessonAttributes, attribute) && lessonAttributes[attribute as keyof QkvLessonAttributes].prerenderedOpening === 'stale';
}

/** The attributes of a graded run (docs/course-authors.md "Graded practice"); each bad value is refused on its own. */
export const gradingAttributes = ['passing-score', 'attempts', 'graded-questions'] as const;
export type GradingAttribute = (typeof gradingAttributes)[number];

// An attribute value the element does not know: what it says on the console and in data-<name>-error.
export function attributeProblem(name: string, value: string | null): string | null {
  if (value === null) return null;
  if (name === 'sections') {
    const unknown = value.split(/[\s,]+/).filter((word) => word && !sectionNamed(word));
    if (unknown.length === 0) return value.trim() === '' ? 'sections="" names no section: every section is shown.' : null;
    return `sections names ${unknown.map((word) => `"${word}"`).join(', ')}, which ${unknown.length > 1 ? 'are not sections' : 'is not a section'}; the sections are ${sectionNames.join(' ')}. ${
      value.split(/[\s,]+/).some((word) => sectionNamed(word)) ? 'The others are shown.' : 'Every section is shown.'
    }`;
  }
  if (name === 'reveal' && !(reveals as readonly string[]).includes(value))
    return `reveal="${value}" is not one of ${reveals.join(', ')}; after-check is used.`;
  if (name === 'theme' && !(themes as readonly string[]).includes(value) && value !== '' && value !== 'auto')
    return `theme="${value}" is not light, dark or auto; the learner's system setting decides.`;
  if (name === 'graded-questions' && value.trim() === '') return 'graded-questions="" names no question: every question shown counts.';
  if (name === 'activity-id' && !absoluteIri(value))
    return `activity-id="${value.slice(0, 200)}" is not an absolute IRI (such as https://example.org/course/qkv); the page's own address is used.`;
  return null;
}

// An absolute IRI as xAPI's activity ids need: a scheme, then the rest; no spaces (https://…, urn:…, tag:…).
function absoluteIri(value: string): boolean {
  if (value.length > 2000 || /[\s<>"{}|\\^`]/.test(value) || !/^[a-z][a-z0-9+.-]*:./i.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

// The observed attributes, each with a property of the same name (camelCase) that parses it.
export class LessonAttributes extends HTMLElement {
  static observedAttributes = Object.keys(lessonAttributes) as (keyof QkvLessonAttributes)[];

  /** Keep the lesson's numbers in the page URL, named qkv-b, qkv-t…; sync-url="unprefixed": b, t…, on a page that is
   * the lesson's own (url-state.ts). */
  get syncUrl(): boolean {
    return this.hasAttribute('sync-url');
  }
  set syncUrl(value: boolean) {
    this.toggleAttribute('sync-url', value);
  }

  /** Which sections show, in the lesson's order; unknown names are ignored; default all. */
  get sections(): SectionName[] {
    const asked = (this.getAttribute('sections') ?? '').split(/[\s,]+/).map(sectionNamed);
    const known = sectionNames.filter((name) => asked.includes(name));
    return known.length > 0 ? known : [...sectionNames];
  }
  set sections(value: SectionName[]) {
    this.setAttribute('sections', value.join(' '));
  }

  /** When exercise answers are shown: after-check (default), never, always. */
  get reveal(): Reveal {
    const value = this.getAttribute('reveal') as Reveal | null;
    return value && reveals.includes(value) ? value : 'after-check';
  }
  set reveal(value: Reveal) {
    this.setAttribute('reveal', value);
  }

  /** The starting numbers, in the page-link format (b=1&t=2&d=3&h=2&x=…); empty means the frozen fixture. */
  /** The author's example file's address (docs/examples.md); empty: none. */
  get example(): string {
    return this.getAttribute('example') ?? '';
  }
  set example(value: string) {
    this.setAttribute('example', value);
  }
  get state(): string {
    return this.getAttribute('state') ?? '';
  }
  set state(value: string) {
    this.setAttribute('state', value);
  }

  /** With a key, answers are kept in localStorage under "<key>:<exercise id>" and restored on load. */
  get progressKey(): string {
    return this.getAttribute('progress-key') ?? '';
  }
  set progressKey(value: string) {
    this.setAttribute('progress-key', value);
  }

  /** The origin answer messages are posted to when embedded in an iframe (https://example.org/x → https://example.org); null if not set or not an origin. */
  get parentOrigin(): string | null {
    return readParentOrigin(this.getAttribute('parent-origin')).origin;
  }
  set parentOrigin(value: string | null) {
    if (value === null) this.removeAttribute('parent-origin');
    else this.setAttribute('parent-origin', value);
  }

  /** The lesson's xAPI activity IRI (its questions' are `<activity-id>/exercise/<id>`); without a valid one, the page's address with #qkv-lesson. */
  get activityId(): string | null {
    const value = this.getAttribute('activity-id');
    return value !== null && !attributeProblem('activity-id', value) ? value : null;
  }
  set activityId(value: string | null) {
    if (value === null) this.removeAttribute('activity-id');
    else this.setAttribute('activity-id', value);
  }

  /** A graded attempt's key: the core draws the attempt's own problem from it ('' for none). */
  get attemptKey(): string {
    return this.getAttribute('attempt-key') ?? '';
  }
  set attemptKey(value: string) {
    this.setAttribute('attempt-key', value);
  }

  /** The pass mark as a percent (passing-score) as written, or null without one; the core reads it (data-passing-score-error says why it could not). */
  get passingScore(): string | null {
    return this.getAttribute('passing-score');
  }
  set passingScore(value: string | number | null) {
    if (value === null) this.removeAttribute('passing-score');
    else this.setAttribute('passing-score', `${value}`);
  }

  /** Checks allowed per graded question (attempts) as written, or null without one (unlimited); the core reads it. */
  get attempts(): string | null {
    return this.getAttribute('attempts');
  }
  set attempts(value: string | number | null) {
    if (value === null) this.removeAttribute('attempts');
    else this.setAttribute('attempts', `${value}`);
  }

  /** The exercise ids that count (graded-questions); null: every question shown. */
  get gradedQuestions(): string[] | null {
    const ids = (this.getAttribute('graded-questions') ?? '').split(/\s+/).filter(Boolean);
    return ids.length > 0 ? ids : null;
  }
  set gradedQuestions(value: string[] | string | null) {
    if (value === null) this.removeAttribute('graded-questions');
    else this.setAttribute('graded-questions', typeof value === 'string' ? value : value.join(' '));
  }

  /** light or dark; anything else follows the learner's system setting (CSS reads the attribute). */
  get theme(): Theme {
    const value = this.getAttribute('theme');
    return value === 'light' || value === 'dark' ? value : 'auto';
  }
  set theme(value: Theme) {
    if (value === 'auto') this.removeAttribute('theme');
    else this.setAttribute('theme', value);
  }

  // A value the element does not know is said on the console and shown as data-<name>-error.
  protected checkValue(name: 'sections' | 'reveal' | 'theme' | 'parent-origin' | 'activity-id', value: string | null): void {
    const problem = name === 'parent-origin' ? readParentOrigin(value).problem : attributeProblem(name, value);
    const key = name === 'parent-origin' ? 'parentOriginError' : name === 'activity-id' ? 'activityIdError' : (`${name}Error` as const);
    if (problem) {
      console.warn(`<qkv-lesson>: ${problem}`);
      this.dataset[key] = problem;
    } else delete this.dataset[key];
  }
}
