// <qkv-lesson>: the whole lesson as one element, so a course page embeds exactly what learners see here.
// The element is a shell: attributes and properties, connect and disconnect, and the sections put together. Its
// state and core calls live in a LessonController, its dealings with the host page (URL, storage, messages) in a
// HostBridge, and each part the learner sees in a component of its own (diagram-section.ts, questions.ts,
// self-score.ts, scale.ts, challenge.ts, content.ts). data-state is "loading" until the WebAssembly core is
// ready, then "ready", or "error".
import { answerEvent, answerStatement, challengeId, shownStatement, type AnswerStatement } from './answers';
import { LessonAttributes, changesPrerender, gradingAttributes } from './attributes';
import { watchChallenge } from './challenge';
import { LessonController, type Outcome } from './controller';
import { CoreLoadError, loadCore, restartCore } from './core';
import { stoppedBy } from './core-boundary';
import { coreLoadError } from './core-load-error';
import { h } from './dom';
import type { AnswerRecord, ExerciseHandle, ExerciseProgress, ShownBy } from './exercises';
import { exerciseProse } from './exercises';
import { loadMathFonts, registerMathFonts } from './fonts';
import { GradedRun } from './graded-run';
import { HostBridge } from './host-bridge';
import { layOutInSteps } from './laid-out';
import { LessonRecord, defaultActivityId } from './lesson-record';
import { LessonView, lessonSheets } from './lesson-view';
import { dropPrerendered, keepPrerendered, showView, shownBefore } from './prerendered';
import { collectProgress, readLessonProgress, type LessonProgress } from './progress';
import { followLink, returnFromLink, showFragment } from './section-links';
import { cellIndexOf } from './tables';
import { linkPrefixFor } from './url-state';
import { WarmUp } from './warm-up';
import { messageOf } from './worker-runner';
import type { EditableKey, QkvCore, SizeField } from './types';
import type { OutcomeResponseMembers } from './core-api';

/** The events <qkv-lesson> fires; all bubble and are composed. */
export interface QkvLessonEventMap {
  /** The WebAssembly core is loaded and the lesson rendered (data-state="ready"). */
  'qkv-lesson-ready': CustomEvent<null>;
  /** After every accepted edit of the numbers. */
  'qkv-lesson-rendered': CustomEvent<null>;
  /** Each check of an answer (and the challenge's text when the learner leaves its box). */
  [answerEvent]: CustomEvent<AnswerStatement>;
  /** The learner's work changed (a SCORM launch page keeps it as suspend_data). */
  'qkv-lesson-progress': CustomEvent<LessonProgress>;
  /** The whole lesson is laid out (data-laid-out): top down, a few stretches a frame after ready. */
  'qkv-lesson-laid-out': CustomEvent<null>;
}

let instances = 0;
// A lesson event with the detail its map entry names (none for a null detail).
function event<Name extends keyof QkvLessonEventMap>(name: Name, ...[detail]: QkvLessonEventMap[Name]['detail'] extends null ? [] : [QkvLessonEventMap[Name]['detail']]) {
  return new CustomEvent(name, { detail: detail ?? null, bubbles: true, composed: true });
}

/** The core's grading of the questions shown (`lesson.outcome()`): right, settled, score, completed, passed. */
export type LessonOutcome = OutcomeResponseMembers;

export class QkvLessonElement extends LessonAttributes {
  private readonly idPrefix = `qkv${++instances}`;
  private started = false;
  private controller?: LessonController;
  private readonly bridge = new HostBridge({
    linkPrefix: () => linkPrefixFor(this.getAttribute('sync-url')),
    progressKey: () => this.progressKey,
    parentOrigin: () => this.getAttribute('parent-origin'),
    notKept: (words) => this.sayNotKept(words),
  });
  private view?: LessonView;
  private prerendered: HTMLElement | null = null; // the opening's article the build prerendered, kept until ready
  private readonly gradedRun = new GradedRun(this, (questions, options) => this.controller!.outcome(questions, options));
  private warmUp?: WarmUp;
  private cancelLayOut?: () => void;
  private renders = 0;
  private pendingProgress?: LessonProgress; // handed over before ready (restoreProgress)
  private readonly pending = new Set<string>(); // attribute changes since the last update (one microtask)
  private readonly onInput = (event: Event) => this.edited(event);
  private readonly onClick = (event: Event) => followLink(this.shadowRoot!, event);
  private readonly record = new LessonRecord(() => this.activityId ?? defaultActivityId(location.href), (statement) => this.report(statement));
  private readonly onPageHide = () => this.record.leave();
  private readonly onPageShow = (event: PageTransitionEvent) => event.persisted && this.record.begin();
  // Back after an in-lesson link: the place the learner left, and the page URL showing today's numbers again
  // (the entry gone back to holds the link written before the link was followed).
  private readonly onPopState = (event: PopStateEvent) => {
    if (this.shadowRoot && returnFromLink(this.shadowRoot, event)) this.writeUrl();
  };

