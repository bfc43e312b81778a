// <qkv-lesson>: the whole lesson as one element, so a course page embeds exactly what learners see here.
// The element is a shell: attributes and properties, connect and disconnect, and rendering. Its state and
// core calls live in a LessonController, its dealings with the host page (URL, storage, messages) in a
// HostBridge. data-state is "loading" until the WebAssembly core is ready, then "ready", or "error".
import katexCss from 'katex/dist/katex.min.css?inline';
import { css as mathLayoutCss } from 'virtual:math';
import lessonCss from './styles.css?inline';
import { answerEvent, answerStatement, challengeId, challengeStatement, type AnswerStatement } from './answers';
import { renderExerciseContext, renderForwardRule, renderIntro, renderNext, renderWorkedPrediction } from './content';
import { LessonController, type Outcome } from './controller';
import { loadCore } from './core';
import { coreLoadError } from './core-load-error';
import { attachProvenance, buildDiagram, openAnswered, renderDiagram, type DiagramRefs } from './diagram';
import { h } from './dom';
import { buildSizesBar, type SizesBar } from './sizes-bar';
import { cellIndexOf } from './tables';
import { readParentOrigin } from './embed-protocol';
import { numberExercises, renderExercise, type AnswerRecord, type ExerciseHandle, type ExerciseProgress, type Reveal } from './exercises';
import { HostBridge } from './host-bridge';
import { attributeProblem, reveals, sectionNames, type SectionName } from './attributes';
import { readLessonProgress, type LessonProgress } from './progress';
import { registerMathFonts } from './fonts';
import { buildScale, type ScaleView } from './scale';
import { buildSelfBias, type SelfBiasView } from './self-bias';
import { messageOf } from './worker-runner';
import { fragmentAnchor, stateToSearch } from './url-state';
import { sizeFields, type CoreError, type EditableKey, type QkvCore, type SizeField } from './types';

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

// Re-exported for the package's types (web/lib).
export type { LessonProgress } from './progress';
export type { SectionName } from './attributes';

export class QkvLessonElement extends HTMLElement {
  // Each observed attribute has a property of the same name (camelCase) that parses it.
  static observedAttributes = ['sync-url', 'sections', 'reveal', 'state', 'progress-key', 'parent-origin', 'theme'];

