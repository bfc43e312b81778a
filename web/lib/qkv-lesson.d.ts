// Types of the npm package "qkv-lesson" (dist-lib/qkv-lesson.d.ts): `import 'qkv-lesson'` defines <qkv-lesson>.
// Written by hand so that it reads as the element's public surface; web/lib/types-check.ts holds each type
// equal to the source's (tests/browser/npm-package.test.mjs type-checks it), so the two cannot drift apart.

/** The lesson's sections, in the order they appear. */
export type SectionName = 'prediction' | 'rule' | 'diagram' | 'scale' | 'exercises' | 'self-score' | 'next';

/** When exercise answers are shown: after a check (default), never (only right or wrong; hints stay), always. */
export type Reveal = 'after-check' | 'never' | 'always';

/** light or dark; auto (no attribute) follows the learner's system setting. */
export type Theme = 'light' | 'dark' | 'auto';

/** The attributes <qkv-lesson> observes, as a page writes them (for JSX and template type checkers). */
export interface QkvLessonAttributes {
  /** Space-separated section names; unknown names warn and set data-sections-error. Default: every section. */
  sections?: string;
  /** after-check | never | always; another value warns and sets data-reveal-error. */
  reveal?: string;
  /** The starting numbers in link format (b=1&t=2&d=3&h=2&x=…&wq=…); empty: the frozen fixture. */
  state?: string;
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
}

/** What the lesson keeps of one question. */
export interface ExerciseProgress {
  responses: string[];
  /** The last check matched. */
  correct: boolean;
  /** The last check counts as a success (absent in work saved before the lesson kept it). */
  counts?: boolean;
  attempts: number;
  /** The answer was shown before the learner got it right: by their request or by the lesson. */
  revealed: boolean;
}

/** A learner's work: the qkv-lesson-progress event's detail, `progress`, and what `restoreProgress` takes. */
export interface LessonProgress {
  /** By exercise id: every question checked or shown. */
  answers: Record<string, ExerciseProgress>;
  /** The free-text challenge's answer. */
  challenge: string;
  /** The edited numbers in link format; '' for the frozen fixture. */
  state: string;
  /** The attempt's xAPI registration (a UUID): restoring it continues the attempt. */
  registration?: string;
}

/** The core's grading of the questions shown (a shown answer never counts). */
export interface LessonOutcome {
  shown: number;
  right: number;
  /** Checked, or answer shown. */
  settled: number;
  /** right ÷ shown. */
  scaled: number;
  /** 100 × scaled, to two decimals. */
  percent: number;
  passing: number;
  /** Every question shown is settled. */
  completed: boolean;
  /** Completed, and scaled ≥ passing. */
  passed: boolean;
}

/** An xAPI language map, e.g. { 'en-US': '…' }. */
export type LanguageMap = Record<string, string>;

/** An activity named in a statement's context. */
export interface ActivityRef {
  id: string;
  objectType: 'Activity';
  definition?: { type: string; name?: LanguageMap };
}

/**
 * An xAPI 1.0.3 statement without actor (the course adds its own): the qkv-lesson-answer event's detail, and the
 * `statement` of { type: 'qkv-lesson:answer', statement } posted to a parent frame. One per check (verb answered),
 * one when an answer is shown before the learner got it right (verb http://id.tincanapi.com/verb/viewed, object
 * "<question>/answer"), and the lesson's own (initialized, completed, passed, failed, terminated). Every one has an
 * id, the attempt's registration, and contextActivities (parent: the lesson; grouping: the embedding page).
 * Extensions: result 'urn:qkv-lesson:read' and 'urn:qkv-lesson:matched'; context 'urn:qkv-lesson:exercise' (the
 * exercise id), 'urn:qkv-lesson:attempt', 'urn:qkv-lesson:revealed' and 'urn:qkv-lesson:shown-by'.
 * docs/statements.md has every field.
 */
