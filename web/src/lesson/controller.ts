// The lesson's state and its calls into the core, without any DOM: the element shows what these return.
// Every number is typed text that the core reads; every verdict is the core's.
import { readDiagramLink, stateToSearch, variantToSearch } from './url-state';
import type { AnswerRequest, ChecksResponse, ExampleFile, ExperimentFacts, GradcheckRules, OutcomeRequest, OutcomeResponse, PracticeStreakRequest, PracticeStreakResponse, QuestionStandingView, Request } from './core-api';
import type { AnswerResponse, ComputedKey, CoreError, EditableKey, Evidence, ExerciseView, LessonResponse, LessonState, ProvenanceResponse, QkvCore, SelfScoreRequest, SizeField, SizeLimitView } from './types';

// An accepted evaluation: the core sends the evidence with every state it accepts.
type Evaluation = Extract<LessonResponse, { ok: true }> & { evidence: Evidence };

// What the element shows after a call: new numbers (and notes on anything a link gave that was not used),
// or the core's error while the last accepted numbers stay.
export type Outcome =
  | { ok: true; state: LessonState; evidence: Evidence; notes: string[]; changed: boolean }
  | { ok: false; error: CoreError; notes: string[] };

// A step of the numbers' checks the core took: more to come, or the last, with the checks.
export type ChecksStep = Extract<ChecksResponse, { ok: true }>;

export class LessonController {
  readonly sizeLimits: SizeLimitView[];
  readonly gradcheckRules: GradcheckRules; // shown until the numbers on screen are checked
  state: LessonState;
  // The self-score experiment's settings have one owner, this controller, as the edited numbers do: links and
  // progress write both, and the core grades every question against them. The section (self-score.ts) is a view
  // that edits them once its worker accepted new ones, with the facts the worker computed about them. They start
  // as the numpy module's experiment (the core's SelfScoreRequest defaults).
  private selfScoreSettings: SelfScoreRequest = { seed: '1', tokens: '5', dim: '8' };
  // Typed text that was not accepted: kept so that the next edit starts from what is on screen.
  private typed: LessonState;
  // The fixture's evaluation, as the core computed it once: starting and resetting show it.
  private readonly fixtureEvaluation: Evaluation;
  private shown = '';
  // Explanations of cells of the numbers on screen, as the core wrote them: a cell focused or hovered again
  // is not asked twice. Emptied whenever the numbers change.
  private readonly explained = new Map<string, ProvenanceResponse>();
  // The exercises the core listed for the last request (exercises()), and that request as JSON.
  private listed?: { asked: string; exercises: ExerciseView[] };
  // The core's last outcome (outcome()), and its request as JSON.
  private lastOutcome?: { key: string; response: OutcomeResponse };
  // A problem drawn by the core ("Another one"): its seed, its tokens' words, and the numbers it drew. The words
  // stay with the learner's edits of its cells; a size edit, a reset or another link ends it.
  // An author's example (seed null) names its tokens the same way.
  private variant: { seed: string | null; tokenNames: string[]; state: LessonState | null } | null = null;
  // An author's example (the element's `example` attribute), accepted by the core: the lesson starts from it, and
  // Reset goes back to it rather than to the fixture.
  private example: { title: string; tokenNames: string[]; evaluation: Evaluation } | null = null;

  get fixture(): LessonState {
    return this.fixtureEvaluation.state;
  }
  get fixtureEvidence(): Evidence {
    return this.fixtureEvaluation.evidence;
  }
  // Whether the numbers on screen are the learner's (an accepted edit or link) rather than the frozen fixture.
  get edited(): boolean {
    return this.state !== this.fixtureEvaluation.state;
  }
  // Whether the lesson started from an author's example (Reset goes back to it).
  get hasExample(): boolean {
    return this.example !== null;
  }
  get selfScore(): SelfScoreRequest {
    const { seed, tokens, dim } = this.selfScoreSettings;
    return { seed, tokens, dim };
  }
  // The seed of the drawn problem on screen, while its numbers are as drawn (null otherwise).
  get variantSeed(): string | null {
    return this.variant && this.state === this.variant.state ? this.variant.seed : null;
  }
  // The author's example's title while its numbers are on screen as it gives them (null otherwise).
  get exampleTitle(): string | null {
    return this.example && this.state === this.example.evaluation.state ? this.example.title : null;
  }
  // The numbers on screen and the experiment's settings in the page-link format (b=1&t=2&…&sseed=…), or a drawn
  // problem's seed (v=…) while its numbers are as drawn.
  // `cells` false: the sizes and settings only (for a link too long with its cells).
  link(cells = true): string {
    const seed = this.variantSeed;
    return seed === null ? stateToSearch(this.state, this.selfScore, cells, this.variant?.tokenNames) : variantToSearch(seed, this.selfScore);
  }
  // New settings the self-score section accepted (facts: what its worker computed about them).
  setSelfScore(request: SelfScoreRequest, facts?: ExperimentFacts): void {
    const { seed, tokens, dim } = request;
    this.selfScoreSettings = facts ? { seed, tokens, dim, experiment: facts } : { seed, tokens, dim };
  }