  attributeChangedCallback(name: string, previous: string | null, next: string | null): void {
    if (previous === next) return;
    if (name === 'parent-origin' || name === 'sections' || name === 'reveal' || name === 'theme' || name === 'activity-id') this.checkValue(name, next);
    if (name === 'progress-key' && this.isConnected) this.claimProgressKey();
    if (this.dataset.state === 'loading' && this.shadowRoot && !this.startsAsPrerendered()) dropPrerendered(this.shadowRoot);
    if (this.pending.size === 0) queueMicrotask(() => this.update());
    this.pending.add(name);
  }

  connectedCallback(): void {
    this.claimProgressKey();
    if (this.started) return this.attach();
    this.started = true;
    const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = lessonSheets();
    registerMathFonts();
    this.dataset.state = 'loading';
    delete this.dataset.coreScriptRefused;
    // The opening the build prerendered stays, with the loading line below it, unless the lesson starts elsewhere.
    const loading = h('p', { class: 'loading', role: 'status' }, 'Loading the lesson’s computation engine…');
    this.prerendered = keepPrerendered(root, this.startsAsPrerendered());
    if (this.prerendered) root.append(loading);
    else root.replaceChildren(loading);
    // The engine could not load: what failed, and Retry, which connects anew (core-load-error.ts).
    const notLoaded = (error: unknown) => {
      this.dataset.state = 'error';
      // For the built pages' mend-damaged-files.js: a damaged copy of the engine's script is mended by a reload.
      if (error instanceof CoreLoadError && error.scriptRefused) this.dataset.coreScriptRefused = '';
      const region = coreLoadError(error, () => {
        region.remove();
        this.started = false;
        this.connectedCallback();
      });
      // A core that did not load leaves the prerendered opening where it is, with what the learner typed in it (and
      // the field they are in keeps its focus): the error goes above it, in place of the loading line. A start lets
      // go of the opening as it begins (build), so what a failed start left is replaced whole.
      const opening = this.prerendered;
      if (opening?.parentNode === root) {
        loading.remove();
        opening.before(region);
      } else root.replaceChildren(region);
    };
    loadCore().then((core) => this.startOn(core, notLoaded), notLoaded);
  }

  // Starts on `core`. A trap during the start (the boundary stops the instance: core-boundary.ts) gets one fresh
  // instance of the compiled module, which starts from nothing; it is said in data-core-restarted and on the
  // console (info: the learner lost nothing). A second trap, or anything else the start throws (a host page's
  // policy refusing the lesson's, say), is shown. A trap after the start reaches the learner as the refusal of
  // that edit or answer, in the boundary's words, with the last numbers left on screen.
  private startOn(core: QkvCore, notLoaded: (error: unknown) => void, restarted = false): void {
    const startedAt = performance.now();
    loadMathFonts();
    let failure: { error: unknown } | undefined;
    try {
      this.build(core);
    } catch (error) {
      failure = { error };
    }
    // The one check for a trap: the boundary refused the call that met it, and whatever the start threw after.
    const trap = stoppedBy(core);
    if (trap && !restarted) {
      this.view?.release();
      this.dataset.coreRestarted = trap.message;
      console.info(`qkv-lesson: the lesson’s engine stopped while starting (${trap.message}); starting a fresh one.`);
      restartCore().then((fresh) => this.startOn(fresh, notLoaded, true), notLoaded);
      return;
    }
    if (trap) return this.fail(trap);
    // Without a controller the engine itself failed (its fixture); with one, something on this page refused the rest.
    if (failure) return this.fail(failure.error, this.controller ? 'The lesson could not start on this page.' : undefined);
    this.becomeReady(startedAt);
  }