  private readonly idPrefix = `qkv${++instances}`;
  private started = false;
  private controller?: LessonController;
  private readonly bridge = new HostBridge({
    syncUrl: () => this.syncUrl,
    progressKey: () => this.progressKey,
    parentOrigin: () => this.getAttribute('parent-origin'),
  });
  private diagram?: DiagramRefs;
  private selfBias?: SelfBiasView;
  private scale?: ScaleView;
  private sizesBar?: SizesBar;
  private readonly sectionElements = new Map<SectionName, HTMLElement>();
  private readonly exerciseViews = new Map<string, ExerciseHandle>();
  // What a question needs beside it when it is asked in the exercises list (content.ts).
  private readonly contexts = new Map<string, HTMLElement>();
  // Questions checked, or whose answer the learner asked to see: a fold opens once all its questions are.
  private readonly settled = new Set<string>();
  // Where the chapter's exercise forms go when the diagram is hidden, and the first one's place in the
  // opening prediction.
  private readonly exerciseList = h('div', { class: 'exercise-list' });
  private readonly workedQuestion = h('div', { class: 'worked-question' });
  // A section named by the page URL's #fragment is scrolled to once the whole lesson is laid out.
  private fragmentShown = false;
  private pathOrder: string[] = [];
  private renders = 0;
  // Work this element started and must stop when it leaves the page.
  private idleHandle?: number;
  private firstFrame?: { frame: number; timer?: ReturnType<typeof setTimeout> };
  private warmRounds = 0;
  private pendingProgress?: LessonProgress;
  private challengeSince = 0;
  private challengeReports = 0;
  // Attribute changes since the last update, applied together in one microtask.
  private readonly pending = new Set<string>();
  private readonly onInput = (event: Event) => this.edited(event);
  private readonly onClick = (event: Event) => this.followLink(event);

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
    if (previous === next) return;
    if (name === 'parent-origin') this.checkParentOrigin(next);
    else if (name === 'sections' || name === 'reveal' || name === 'theme') this.checkValue(name, next);
    if (this.pending.size === 0) queueMicrotask(() => this.update());
    this.pending.add(name);
  }

  connectedCallback(): void {
    if (this.started) return this.attach();
    this.started = true;
    const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = lessonSheets();
    registerMathFonts();
    this.dataset.state = 'loading';
    root.replaceChildren(h('p', { class: 'loading', role: 'status' }, 'Loading the lesson’s computation engine…'));
    loadCore().then(
      (core) => {
        // Anything the start throws (a host page's policy refusing the lesson's, say) is shown, not lost.
        try {
          this.start(core);
        } catch (error) {
          this.fail(error, 'The lesson could not start on this page.');
        }
      },
      // The engine could not load: what failed, and Retry, which connects anew (core-load-error.ts).
      (error: unknown) => {
        this.dataset.state = 'error';
        root.replaceChildren(
          coreLoadError(error, () => {
            this.started = false;
            this.connectedCallback();
          }),
        );
      },
    );
  }

  disconnectedCallback(): void {
    this.shadowRoot?.removeEventListener('input', this.onInput);
    this.shadowRoot?.removeEventListener('click', this.onClick);
    this.selfBias?.release();
    this.scale?.release();
    this.sizesBar?.cancel();
    this.bridge.cancel();
    if (this.idleHandle !== undefined) (window.cancelIdleCallback ?? clearTimeout)(this.idleHandle);
    this.idleHandle = undefined;
    if (this.firstFrame) {
      cancelAnimationFrame(this.firstFrame.frame);
      clearTimeout(this.firstFrame.timer);
      this.firstFrame = undefined;
    }
  }

  // Listeners and idle work that connect adds and disconnect removes.
  private attach(): void {
    if (this.dataset.state !== 'ready') return;
    this.shadowRoot!.addEventListener('input', this.onInput);
    this.shadowRoot!.addEventListener('click', this.onClick);
    this.selfBias?.connect();
    if (this.dataset.warmed === undefined) this.warmUp();
    if (this.dataset.laidOut === undefined) this.layOutTheRestAfterThisFrame();
  }

  // Right after the first frame, the rest of the lesson is laid out (in the next frame), all of it from then
  // on as before; data-laid-out and the event qkv-lesson-laid-out mark that. A document the browser does not
  // render gets no animation frame (an off-screen cross-origin iframe, a background tab): without one, the
  // rest is laid out after 500 ms anyway (far more than a rendered page takes to its first frame), so that the
  // lesson's real height, not .visible-first's estimates, is there to report. `timer` holds the one timer
  // pending: cancelled on disconnect, scheduled again on connect.
  private layOutTheRestAfterThisFrame(): void {
    if (this.firstFrame) return;
    const pending: { frame: number; timer?: ReturnType<typeof setTimeout> } = { frame: 0 };
    const layOut = () => {
      cancelAnimationFrame(pending.frame);
      clearTimeout(pending.timer);
      this.firstFrame = undefined;
      this.shadowRoot?.querySelector('article.lesson')?.classList.remove('visible-first');
      this.dataset.laidOut = '';
      this.showFragment();
      this.dispatchEvent(new CustomEvent('qkv-lesson-laid-out', { bubbles: true, composed: true }));
    };
    pending.frame = requestAnimationFrame(() => {
      clearTimeout(pending.timer);
      pending.timer = setTimeout(layOut, 0);
    });
    pending.timer = setTimeout(layOut, 500);
    this.firstFrame = pending;
  }

  // Applies the attribute changes of one task together.
  private update(): void {
    const changed = new Set(this.pending);
    this.pending.clear();
    if (this.dataset.state !== 'ready') return;
    if (changed.has('sections') || changed.has('reveal')) this.applySections();
    if (changed.has('state')) this.show(this.controller!.startFrom(this.state));
  }

  // A link to a section inside the lesson (<a href="#id">): the document cannot see into the shadow root,
  // so the element scrolls to the section itself (and moves focus there, as following a link does).
  private followLink(event: Event): void {
    const link = (event.target as Element | null)?.closest?.('a[href^="#"]');
    if (!link) return;
    const target = this.sectionTarget(link.getAttribute('href')!.slice(1));
    if (!target) return;
    event.preventDefault();
    if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: 'start' });
  }

  // The element with this id in the lesson, if it is shown.
  private sectionTarget(id: string): HTMLElement | null {
    let name = id;
    try {
      name = decodeURIComponent(id);
    } catch {
      // not percent-encoded: use as it is
    }
    const target = name ? this.shadowRoot?.getElementById(name) : null;
    return target && !target.closest('[hidden]') ? target : null;
  }

  // The page URL's #fragment, when it names a section of the lesson: scrolled to once, at ready.
  private showFragment(): void {
    if (this.fragmentShown) return;
    this.fragmentShown = true;
    this.sectionTarget(fragmentAnchor(location.hash))?.scrollIntoView({ block: 'start' }); // #diagram, or #diagram?x=… (url-state.ts)
  }

  // A value the element does not know is said on the console and shown as data-<name>-error.
  private checkValue(name: 'sections' | 'reveal' | 'theme', value: string | null): void {
    const problem = attributeProblem(name, value);
    const key = `${name}Error` as const;
    if (problem) {
      console.warn(`<qkv-lesson>: ${problem}`);
      this.dataset[key] = problem;
    } else delete this.dataset[key];
  }

  /** The learner's work: every question checked or shown, the challenge's text, and the edited numbers. */
  get progress(): LessonProgress {
    const answers: Record<string, ExerciseProgress> = {};
    for (const [id, handle] of this.allExercises()) {
      const progress = handle.progress();
      if (progress) answers[id] = progress;
    }
    const controller = this.controller;
    const edited = controller && JSON.stringify(controller.state) !== JSON.stringify(controller.fixture);
    return { answers, challenge: this.selfBias?.challenge.text.value ?? this.pendingProgress?.challenge ?? '', state: edited ? stateToSearch(controller.state, controller.selfScore) : '' };
  }

  /** Puts saved work back (from a course's store): answers are checked again without answer events. Before
   * ready it is kept and applied at ready. Unreadable parts are ignored. */
  restoreProgress(progress: unknown): void {
    const read = readLessonProgress(progress);
    if (!read) return;
    if (this.dataset.state !== 'ready') {
      this.pendingProgress = read;
      return;
    }
    this.applyProgress(read);
  }

  /** The ids of the questions shown, in reading order (a course's maximum score). */
  get exerciseIds(): string[] {
    const root = this.shadowRoot;
    if (this.dataset.state !== 'ready' || !root) return [];
    return [...root.querySelectorAll<HTMLFormElement>('form.exercise')].filter((form) => !form.closest('[hidden]')).map((form) => form.dataset.exercise!);
  }

  private *allExercises(): Iterable<[string, ExerciseHandle]> {
    yield* this.exerciseViews;
    if (this.selfBias) yield* this.selfBias.exercises;
  }

  private applyProgress(progress: LessonProgress): void {
    if (progress.state) this.show(this.controller!.startFrom(progress.state));
    const handles = new Map(this.allExercises());
    for (const [id, saved] of Object.entries(progress.answers)) handles.get(id)?.replay(saved);
    if (this.selfBias && progress.challenge) this.selfBias.challenge.text.value = progress.challenge;
    this.progressChanged();
  }

  // Tells the course page the learner's work changed (a SCORM launch page keeps it as suspend_data).
  private progressChanged(): void {
    if (this.dataset.state !== 'ready') return;
    this.dispatchEvent(new CustomEvent('qkv-lesson-progress', { detail: this.progress, bubbles: true, composed: true }));
  }

  // A parent-origin that names no origin is said on the console and shown as data-parent-origin-error.
  private checkParentOrigin(value: string | null): void {
    const { problem } = readParentOrigin(value);
    if (problem) {
      console.warn(`<qkv-lesson>: ${problem}`);
      this.dataset.parentOriginError = problem;
    } else delete this.dataset.parentOriginError;
  }

  private fail(error: unknown, what = 'The lesson could not start: its computation engine (WebAssembly) did not load in this browser.'): void {
    this.dataset.state = 'error';
    const detail = messageOf(error);
    this.shadowRoot?.replaceChildren(
      h(
        'div',
        { class: 'load-error', role: 'alert' },
        h('p', {}, what),
        h('p', {}, `Reason: ${detail}`),
      ),
    );
  }

  private start(core: QkvCore): void {
    const startedAt = performance.now();
    let controller: LessonController;
    try {
      controller = new LessonController(core);
    } catch (error) {
      return this.fail(error);
    }
    this.controller = controller;
    controller.selfScore = this.bridge.linkSelfScore(controller.selfScore) ?? controller.selfScore;
    const chapterExercises = controller.exercises('ch26-');

    const diagram = buildDiagram(this.idPrefix);
    this.diagram = diagram;
    diagram.explain = (tensor, index) => controller.provenance(tensor, index);
    attachProvenance(diagram);
    // One form per exercise; applySections puts it where the learner will meet it, and numbers it.
    for (const view of chapterExercises) {
      const handle = renderExercise(view, {
        idPrefix: `${this.idPrefix}-exercise`,
        check: (exerciseId, responses) => controller.check(exerciseId, responses),
        reveal: () => this.reveal,
        onAnswer: (record, replayed) => {
          this.settle(record.id);
          this.answered(record, replayed);
        },
        onShown: (id, replayed) => this.shown(id, replayed),
      });
      this.exerciseViews.set(view.id, handle);
      const context = renderExerciseContext(view.id, controller.fixtureEvidence);
      if (context) this.contexts.set(view.id, context);
    }
    // In the exercises section (when the diagram is hidden), the questions keep the lesson's path order.
    const pathOrder = diagram.pathOrder.filter((id) => this.exerciseViews.has(id));
    for (const id of this.exerciseViews.keys()) if (!pathOrder.includes(id)) pathOrder.push(id);
    this.pathOrder = pathOrder;

    this.scale = buildScale(this.idPrefix);
    this.selfBias = buildSelfBias(
      core,
      this.idPrefix,
      controller.selfScore,
      () => this.reveal,
      (record, replayed) => {
        this.settle(record.id);
        this.answered(record, replayed);
      },
      (id, replayed) => this.shown(id, replayed),
      (settings) => {
        controller.selfScore = settings;
        this.writeUrl();
      },
    );

    this.sizesBar = buildSizesBar(this.idPrefix, controller.sizeLimits, () => this.show(controller.reset()));
    const sections: Record<SectionName, HTMLElement> = {
      prediction: renderWorkedPrediction(controller.fixtureEvidence, this.workedQuestion),
      rule: renderForwardRule(),
      diagram: h(
        'section',
        { class: 'diagram-section', 'aria-labelledby': `${this.idPrefix}-diagram-title` },
        this.sizesBar.element,
        diagram.root,
      ),
      scale: this.scale.element,
      exercises: h(
        'section',
        { class: 'exercises', 'aria-labelledby': `${this.idPrefix}-exercises-title` },
        h('h3', { id: `${this.idPrefix}-exercises-title` }, 'Predict, then check'),
        h('p', {}, 'Answer each question, then check it: the core compares your answer with what it computed for the frozen fixture. A wrong answer gets a hint and a second try.'),
        this.exerciseList,
      ),
      'self-bias': this.selfBias.element,
      next: renderNext(),
    };
    for (const name of sectionNames) {
      sections[name].dataset.section = name;
      sections[name].id = name; // a link target: #diagram, #self-bias…
      this.sectionElements.set(name, sections[name]);
    }
    // .visible-first: the first frame lays out only the parts near the viewport (styles.css). The optional
    // part (reverse mode, the checks, rejected inputs) comes after the main path, with the diagram.
    const article = h('article', { class: 'lesson visible-first', lang: 'en', part: 'lesson' }, renderIntro(), ...sectionNames.map((name) => sections[name]), diagram.deeper);
    this.shadowRoot!.replaceChildren(article);
    this.applySections();

    // A shared link wins over the author's starting state; without either, the fixture.
    this.show(controller.startFrom(this.bridge.linkState() ?? this.state));
    this.watchChallenge();
    this.restoreSavedWork();
    this.dataset.state = 'ready';
    performance.measure('qkv-lesson-start', { start: startedAt }); // core loaded → ready
    performance.mark('qkv-lesson-ready'); // navigation → ready, for bench/engines-ready.mjs
    this.dispatchEvent(new CustomEvent('qkv-lesson-ready', { bubbles: true, composed: true }));
    if (this.isConnected) this.attach();
  }

  // WebAssembly starts in a baseline tier; a few evaluations while the browser is idle let it compile the
  // hot code optimised before the learner's first edit. Nothing is rendered; data-warmed marks the end. Each
  // round waits for idle time, 2 s at most (a sandboxed frame may get none), or 50 ms where the browser has no
  // requestIdleCallback (WebKit).
  private warmUp(): void {
    const idle = (callback: () => void): number =>
      window.requestIdleCallback ? window.requestIdleCallback(callback, { timeout: 2000 }) : (setTimeout(callback, 50) as unknown as number);
    const step = () => {
      const start = performance.now();
      for (let i = 0; i < 5; i++) this.controller!.rehearse();
      performance.measure('qkv-lesson-warm-up', { start });
      if (++this.warmRounds < 8) this.idleHandle = idle(step);
      else {
        this.idleHandle = undefined;
        this.dataset.warmed = '';
      }
    };
    this.idleHandle = idle(step);
  }

  private applySections(): void {
    const shown = this.sections;
    for (const [name, element] of this.sectionElements) element.hidden = !shown.includes(name);
    this.diagram!.deeper.hidden = !shown.includes('diagram');
    this.placeLookAhead(shown);
    this.placeExercises(shown);
    numberExercises(this.shadowRoot!);
    openAnswered(this.shadowRoot!, this.reveal === 'always' ? undefined : this.settled);
  }

  // What the views are for comes right after Q, K and V: in the diagram after the branches, or, when the
  // diagram is hidden, at the end of the opening prediction (right after its question and its comment).
  private placeLookAhead(shown: SectionName[]): void {
    const { lookAhead, lookAheadHome } = this.diagram!;
    if (!shown.includes('diagram') && shown.includes('prediction')) this.sectionElements.get('prediction')!.append(lookAhead);
    else lookAheadHome.append(lookAhead);
  }

  // Each chapter question sits where the learner meets it: the first-token question in the opening
  // prediction, the others right before the evidence that answers them; when those parts are hidden, in
  // the exercises section's list (in the lesson's path order). A section with no question left is hidden.
  private placeExercises(shown: SectionName[]): void {
    const visible = (home: HTMLElement | undefined): home is HTMLElement => home !== undefined && !home.closest('[hidden]');
    for (const id of this.pathOrder) {
      const form = this.exerciseViews.get(id)!.form;
      const homes = [id === 'ch26-first-token' ? this.workedQuestion : undefined, this.diagram!.predictions[id]];
      const home = homes.find(visible);
      const context = this.contexts.get(id);
      if (home) {
        context?.remove();
        home.append(form);
      } else this.exerciseList.append(...(context ? [context] : []), form);
    }
    const listed = this.exerciseList.querySelector('form') !== null;
    this.sectionElements.get('exercises')!.hidden = !shown.includes('exercises') || !listed;
  }

  // A question was checked or its answer shown: open the folds whose questions are now all settled.
  private settle(id: string): void {
    this.settled.add(id);
    openAnswered(this.shadowRoot!, this.reveal === 'always' ? undefined : this.settled);
  }

  // Work saved under progress-key, then work a course handed over before ready (restoreProgress).
  private restoreSavedWork(): void {
    for (const [id, handle] of this.allExercises()) {
      const saved = this.bridge.savedProgress(id);
      if (saved) handle.replay(saved);
    }
    const challenge = this.bridge.savedProgress(challengeId)?.responses[0];
    if (challenge && this.selfBias) this.selfBias.challenge.text.value = challenge;
    const pending = this.pendingProgress;
    this.pendingProgress = undefined;
    if (pending) this.applyProgress(pending);
  }

  // The challenge is kept as it is typed, and reported once the learner leaves the box after changing it.
  private watchChallenge(): void {
    const { text, modelAnswer, question } = this.selfBias!.challenge;
    this.challengeSince = performance.now();
    let modelSeen = false;
    modelAnswer.addEventListener('toggle', () => (modelSeen ||= modelAnswer.open));
    text.addEventListener('input', () => {
      this.bridge.saveProgress(challengeId, { responses: [text.value], correct: false, attempts: this.challengeReports, revealed: modelSeen });
      this.progressChanged();
    });
    text.addEventListener('change', () => {
      const now = performance.now();
      const statement = challengeStatement(question, text.value, now - this.challengeSince, ++this.challengeReports);
      statement.context.extensions['urn:qkv-lesson:revealed'] = modelSeen;
      this.challengeSince = now;
      this.report(statement);
    });
  }

  private edited(event: Event): void {
    const target = event.target;
    if (!(target instanceof HTMLInputElement) || !this.controller) return;
    const start = performance.now();
    const size = target.dataset.size as SizeField | undefined;
    const field = target.dataset.field as EditableKey | undefined;
    let outcome: Outcome;
    if (size) {
      outcome = this.controller.editSize(size, target.value);
    } else if (field) {
      const index = cellIndexOf(target);
      if (index === undefined) return;
      outcome = this.controller.editCell(field, index, target.value);
    } else {
      return;
    }
    this.show(outcome, true);
    performance.measure('qkv-lesson-edit', { start }); // an edit's time on the page's thread (bench/engines-ready.mjs)
  }

  // New numbers, or the core's error with the last accepted diagram left on screen.
  private show(outcome: Outcome, edited = false): void {
    if (!outcome.ok) {
      this.reject(outcome.error);
      if (outcome.notes.length) this.sizesBar!.showNotes(outcome.notes);
      return;
    }
    const { state, evidence } = outcome;
    this.clearErrors();
    if (!edited || outcome.notes.length) this.sizesBar!.showNotes(outcome.notes);
    this.sizesBar!.showSizes(state);
    renderDiagram(this.diagram!, evidence, state);
    if (edited) this.announce('Recomputed: Q, K, V, the gradients and the checks are up to date.');
    else if (outcome.notes.length) this.announce(outcome.notes.join(' '));
    if (outcome.changed) this.dataset.rendered = `${++this.renders}`;
    this.writeUrl();
    if (outcome.changed) this.dispatchEvent(new CustomEvent('qkv-lesson-rendered', { bubbles: true, composed: true }));
    if (edited && outcome.changed) this.progressChanged();
  }

  // The URL follows the last valid state; data-url-revision = data-rendered once it shows what is on screen.
  private writeUrl(): void {
    const controller = this.controller;
    if (!controller) return;
    const revision = `${this.renders}`;
    this.bridge.scheduleUrl(controller.state, controller.selfScore, () => (this.dataset.urlRevision = revision));
  }

  // The last valid diagram stays; the message goes next to the field and to the live region.
  private reject(error: CoreError): void {
    this.clearErrors();
    const root = this.shadowRoot!;
    const field = error.field;
    let target: HTMLInputElement | null = null;
    let area = this.diagram!.fieldErrors[field];
    if ((sizeFields as readonly string[]).includes(field)) target = this.sizesBar!.inputs[field as SizeField];
    else if (error.index >= 0) target = root.querySelector<HTMLInputElement>(`input[data-field="${field}"][data-index="${error.index}"]`);
    if (!area) area = this.sizesBar!.error;
    target?.setAttribute('aria-invalid', 'true');
    area.hidden = false;
    area.textContent = `Rejected: ${error.message}. The diagram still shows the last accepted numbers.`;
    this.dataset.error = error.message;
    this.announce(`Rejected: ${error.message}`);
  }

  private clearErrors(): void {
    delete this.dataset.error;
    for (const area of [this.sizesBar!.error, ...Object.values(this.diagram!.fieldErrors)]) {
      area.hidden = true;
      area.textContent = '';
    }
    for (const input of this.shadowRoot!.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  }

  private announce(message: string): void {
    this.sizesBar?.announce(message);
  }

  // A question's answer was shown: its folds may open, and the course may keep that.
  private shown(id: string, replayed: boolean): void {
    this.settle(id);
    if (replayed) return;
    const progress = this.handleOf(id)?.progress();
    if (progress) this.bridge.saveProgress(id, progress);
    this.progressChanged();
  }

  private handleOf(id: string): ExerciseHandle | undefined {
    return this.exerciseViews.get(id) ?? this.selfBias?.exercises.get(id);
  }

  // Tells the course page: a DOM event, a message to the parent frame, and (opt-in) local progress.
  private answered(record: AnswerRecord, replayed: boolean): void {
    const progress = this.handleOf(record.id)?.progress();
    if (progress) this.bridge.saveProgress(record.id, progress);
    if (replayed) return; // restored from storage: already reported when it was answered
    this.report(answerStatement(record));
    this.announce(record.correct ? 'Correct answer.' : 'Not quite.');
    this.progressChanged();
  }

  private report(statement: AnswerStatement): void {
    this.dispatchEvent(new CustomEvent(answerEvent, { detail: statement, bubbles: true, composed: true }));
    this.bridge.postAnswer(statement);
  }
}