export interface AnswerStatement {
  id: string;
  verb: { id: string; display: LanguageMap };
  object: {
    id: string;
    objectType: 'Activity';
    definition: {
      name: LanguageMap;
      description?: LanguageMap;
      type: string;
      interactionType?: 'choice' | 'fill-in' | 'long-fill-in';
      choices?: { id: string; description: LanguageMap }[];
      correctResponsesPattern?: string[];
    };
  };
  result?: {
    /** The core's verdict: matched, and the answer was not shown first. Absent for the ungraded challenge. */
    success?: boolean;
    completion?: boolean;
    /** What the learner typed or chose; several responses joined with "[,]". */
    response?: string;
    /** ISO 8601, e.g. PT12.5S. */
    duration?: string;
    score?: { raw: number; min: number; max: number; scaled: number };
    extensions?: Record<string, unknown>;
  };
  context: {
    registration: string;
    contextActivities: { parent?: ActivityRef[]; grouping?: ActivityRef[] };
    extensions?: Record<string, unknown>;
  };
  timestamp: string;
}

/** The events <qkv-lesson> fires; all bubble and are composed. */
export interface QkvLessonEventMap {
  /** The WebAssembly core is loaded and the lesson rendered (data-state="ready"). */
  'qkv-lesson-ready': CustomEvent<null>;
  /** After every accepted edit of the numbers. */
  'qkv-lesson-rendered': CustomEvent<null>;
  /** Each check of an answer (and the challenge's text when the learner leaves its box). */
  'qkv-lesson-answer': CustomEvent<AnswerStatement>;
  /** The learner's work changed (a SCORM launch page keeps it as suspend_data). */
  'qkv-lesson-progress': CustomEvent<LessonProgress>;
  /** The whole lesson is laid out (data-laid-out): top down, a few stretches a frame after ready. */
  'qkv-lesson-laid-out': CustomEvent<null>;
}

/** <qkv-lesson>: data-state is "loading", then "ready" or "error". Each observed attribute has a property. */
export declare class QkvLessonElement extends HTMLElement {
  static observedAttributes: string[];
  /** `sync-url`: keep the lesson's numbers in the page URL. */
  get syncUrl(): boolean;
  set syncUrl(value: boolean);
  /** The sections shown, in the lesson's order (unknown names ignored; none known: all). */
  get sections(): SectionName[];
  set sections(value: SectionName[]);
  get reveal(): Reveal;
  set reveal(value: Reveal);
  /** The starting numbers in link format; '' means the frozen fixture. */
  get state(): string;
  set state(value: string);
  get progressKey(): string;
  set progressKey(value: string);
  /** The normalised origin (https://example.org/x → https://example.org); null if missing or not an origin. */
  get parentOrigin(): string | null;
  set parentOrigin(value: string | null);
  get theme(): Theme;
  set theme(value: Theme);
  /** The `activity-id` attribute when it is an absolute IRI, else null. */
  get activityId(): string | null;
  set activityId(value: string | null);
  /** Forgets the work kept under progress-key (answers, the challenge, the registration); false if storage refused. */
  forgetKeptProgress(): boolean;
  /** The core's grading of the questions shown, under a passing fraction (0.8 by default); null before ready. */
  outcome(passing?: number): LessonOutcome | null;
  /** The learner's work now. */
  get progress(): LessonProgress;
  /** Puts saved work back (answers are checked again without answer events); before ready, at ready. */
  restoreProgress(progress: unknown): void;
  /** The ids of the questions shown, in reading order ([] before ready). */
  get exerciseIds(): string[];
  attributeChangedCallback(name: string, previous: string | null, next: string | null): void;
  connectedCallback(): void;
  disconnectedCallback(): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'qkv-lesson': QkvLessonElement;
  }
  // The events bubble out of the element, so a listener on a container, the document or the window gets them typed.
  interface GlobalEventHandlersEventMap extends QkvLessonEventMap {}
}