  // The prerendered opening shows the fixture with every section: no attribute or shared link asks otherwise.
  private startsAsPrerendered(): boolean {
    return ![...this.getAttributeNames()].some(changesPrerender) && this.bridge.linkState() === null;
  }

  disconnectedCallback(): void {
    this.shadowRoot?.removeEventListener('input', this.onInput);
    this.shadowRoot?.removeEventListener('click', this.onClick);
    removeEventListener('pagehide', this.onPageHide);
    removeEventListener('pageshow', this.onPageShow);
    removeEventListener('popstate', this.onPopState);
    this.record.leave();
    this.view?.release();
    this.bridge.cancel();
    this.warmUp?.stop();
    this.cancelLayOut?.();
    this.cancelLayOut = undefined;
  }

  // A progress-key another lesson on this page has is said on the console and in data-progress-key-error, once.
  private claimProgressKey(): void {
    const problem = this.bridge.claimProgressKey();
    if (problem && problem !== this.dataset.progressKeyError) console.warn(`<qkv-lesson>: ${problem}`);
    if (problem) this.dataset.progressKeyError = problem;
    else delete this.dataset.progressKeyError;
  }

  // The learner's answers are not being kept (host-bridge.ts): said in the lesson, and in data-answers-not-kept.
  private sayNotKept(words: string): void {
    this.dataset.answersNotKept = words;
    this.view?.noteNotKept(words);
  }

  // Listeners and idle work that connect adds and disconnect removes.
  private attach(): void {
    if (this.dataset.state !== 'ready') return;
    this.shadowRoot!.addEventListener('input', this.onInput);
    this.shadowRoot!.addEventListener('click', this.onClick);
    addEventListener('pagehide', this.onPageHide);
    addEventListener('pageshow', this.onPageShow);
    addEventListener('popstate', this.onPopState);
    this.record.begin();
    // data-laid-out and qkv-lesson-laid-out: the whole lesson is laid out (laid-out.ts); then a section the
    // page URL's #fragment names is scrolled to, once, and the idle work starts (the checks, the self-score
    // experiment, the warm-up), which would otherwise share frames with the layout's.
    if (this.dataset.laidOut !== undefined) return this.startIdleWork();
    if (this.cancelLayOut) return;
    this.cancelLayOut = layOutInSteps(this.view!.article, () => {
      this.cancelLayOut = undefined;
      this.dataset.laidOut = '';
      showFragment(this.shadowRoot!);
      this.dispatchEvent(event('qkv-lesson-laid-out'));
      this.startIdleWork();
    });
  }

  private startIdleWork(): void {
    this.view!.connect();
    this.warmUp?.start();
  }

  // Applies the attribute changes of one task together.
  private update(): void {
    const changed = new Set(this.pending);
    this.pending.clear();
    if (this.dataset.state !== 'ready') return;
    if (changed.has('sections') || changed.has('reveal')) this.applySections();
    if (changed.has('state') || changed.has('attempt-key')) this.show(this.controller!.startFrom(this.state, this.attemptKey));
    if (changed.has('example')) void this.startFromExample();
    if (['sections', 'attempt-key', ...gradingAttributes].some((name) => changed.has(name))) this.gradingChanged();
  }

  /** A launcher's passing fraction from the LMS (0 to 1, exact): the pass mark outcome() and the results use, over
   * passing-score. null: passing-score, else the default. */
  get passingFraction(): number | null {
    return this.gradedRun.passingFraction;
  }
  set passingFraction(value: number | null) {
    this.gradedRun.passingFraction = value;
    if (this.dataset.state === 'ready') this.showResults();
  }

  // The grading attributes checked again (each problem said once), "Another one" offered or not, the results shown.
  // Returns the core's outcome both were shown from (asked once: at ready it is the record's too).
  private gradingChanged(): LessonOutcome | null {
    this.gradedRun.check(this.standings());
    this.view!.anotherOne.graded(this.attemptKey !== '');
    const graded = this.graded();
    this.applyAllowances(graded);
    this.showResults(graded);
    return graded;
  }

