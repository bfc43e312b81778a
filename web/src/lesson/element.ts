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
import { exercises, renderExercise, type AnswerRecord } from './exercises';
import { registerMathFonts } from './fonts';
import { sizeFields, type CoreError, type EditableKey, type Evidence, type LessonState, type QkvCore, type SizeField } from './types';
import { stateFromSearch, stateToSearch } from './url-state';

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

export class QkvLessonElement extends HTMLElement {
  static observedAttributes = ['sync-url'];

  private readonly idPrefix = `qkv${++instances}`;
  private started = false;
  private core?: QkvCore;
  private state?: LessonState;
  private evidence?: Evidence;
  private diagram?: DiagramRefs;
  private readonly status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  private readonly sizeInputs = {} as Record<SizeField, HTMLInputElement>;
  private readonly sizesError = h('p', { class: 'field-error', id: `${this.idPrefix}-error-sizes`, hidden: true });
  private announceTimer?: ReturnType<typeof setTimeout>;
  private renders = 0;

  get syncUrl(): boolean {
    return this.hasAttribute('sync-url');
  }
  set syncUrl(value: boolean) {
    this.toggleAttribute('sync-url', value);
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
    const fixture = core.fixtureState();
    if (!fixture.ok) return this.fail(new Error(fixture.error.message));
    const fixtureEvaluation = core.evaluateLesson(fixture.state);
    if (!fixtureEvaluation.ok) return this.fail(new Error(fixtureEvaluation.error.message));

    const diagram = buildDiagram(this.idPrefix);
    this.diagram = diagram;
    const worked = exercises.find((spec) => spec.id === 'ch26-first-token')!;
    const check = (id: string, responses: string[]) => core.checkExercise(id, responses);
    const onAnswer = (record: AnswerRecord) => this.answered(record);

    this.shadowRoot!.replaceChildren(
      h(
        'article',
        { class: 'lesson', lang: 'en' },
        renderIntro(),
        renderWorkedPrediction(fixtureEvaluation.evidence, renderExercise(worked, 0, `${this.idPrefix}-worked`, check, onAnswer)),
        renderForwardRule(),
        h(
          'section',
          { class: 'diagram-section', 'aria-labelledby': `${this.idPrefix}-diagram-title` },
          this.renderControls(),
          diagram.root,
        ),
        h(
          'section',
          { class: 'exercises', 'aria-labelledby': `${this.idPrefix}-exercises-title` },
          h('h3', { id: `${this.idPrefix}-exercises-title` }, 'Predict before reading the evidence'),
          h('p', {}, 'Answer each question, then check it: the core compares your answer with what it computed for the frozen fixture.'),
          ...exercises.map((spec, i) => renderExercise(spec, i + 1, `${this.idPrefix}-exercise`, check, onAnswer)),
        ),
        renderNext(),
      ),
    );
    this.shadowRoot!.addEventListener('input', (event) => this.edited(event));

    const linked = this.syncUrl ? stateFromSearch(location.search) : null;
    if (linked) {
      const evaluation = core.evaluateLesson(linked);
      if (evaluation.ok) {
        this.show(evaluation.state, evaluation.evidence);
      } else {
        this.show(fixture.state, fixtureEvaluation.evidence);
        this.announce(`The link’s numbers were rejected (${evaluation.error.message}); showing the frozen fixture.`);
      }
    } else {
      this.show(fixture.state, fixtureEvaluation.evidence);
    }
    this.dataset.state = 'ready';
    this.dispatchEvent(new CustomEvent('qkv-lesson-ready', { bubbles: true, composed: true }));
  }

  private renderControls(): HTMLElement {
    const fields = sizeFields.map((field) => {
      const id = `${this.idPrefix}-size-${field}`;
      const input = h('input', {
        id,
        type: 'text',
        inputmode: 'numeric',
        autocomplete: 'off',
        'data-size': field,
        'aria-describedby': this.sizesError.id,
      });
      this.sizeInputs[field] = input;
      return h('p', { class: 'size' }, h('label', { for: id }, sizeLabels[field]), input);
    });
    const reset = h('button', { type: 'button', class: 'reset' }, 'Reset to the frozen fixture');
    reset.addEventListener('click', () => this.reset());
    return h(
      'div',
      { class: 'controls' },
      h('fieldset', { class: 'sizes' }, h('legend', {}, 'Sizes (0 to 8; edit any cell below too)'), ...fields, reset),
      this.sizesError,
      this.status,
    );
  }

  private reset(): void {
    const fixture = this.core!.fixtureState();
    if (!fixture.ok) return;
    this.state = fixture.state;
    this.recompute();
  }

  private edited(event: Event): void {
    const target = event.target;
    if (!(target instanceof HTMLInputElement) || !this.state) return;
    const size = target.dataset.size as SizeField | undefined;
    const field = target.dataset.field as EditableKey | undefined;
    if (size) {
      this.state = { ...this.state, [size]: target.value };
    } else if (field) {
      // The table's inputs are in row-major order, like the cells.
      const inputs = [...this.shadowRoot!.querySelectorAll(`input[data-field="${field}"]`)];
      const cells = [...this.state[field].cells];
      cells[inputs.indexOf(target)] = target.value;
      this.state = { ...this.state, [field]: { ...this.state[field], cells } };
    } else {
      return;
    }
    this.recompute();
  }

  private recompute(): void {
    const evaluation = this.core!.evaluateLesson(this.state!);
    if (evaluation.ok) {
      this.show(evaluation.state, evaluation.evidence);
      this.announce('Recomputed: Q, K, V, the gradients and the checks are up to date.');
    } else {
      this.reject(evaluation.error);
    }
  }

  private show(state: LessonState, evidence: Evidence): void {
    this.state = state;
    this.evidence = evidence;
    this.clearErrors();
    for (const field of sizeFields) {
      const input = this.sizeInputs[field];
      if (!input.matches(':focus') && input.value !== state[field]) input.value = state[field];
    }
    renderDiagram(this.diagram!, evidence, state);
    this.dataset.rendered = `${++this.renders}`;
    if (this.syncUrl) history.replaceState(history.state, '', `?${stateToSearch(state)}${location.hash}`);
    this.dispatchEvent(new CustomEvent('qkv-lesson-rendered', { bubbles: true, composed: true }));
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

  private answered(record: AnswerRecord): void {
    const spec = exercises.find((candidate) => candidate.id === record.id)!;
    const statement = answerStatement(record, spec.question);
    this.dispatchEvent(new CustomEvent(answerEvent, { detail: statement, bubbles: true, composed: true }));
    if (window.parent !== window) window.parent.postMessage({ type: answerMessageType, statement }, '*');
    this.announce(record.check.correct ? 'Correct answer.' : 'Not quite; the answer is shown.');
  }
}