  // Throws if the core cannot even compute its own fixture (then the lesson cannot start).
  constructor(readonly core: QkvCore) {
    const fixture = core.fixture();
    if (!fixture.ok) throw new Error(fixture.error.message);
    this.fixtureEvaluation = { ok: true, state: fixture.state, evidence: fixture.evidence, notes: [] };
    this.state = this.typed = fixture.state;
    this.sizeLimits = fixture.size_limits;
    this.gradcheckRules = fixture.gradcheck_rules;
  }

  // Every exercise (the chapter's, ch26-…, and the self-score experiment's, qkv04-…), as the core's registry
  // lists them for the current settings: one call serves both sections.
  // The chapter's questions are about the numbers on screen: the core writes their words and answers for them.
  // The last request's answer is kept: the start asked twice for the same (the view's constructor, then the first
  // numbers shown), about 30 ms of the start at CPU ÷4, and the same views let the questions skip rewriting words.
  exercises(): ExerciseView[] {
    const request = { self_score: this.selfScoreSettings, ...this.chapterNumbers() };
    const asked = JSON.stringify(request);
    if (this.listed?.asked !== asked) {
      const listed = this.core.exercisesFor(request);
      this.listed = { asked, exercises: listed.ok ? listed.exercises : [] };
    }
    return this.listed.exercises;
  }

  // answerShown: the answer was on screen before this check; the core then counts it as no success. allowance: a
  // graded run's checks allowed and used, and the ids that count (the core refuses a check past it).
  check(id: string, responses: string[], answerShown: boolean, allowance: Pick<AnswerRequest, 'attempts_allowed' | 'attempts_used' | 'graded'> = {}): AnswerResponse {
    return this.core.checkAnswer({ id, responses, self_score: this.selfScoreSettings, answer_shown: answerShown, ...allowance, ...this.chapterNumbers() });
  }

  // What the core grades the chapter's questions against: nothing for the frozen fixture (its default), else the
  // numbers on screen, with a drawn problem's words for its tokens.
  private chapterNumbers(): { state?: LessonState; token_names?: string[] } {
    if (!this.edited) return {};
    return this.variant ? { state: this.state, token_names: this.variant.tokenNames } : { state: this.state };
  }

  // A new problem from the core's generator (hand-computable numbers, tokens named): `seed` as typed or drawn,
  // or, for a graded attempt, the seed the core derives from the attempt's key.
  drawVariant(seed: string, attemptKey = ''): Outcome {
    const drawn = this.core.variant(attemptKey ? { attempt_key: attemptKey } : { seed });
    if (!drawn.ok) return { ok: false, error: drawn.error, notes: [] };
    const before = this.variant;
    const variant = { seed: drawn.seed.toString(), tokenNames: drawn.token_names, state: null as LessonState | null };
    this.variant = variant; // evaluate() asks the core to name the tokens with its words
    const outcome = this.evaluate(drawn.state);
    if (outcome.ok) variant.state = outcome.state;
    else this.variant = before;
    return outcome;
  }

  // The run of drawn problems right in a row after a check, by the core's rule.
  practiceStreak(request: Request<PracticeStreakRequest>): PracticeStreakResponse {
    return this.core.practiceStreak(request);
  }

  // What a course records of the questions shown (their standing as the lesson kept it), by the core's rules. The
  // last answer is kept for its request: one check asks for the same outcome several times (the allowances, the
  // record, the results), and the core's grading depends on the request alone. Shared, so never handed to a host.
  outcome(questions: QuestionStandingView[], options: Omit<OutcomeRequest, 'questions'> = {}): OutcomeResponse {
    const request = { questions, ...options };
    const key = JSON.stringify(request);
    if (this.lastOutcome?.key !== key) this.lastOutcome = { key, response: this.core.lessonOutcome(request) };
    return this.lastOutcome.response;
  }

  // A link-format state (b=1&t=2&…); when empty, a graded attempt's own problem (its key), else the fixture. A link
  // the lesson does not read, or numbers the core refuses, leave the fixture on screen and say why, in words.
  startFrom(search: string, attemptKey = ''): Outcome {
    this.variant = null;
    const link = readDiagramLink(search);
    if (link.kind === 'none' && attemptKey) return this.startAttempt(attemptKey);
    if (link.kind === 'none') return this.accept(this.fixtureEvaluation);
    if (link.kind === 'unread') return this.refuseLink(link.why);
    const outcome = link.kind === 'variant' ? this.drawVariant(link.seed) : this.evaluateLinked(link.state, link.tokenNames);
    return outcome.ok ? outcome : this.refuseLink(outcome.error.message);
  }

  // A link's state, with its tokens' words when it gives them (the core checks them with the numbers).
  private evaluateLinked(state: Request<LessonState>, tokenNames?: string[]): Outcome {
    const variant = tokenNames ? { seed: null, tokenNames, state: null as LessonState | null } : null;
    this.variant = variant;
    const outcome = this.evaluate(state);
    if (variant && outcome.ok) variant.state = outcome.state;
    else this.variant = null;
    return outcome;
  }