  // Each question shown, its Check as the core's outcome has it, wherever grading may have changed: the grading
  // attributes, the sections shown, a check, saved work put back. Before ready no question is shown, none is touched.
  private applyAllowances(graded = this.graded()): void {
    if (!graded) return;
    const checksNotes = new Map(graded.questions.map((question) => [question.id, question.checks_note]));
    for (const [id, handle] of this.allExercises()) if (checksNotes.has(id)) handle.applyAllowance(checksNotes.get(id)!);
  }

  // "Your results" in a graded run, from the core's outcome (`graded`, when the caller has it).
  private showResults(graded = this.gradedRun.active ? this.graded() : null): void {
    const root = this.shadowRoot!;
    this.view?.results.show(this.gradedRun.active ? graded : null, (id) => root.querySelector<HTMLFormElement>(`form.exercise[data-exercise="${CSS.escape(id)}"]`) ?? undefined);
  }

  /** The seed of the drawn problem on screen (an attempt's own, a link's or "Another one"'s) while its numbers are as
   * drawn; null otherwise. Launchers record it with a graded attempt. */
  get problemSeed(): string | null {
    return this.controller?.variantSeed ?? null;
  }

  // The author's example file (the `example` attribute), fetched and handed to the core; one that cannot be fetched
  // or parsed, or that the core refuses, leaves the fixture on screen and says why (controller.refuseExample).
  private async startFromExample(): Promise<void> {
    const controller = this.controller!;
    if (!this.example) return this.show(controller.startFrom(this.state, this.attemptKey));
    let file: unknown;
    try {
      const response = await fetch(new URL(this.example, document.baseURI));
      if (!response.ok) throw new Error(`${this.example} answered HTTP ${response.status}`);
      file = await response.json();
    } catch (error) {
      return this.show(controller.refuseExample(messageOf(error)));
    }
    if (controller === this.controller) this.show(controller.startFromExample(file));
  }

  /** The learner's work: every question checked or shown, the challenge's text, and the edited numbers. */
  get progress(): LessonProgress {
    const controller = this.controller;
    const challenge = this.view?.selfScoreSection.challenge.text.value ?? this.pendingProgress?.challenge ?? '';
    return collectProgress(this.allExercises(), challenge, controller?.edited ? controller.link() : '', this.record.registration, this.view?.anotherOne.run());
  }

  /** Puts saved work back (from a course's store): answers are checked again without answer events. Before
   * ready it is kept and applied at ready. Unreadable parts are ignored. */
  restoreProgress(progress: unknown): void {
    const read = readLessonProgress(progress);
    if (!read) return;
    if (this.dataset.state === 'ready') return this.applyProgress(read);
    this.pendingProgress = read;
    if (read.state && this.shadowRoot) dropPrerendered(this.shadowRoot); // other numbers at ready
  }

  /** Forgets the work kept under progress-key (every answer, the challenge's text, the attempt's registration);
   * what is on screen stays until the page reloads. False when the browser's storage refused. */
  forgetKeptProgress(): boolean {
    return this.bridge.forgetProgress();
  }

  /** The core's grading of the questions shown, under the passing fraction given, else the launcher's
   * (passingFraction), else passing-score, else 0.8; with the attempts and graded-questions attributes. Null before
   * ready or when the core refuses the fraction. A shown answer never counts. */
  outcome(passing?: number): LessonOutcome | null {
    // A copy: what the host does with it must not change the outcome the controller keeps for the lesson.
    return structuredClone(this.graded(passing));
  }

  // The core's outcome as the controller keeps it (outcome() without the copy), for the lesson's own reading.
  private graded(passing?: number): LessonOutcome | null {
    const { passing: _launcher, passing_percent: _author, ...options } = this.gradedRun.options();
    const graded = this.controller?.outcome(this.standings(), passing === undefined ? this.gradedRun.options() : { ...options, passing });
    if (!graded?.ok) return null;
    const { ok: _ok, ...outcome } = graded;
    return outcome;
  }

  // Each question shown, as the lesson kept it.
  private standings() {
    const handles = new Map(this.allExercises());
    return this.exerciseIds.map((id) => {
      const kept = handles.get(id)?.progress();
      return { id, attempts: kept?.attempts ?? 0, checked: (kept?.attempts ?? 0) > 0, counts: kept?.counts ?? false, revealed: kept?.revealed ?? false };
    });
  }

