// <qkv-lesson>: the whole lesson as one element, so a course page embeds exactly what learners see here.
// data-state is "loading" until the WebAssembly core is ready, then "ready", or "error" if it cannot load.
import katexCss from 'katex/dist/katex.min.css?inline';
import { css as mathLayoutCss } from 'virtual:math';
import lessonCss from './styles.css?inline';
import { answerEvent, answerMessageType, answerStatement } from './answers';
import { renderForwardRule, renderIntro, renderNext, renderWorkedPrediction } from './content';
import { loadCore } from './core';
import { buildDiagram, renderDiagram, type DiagramRefs } from './diagram';
import { h } from './dom';
import { answerTarget, readParentOrigin } from './embed-protocol';
import { renderExercise, type AnswerRecord, type ExerciseHandle, type Reveal } from './exercises';
import { registerMathFonts } from './fonts';
import { buildSelfBias } from './self-bias';
import { sizeFields, type CoreError, type EditableKey, type Evidence, type LessonState, type QkvCore, type SelfScoreRequest, type SizeField, type SizeLimitView } from './types';
import { selfScoreFromSearch, stateFromSearch, stateToSearch } from './url-state';

const sizeLabels: Record<SizeField, string> = {
  batch: 'Batch B',
  tokens: 'Tokens T',
  model_width: 'Model width d_model',
  head_width: 'Head width d_head',
};

let sheets: CSSStyleSheet[] | undefined;
// Constructed style sheets: shared by every instance, isolated in each shadow root, and allowed under a
// Content-Security-Policy without 'unsafe-inline'. KaTeX's @font-face rules move to the document (fonts.ts).
function lessonSheets(): CSSStyleSheet[] {
  if (!sheets) {
    const katex = new CSSStyleSheet();
    katex.replaceSync(`${katexCss.replace(/@font-face\{[^}]*\}/g, '')}\n${mathLayoutCss}`);
    const lesson = new CSSStyleSheet();
    lesson.replaceSync(lessonCss);
    sheets = [katex, lesson];
  }
  return sheets;
}

let instances = 0;

export const sectionNames = ['prediction', 'rule', 'diagram', 'exercises', 'self-bias', 'next'] as const;
export type SectionName = (typeof sectionNames)[number];
const reveals: readonly Reveal[] = ['after-check', 'never', 'always'];

export class QkvLessonElement extends HTMLElement {
  // Each observed attribute has a property of the same name (camelCase) that parses it.
  static observedAttributes = ['sync-url', 'sections', 'reveal', 'state', 'progress-key', 'parent-origin'];

  private readonly idPrefix = `qkv${++instances}`;
  private started = false;
  private core?: QkvCore;
  private current?: LessonState;
  private diagram?: DiagramRefs;
  private readonly status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  private readonly sizeInputs = {} as Record<SizeField, HTMLInputElement>;
  private readonly sizesError = h('p', { class: 'field-error', id: `${this.idPrefix}-error-sizes`, hidden: true });
  private announceTimer?: ReturnType<typeof setTimeout>;
  private renders = 0;
  private urlTimer?: ReturnType<typeof setTimeout>;

  private readonly sectionElements = new Map<SectionName, HTMLElement>();
  private readonly exerciseViews = new Map<string, ExerciseHandle>();
  private selfScore: SelfScoreRequest = { seed: '1', tokens: '5', dim: '8' };
  private readonly notes = h('ul', { class: 'link-notes', hidden: true });

  /** Keep the lesson's numbers in the page URL (for the standalone page; off when embedded). */
  get syncUrl(): boolean {
    return this.hasAttribute('sync-url');
  }
  set syncUrl(value: boolean) {
    this.toggleAttribute('sync-url', value);
  }