  private startAttempt(attemptKey: string): Outcome {
    const outcome = this.drawVariant('', attemptKey);
    if (outcome.ok) return outcome;
    const reason = `This attempt’s own problem could not be drawn (${outcome.error.message}); the lesson shows the frozen fixture instead.`;
    return { ...this.accept(this.fixtureEvaluation), notes: [reason] };
  }

  private refuseLink(why: string): Outcome {
    const reason = `The link’s numbers were not used (${why}); the lesson shows the frozen fixture instead.`;
    return { ...this.accept(this.fixtureEvaluation), notes: [reason] };
  }

  reset(): Outcome {
    this.variant = null;
    if (!this.example) return this.accept(this.fixtureEvaluation);
    this.variant = { seed: null, tokenNames: this.example.tokenNames, state: this.example.evaluation.state };
    return this.accept(this.example.evaluation);
  }

  // An author's example file, parsed (docs/examples.md): the core checks it; one it refuses leaves the fixture on
  // screen and says why, in the core's words.
  startFromExample(file: unknown): Outcome {
    this.variant = null;
    this.example = null;
    const read = this.core.example(file as Request<ExampleFile>);
    if (!read.ok) return this.refuseExample(read.error.message);
    const variant = { seed: null, tokenNames: read.token_names, state: null as LessonState | null };
    this.variant = variant;
    const outcome = this.evaluate(read.state);
    if (!outcome.ok) {
      this.variant = null;
      return this.refuseExample(outcome.error.message);
    }
    variant.state = outcome.state;
    this.example = { title: read.title, tokenNames: read.token_names, evaluation: { ok: true, state: outcome.state, evidence: outcome.evidence, notes: [] } };
    return outcome;
  }

  // An example file that could not be fetched, parsed or accepted: `why`, and the fixture.
  refuseExample(why: string): Outcome {
    this.variant = null;
    this.example = null;
    const reason = `The author’s example was not used (${why}); the lesson shows the frozen fixture instead.`;
    return { ...this.accept(this.fixtureEvaluation), notes: [reason] };
  }

  editSize(field: SizeField, text: string): Outcome {
    const before = this.variant;
    this.variant = null; // a drawn problem's words named tokens of other sizes
    const outcome = this.evaluate({ ...this.typed, [field]: text });
    if (!outcome.ok) this.variant = before;
    return outcome;
  }

  // `index`: the cell, in row-major order.
  editCell(field: EditableKey, index: number, text: string): Outcome {
    const cells = [...this.typed[field].cells];
    cells[index] = text;
    return this.evaluate({ ...this.typed, [field]: { ...this.typed[field], cells } });
  }

  // Where one computed cell of the numbers on screen comes from, as the core writes it out. The core reads the
  // numbers it computed for the state on screen (it keeps the fixture's and the last evaluation's); each cell
  // is asked once per numbers.
  provenance(tensor: ComputedKey, index: number): ProvenanceResponse {
    const key = `${tensor} ${index}`;
    let answer = this.explained.get(key);
    if (!answer) {
      answer = this.core.provenance({ state: this.state, tensor, index });
      this.explained.set(key, answer);
    }
    return answer;
  }

  // The next step of the checks of the numbers on screen (the gradcheck, a tensor per step, then the bitwise
  // checks): the core checks the evaluation it kept for this state. Null when the core refused them.
  numericalChecksStep(): ChecksStep | null {
    const checked = this.core.numericalChecksStep(this.state);
    return checked.ok ? checked : null;
  }

  // Warm-up: the same evaluation again, so that WebAssembly compiles its hot code optimised.
  rehearse(): void {
    this.core.evaluate({ state: this.state });
  }

  // A drawn problem's or an example's numbers are evaluated with its words: the core names the tokens with them.
  private evaluate(state: Request<LessonState>): Outcome {
    const evaluation = this.core.evaluate(this.variant ? { state, token_names: this.variant.tokenNames } : { state });
    if (!evaluation.ok) {
      if (evaluation.state) this.typed = evaluation.state;
      return { ok: false, error: evaluation.error, notes: evaluation.notes ?? [] };
    }
    const { evidence } = evaluation;
    if (!evidence) throw new Error('The lesson’s engine accepted the numbers but sent no evidence for them.');
    return this.accept({ ...evaluation, evidence });
  }

  // The numbers of an accepted evaluation become the lesson's.
  private accept(evaluation: Evaluation): Outcome {
    if (evaluation.state !== this.state) this.explained.clear();
    this.state = this.typed = evaluation.state;
    const { evidence } = evaluation;
    // The output changed unless every shown value and shape is the same as last time ("1.0" for "1").
    const shown = JSON.stringify(evidence);
    const changed = shown !== this.shown;
    this.shown = shown;
    return { ok: true, state: evaluation.state, evidence, notes: evaluation.notes, changed };
  }
}