  /** The ids of the questions shown, in reading order (a course's maximum score). */
  get exerciseIds(): string[] {
    const root = this.shadowRoot;
    if (this.dataset.state !== 'ready' || !root) return [];
    return [...root.querySelectorAll<HTMLFormElement>('form.exercise')].filter((form) => !form.closest('[hidden]')).map((form) => form.dataset.exercise!);
  }

  private allExercises(): Iterable<[string, ExerciseHandle]> {
    return this.view?.exercises() ?? [];
  }

  // Saved work: first what was kept under progress-key, then what a course handed over (restoreProgress).
  private applyProgress(progress?: LessonProgress): void {
    if (!progress) {
      this.record.continueAttempt(this.bridge.savedRegistration());
      return this.view!.replay((id) => this.bridge.savedProgress(id), this.bridge.savedProgress(challengeId)?.responses[0]);
    }
    if (progress.state) this.show(this.controller!.startFrom(progress.state));
    this.view!.replay((id) => progress.answers[id], progress.challenge);
    if (progress.problemsInARow !== undefined) this.view!.anotherOne.restore(progress.problemsInARow);
    this.record.continueAttempt(progress.registration);
    if (this.dataset.state === 'ready') this.record.restored(this.graded());
    this.progressChanged();
  }

  // Tells the course page the learner's work changed (a SCORM launch page keeps it as suspend_data).
  private progressChanged(): void {
    if (this.dataset.state !== 'ready') return;
    this.dispatchEvent(event('qkv-lesson-progress', this.progress));
    this.showResults();
  }

  private fail(error: unknown, what = 'The lesson could not start: its computation engine (WebAssembly) did not load in this browser.'): void {
    this.dataset.state = 'error';
    this.shadowRoot?.replaceChildren(h('div', { class: 'load-error', role: 'alert' }, h('p', {}, what), h('p', {}, `Reason: ${messageOf(error)}`)));
  }

  // Everything the start asks of the core: the controller (the fixture, the exercises), the view, the starting state.
  private build(core: QkvCore): void {
    // What the learner did in the prerendered opening (or in a view a restart replaces), read before the view takes
    // its nodes; the view adopts the opening while it is still there (a restart builds anew).
    const before = shownBefore(this.shadowRoot!);
    const prerendered = this.prerendered?.parentNode === this.shadowRoot ? this.prerendered : null; // not dropped since
    this.prerendered = null;
    this.controller = undefined;
    const controller = new LessonController(core);
    this.controller = controller;
    controller.setSelfScore(this.bridge.linkSelfScore(controller.selfScore) ?? controller.selfScore);
    const view = new LessonView(core, controller, this.idPrefix, {
      check: (id, responses, answerShown, used) => controller.check(id, responses, answerShown, { ...this.gradedRun.allowance(), attempts_used: used }),
      reveal: () => this.reveal,
      onAnswer: (record, replayed) => this.answered(record, replayed),
      onShown: (id, by, replayed) => this.shown(id, by, replayed),
      reset: () => this.show(controller.reset()),
      drawVariant: (seed) => this.show(controller.drawVariant(seed), true),
      selfScoreAccepted: () => this.writeUrl(),
    }, prerendered);
    this.view = view;
    if (this.dataset.answersNotKept) view.noteNotKept(this.dataset.answersNotKept);
    showView(this.shadowRoot!, view.article);
    this.applySections();

    // A shared link wins over the author's starting state or example; without any, the attempt's own problem, else
    // the fixture (saved progress, applied later, wins over all of them).
    const link = this.bridge.linkState();
    this.show(controller.startFrom(link ?? this.state, this.attemptKey));
    if (link === null && this.example) void this.startFromExample();
    watchChallenge(view.selfScoreSection.challenge, {
      save: (id, saved) => this.store(id, saved),
      report: (statement) => this.report(statement),
      context: () => this.record.context,
      changed: () => this.progressChanged(),
    });
    this.applyProgress();
    if (this.pendingProgress) this.applyProgress(this.pendingProgress); // kept until ready: a restart applies it again
    before.carryInto(view.article); // what was typed before ready wins over saved answers
  }