  /** Which sections show, in the lesson's order; unknown names are ignored; default all. */
  get sections(): SectionName[] {
    const asked = (this.getAttribute('sections') ?? '').split(/[\s,]+/).filter(Boolean);
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

  // A parent-origin that names no origin is said on the console and shown as data-parent-origin-error.
  private checkParentOrigin(value: string | null): void {
    const { problem } = readParentOrigin(value);
    if (problem) {
      console.warn(`<qkv-lesson>: ${problem}`);
      this.dataset.parentOriginError = problem;
    } else delete this.dataset.parentOriginError;
  }

  /** light or dark; anything else follows the learner's system setting (CSS reads the attribute). */
  get theme(): 'light' | 'dark' | 'auto' {
    const value = this.getAttribute('theme');
    return value === 'light' || value === 'dark' ? value : 'auto';
  }
  set theme(value: 'light' | 'dark' | 'auto') {
    if (value === 'auto') this.removeAttribute('theme');
    else this.setAttribute('theme', value);
  }

  attributeChangedCallback(name: string, previous: string | null, next: string | null): void {
    if (name === 'parent-origin') this.checkParentOrigin(next);
    if (previous === next || this.dataset.state !== 'ready') return;
    if (name === 'sections') this.applySections();
    if (name === 'state') this.startFrom(this.state);
  }

  connectedCallback(): void {
    if (this.started) return;
    this.started = true;
    const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = lessonSheets();
    registerMathFonts();
    this.dataset.state = 'loading';
    root.replaceChildren(h('p', { class: 'loading', role: 'status' }, 'Loading the lesson’s computation engine…'));
    loadCore().then(
      (core) => this.start(core),
      (error: unknown) => this.fail(error),
    );
  }

  private fail(error: unknown): void {
    this.dataset.state = 'error';
    const detail = error instanceof Error ? error.message : String(error);
    this.shadowRoot?.replaceChildren(
      h(
        'div',
        { class: 'load-error', role: 'alert' },
        h('p', {}, 'The lesson could not start: its computation engine (WebAssembly) did not load in this browser.'),
        h('p', {}, `Reason: ${detail}`),
      ),
    );
  }

  private start(core: QkvCore): void {
    this.core = core;
    const fixture = core.fixture();
    if (!fixture.ok) return this.fail(new Error(fixture.error.message));
    const fixtureEvaluation = core.evaluate(fixture.state);
    if (!fixtureEvaluation.ok) return this.fail(new Error(fixtureEvaluation.error.message));
    if (this.syncUrl) this.selfScore = selfScoreFromSearch(location.search) ?? this.selfScore;
    const listed = core.exercises(this.selfScore);
    if (!listed.ok) return this.fail(new Error(listed.error.message));
    const chapterExercises = listed.exercises.filter((view) => view.id.startsWith('ch26-'));

    const diagram = buildDiagram(this.idPrefix);
    this.diagram = diagram;
    const exercise = (id: string, number: number, idPrefix: string) => {
      const view = renderExercise(chapterExercises.find((candidate) => candidate.id === id)!, {
        idPrefix,
        number,
        check: (exerciseId, responses) => core.checkAnswer({ id: exerciseId, responses, self_score: this.selfScore }),
        reveal: () => this.reveal,
        onAnswer: (record, replayed) => this.answered(record, replayed),
      });
      if (number > 0) this.exerciseViews.set(id, view);
      return view.form;
    };

    const sections: Record<SectionName, HTMLElement> = {
      prediction: renderWorkedPrediction(fixtureEvaluation.evidence, exercise('ch26-first-token', 0, `${this.idPrefix}-worked`)),
      rule: renderForwardRule(),
      diagram: h(
        'section',
        { class: 'diagram-section', 'aria-labelledby': `${this.idPrefix}-diagram-title` },
        this.renderControls(fixture.size_limits),
        diagram.root,
      ),
      exercises: h(
        'section',
        { class: 'exercises', 'aria-labelledby': `${this.idPrefix}-exercises-title` },
        h('h3', { id: `${this.idPrefix}-exercises-title` }, 'Predict before reading the evidence'),
        h('p', {}, 'Answer each question, then check it: the core compares your answer with what it computed for the frozen fixture.'),
        ...chapterExercises.map((view, i) => exercise(view.id, i + 1, `${this.idPrefix}-exercise`)),
      ),
      'self-bias': buildSelfBias(
        core,
        this.idPrefix,
        this.selfScore,
        () => this.reveal,
        (record, replayed) => this.answered(record, replayed),
        (settings) => {
          this.selfScore = settings;
          if (this.syncUrl && this.current) this.scheduleUrl(this.current);
        },
      ).element,
      next: renderNext(),
    };
    for (const name of sectionNames) {
      sections[name].dataset.section = name;
      this.sectionElements.set(name, sections[name]);
    }
    this.shadowRoot!.replaceChildren(h('article', { class: 'lesson', lang: 'en', part: 'lesson' }, renderIntro(), ...sectionNames.map((name) => sections[name])));
    this.applySections();
    this.shadowRoot!.addEventListener('input', (event) => this.edited(event));

    // A shared link wins over the author's starting state; without either, the fixture computed above.
    const search = this.syncUrl && stateFromSearch(location.search) ? location.search : this.state;
    if (search) this.startFrom(search);
    else this.show(fixtureEvaluation.state, fixtureEvaluation.evidence);
    this.restoreProgress();
    this.dataset.state = 'ready';
    this.dispatchEvent(new CustomEvent('qkv-lesson-ready', { bubbles: true, composed: true }));
    this.warmUp();
  }

  // WebAssembly starts in a baseline tier; a few evaluations while the browser is idle let it compile the
  // hot code optimised before the learner's first edit. Nothing is rendered; data-warmed marks the end.
  private warmUp(): void {
    const idle = window.requestIdleCallback ?? ((callback: () => void) => setTimeout(callback, 50));
    let rounds = 0;
    const step = () => {
      for (let i = 0; i < 5 && this.current; i++) this.core!.evaluate(this.current);
      if (++rounds < 8) idle(step);
      else this.dataset.warmed = '';
    };
    idle(step);
  }

  // Shows the numbers of a link-format state, or the fixture when it is empty or rejected, and says in
  // words what it used instead of anything it could not use.
  private startFrom(search: string): void {
    const fixture = this.core!.fixture();
    if (!fixture.ok) return;
    const asked = search ? stateFromSearch(search) : null;
    const evaluation = this.core!.evaluate(asked ?? fixture.state);
    if (evaluation.ok) {
      this.show(evaluation.state, evaluation.evidence);
      this.showNotes(evaluation.notes);
      return;
    }
    const fallback = this.core!.evaluate(fixture.state);
    if (fallback.ok) this.show(fallback.state, fallback.evidence);
    const reason = `The link’s numbers were not used (${evaluation.error.message}); the lesson shows the frozen fixture instead.`;
    this.showNotes([reason]);
    this.announce(reason);
  }

  private showNotes(notes: string[]): void {
    this.notes.hidden = notes.length === 0;
    this.notes.replaceChildren(...notes.map((note) => h('li', {}, note)));
  }

  private applySections(): void {
    const shown = this.sections;
    for (const [name, element] of this.sectionElements) element.hidden = !shown.includes(name);
  }

  private restoreProgress(): void {
    const key = this.progressKey;
    if (!key) return;
    for (const [id, view] of this.exerciseViews) {
      try {
        const saved = JSON.parse(localStorage.getItem(`${key}:${id}`) ?? 'null') as { responses?: unknown } | null;
        const responses = saved?.responses;
        if (Array.isArray(responses) && responses.every((item) => typeof item === 'string')) view.replay(responses);
      } catch {
        // Unreadable or blocked storage: start without saved answers.
      }
    }
  }

  // Each size says what it accepts; the limits are the core's (cpp/learner/editable_state.hpp).
  private renderControls(limits: SizeLimitView[]): HTMLElement {
    const fields = sizeFields.map((field) => {
      const id = `${this.idPrefix}-size-${field}`;
      const limit = limits.find((candidate) => candidate.field === field);
      const input = h('input', {
        id,
        type: 'text',
        inputmode: 'numeric',
        autocomplete: 'off',
        'data-size': field,
        'aria-describedby': this.sizesError.id,
      });
      this.sizeInputs[field] = input;
      return h('p', { class: 'size' }, h('label', { for: id }, limit ? `${sizeLabels[field]} (${limit.min} to ${limit.max})` : sizeLabels[field]), input);
    });
    const reset = h('button', { type: 'button', class: 'reset' }, 'Reset to the frozen fixture');
    reset.addEventListener('click', () => this.reset());
    return h(
      'div',
      { class: 'controls' },
      h('fieldset', { class: 'sizes' }, h('legend', {}, 'Sizes (edit any cell below too)'), ...fields, reset),
      this.sizesError,
      this.notes,
      this.status,
    );
  }

  private reset(): void {
    const fixture = this.core!.fixture();
    if (!fixture.ok) return;
    this.current = fixture.state;
    this.showNotes([]);
    this.recompute();
  }

  private edited(event: Event): void {
    const target = event.target;
    if (!(target instanceof HTMLInputElement) || !this.current) return;
    const size = target.dataset.size as SizeField | undefined;
    const field = target.dataset.field as EditableKey | undefined;
    if (size) {
      this.current = { ...this.current, [size]: target.value };
    } else if (field) {
      // The table's inputs are in row-major order, like the cells.
      const inputs = [...this.shadowRoot!.querySelectorAll(`input[data-field="${field}"]`)];
      const cells = [...this.current[field].cells];
      cells[inputs.indexOf(target)] = target.value;
      this.current = { ...this.current, [field]: { ...this.current[field], cells } };
    } else {
      return;
    }
    this.recompute();
  }

  private recompute(): void {
    const evaluation = this.core!.evaluate(this.current!);
    if (evaluation.ok) {
      this.show(evaluation.state, evaluation.evidence);
      this.announce('Recomputed: Q, K, V, the gradients and the checks are up to date.');
    } else {
      this.reject(evaluation.error);
    }
  }

  private show(state: LessonState, evidence: Evidence): void {
    this.current = state;
    this.clearErrors();
    for (const field of sizeFields) {
      const input = this.sizeInputs[field];
      if (!input.matches(':focus') && input.value !== state[field]) input.value = state[field];
    }
    renderDiagram(this.diagram!, evidence, state);
    this.dataset.rendered = `${++this.renders}`;
    if (this.syncUrl) this.scheduleUrl(state);
    this.dispatchEvent(new CustomEvent('qkv-lesson-rendered', { bubbles: true, composed: true }));
  }

  // The URL follows the last valid state, written once typing pauses (browsers throttle rapid
  // history updates, and the write need not delay the diagram). data-url-revision = data-rendered once
  // the URL shows what is on screen.
  private scheduleUrl(state: LessonState): void {
    clearTimeout(this.urlTimer);
    const revision = `${this.renders}`;
    this.urlTimer = setTimeout(() => {
      history.replaceState(history.state, '', `?${stateToSearch(state, this.selfScore)}${location.hash}`);
      this.dataset.urlRevision = revision;
    }, 150);
  }

  // The last valid diagram stays; the message goes next to the field and to the live region.
  private reject(error: CoreError): void {
    this.clearErrors();
    const root = this.shadowRoot!;
    const field = error.field ?? '';
    let target: HTMLInputElement | null = null;
    let area = this.diagram!.fieldErrors[field];
    if ((sizeFields as readonly string[]).includes(field)) target = this.sizeInputs[field as SizeField];
    else if (error.index !== undefined) target = root.querySelectorAll<HTMLInputElement>(`input[data-field="${field}"]`)[error.index] ?? null;
    if (!area) area = this.sizesError;
    target?.setAttribute('aria-invalid', 'true');
    area.hidden = false;
    area.textContent = `Rejected: ${error.message}. The diagram still shows the last accepted numbers.`;
    this.dataset.error = error.message;
    this.announce(`Rejected: ${error.message}`);
  }

  private clearErrors(): void {
    delete this.dataset.error;
    for (const area of [this.sizesError, ...Object.values(this.diagram!.fieldErrors)]) {
      area.hidden = true;
      area.textContent = '';
    }
    for (const input of this.shadowRoot!.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  }

  // Polite and debounced: one announcement after typing pauses, not one per keystroke.
  private announce(message: string): void {
    clearTimeout(this.announceTimer);
    this.announceTimer = setTimeout(() => {
      this.status.textContent = message;
    }, 400);
  }

  // Tells the course page: a DOM event, a message to the parent frame, and (opt-in) local progress.
  private answered(record: AnswerRecord, replayed: boolean): void {
    if (this.progressKey) {
      try {
        localStorage.setItem(`${this.progressKey}:${record.id}`, JSON.stringify({ responses: record.typed, correct: record.correct }));
      } catch {
        // Storage full or blocked: the answer still counted for this visit.
      }
    }
    if (replayed) return; // restored from storage: already reported when it was answered
    const statement = answerStatement(record);
    this.dispatchEvent(new CustomEvent(answerEvent, { detail: statement, bubbles: true, composed: true }));
    const target = answerTarget(this.getAttribute('parent-origin'));
    if (target) window.parent.postMessage({ type: answerMessageType, statement }, target);
    this.announce(record.correct ? 'Correct answer.' : 'Not quite.');
  }
}