  private becomeReady(startedAt: number): void {
    const controller = this.controller!;
    this.pendingProgress = undefined;
    this.warmUp = new WarmUp(() => controller.rehearse(), () => (this.dataset.warmed = ''));
    this.dataset.state = 'ready';
    this.record.restored(this.gradingChanged()); // work restored from an earlier visit was reported then
    performance.measure('qkv-lesson-start', { start: startedAt }); // core loaded → ready
    performance.mark('qkv-lesson-ready'); // navigation → ready, for bench/engines-ready.mjs
    this.dispatchEvent(event('qkv-lesson-ready'));
    if (this.isConnected) this.attach();
  }

  private applySections(): void {
    this.view!.applySections(this.sections, this.shadowRoot!, this.reveal === 'always');
  }

  private edited(event: Event): void {
    const target = event.target;
    if (!(target instanceof HTMLInputElement) || !this.controller) return;
    const start = performance.now();
    const size = target.dataset.size as SizeField | undefined;
    const field = target.dataset.field as EditableKey | undefined;
    const index = field ? cellIndexOf(target) : undefined;
    if (size) this.show(this.controller.editSize(size, target.value), true);
    else if (field && index !== undefined) this.show(this.controller.editCell(field, index, target.value), true);
    else return;
    performance.measure('qkv-lesson-edit', { start }); // an edit's time on the page's thread (bench/engines-ready.mjs)
  }

  // New numbers, or the core's error with the last accepted diagram left on screen.
  private show(outcome: Outcome, edited = false): void {
    this.view!.diagram.show(outcome, edited);
    if (!outcome.ok) {
      this.dataset.error = outcome.error.message;
      return;
    }
    delete this.dataset.error;
    this.view!.diagram.sizesBar.resetTo(this.controller!.hasExample ? 'example' : 'fixture');
    // The opening's tables and the chapter's questions follow the numbers on screen: the questions' words, answers
    // and hints are the core's for them.
    const controller = this.controller!;
    if (outcome.changed) this.view!.showNumbers(outcome.evidence, controller.exercises().filter((view) => view.id.startsWith('ch26-')), controller);
    if (outcome.changed) this.dataset.rendered = `${++this.renders}`;
    this.writeUrl();
    if (outcome.changed) this.dispatchEvent(event('qkv-lesson-rendered'));
    if (edited && outcome.changed) this.progressChanged();
  }

  // The URL follows the last valid state; data-url-revision = data-rendered once it shows what is on screen.
  private writeUrl(): void {
    const controller = this.controller;
    const revision = `${this.renders}`;
    if (controller) this.bridge.scheduleUrl((cells) => controller.link(cells), () => (this.dataset.urlRevision = revision));
  }

  // A question's answer was shown before the learner got it right: its folds may open, the course hears it
  // (it never counts), and may keep that.
  private shown(id: string, by: ShownBy, replayed: boolean): void {
    this.view?.questions.settle(id, this.shadowRoot!, this.reveal === 'always');
    if (replayed) return;
    this.keep(id);
    this.report(shownStatement(id, exerciseProse[id]?.question ?? id, by, this.record.context));
    this.settleOutcome();
    this.progressChanged();
  }

  private settleOutcome(): void {
    const outcome = this.graded();
    if (outcome) this.record.settled(outcome);
  }

  // Tells the course page: a DOM event, a message to the parent frame, and (opt-in) local progress.
  private answered(record: AnswerRecord, replayed: boolean): void {
    this.view?.questions.settle(record.id, this.shadowRoot!, this.reveal === 'always');
    this.keep(record.id);
    this.applyAllowances();
    if (replayed) return; // restored from storage: already reported when it was answered
    if (record.id === 'ch26-first-token') this.view?.anotherOne.checked(this.controller!.variantSeed, record.correct && record.counts);
    this.report(answerStatement(record, this.record.context));
    this.settleOutcome();
    this.view?.diagram.readOut(record.correct ? 'Correct answer.' : 'Not quite.');
    this.progressChanged();
  }

  // A question's progress, kept under progress-key.
  private keep(id: string): void {
    const progress = new Map(this.allExercises()).get(id)?.progress();
    if (progress) this.store(id, progress);
  }

  // Under progress-key: a question's work, with the attempt's registration beside it.
  private store(id: string, progress: ExerciseProgress): void {
    this.bridge.saveProgress(id, progress);
    this.bridge.saveRegistration(this.record.registration);
  }

  private report(statement: AnswerStatement): void {
    this.dispatchEvent(event(answerEvent, statement));
    this.bridge.postAnswer(statement);
  }
}
