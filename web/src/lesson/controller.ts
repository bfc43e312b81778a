// The lesson's state and its calls into the core, without any DOM: the element shows what these return.
// Every number is typed text that the core reads; every verdict is the core's.
import { linkLimit, stateFromSearch } from './url-state';
import type { AnswerResponse, ComputedKey, CoreError, EditableKey, Evidence, ExerciseView, LessonResponse, LessonState, ProvenanceResponse, QkvCore, SelfScoreRequest, SizeField, SizeLimitView } from './types';

type Evaluation = Extract<LessonResponse, { ok: true }>;

// 131072 as "131,072": the page's words are English.
const count = (n: number): string => n.toLocaleString('en-US');

// What the element shows after a call: new numbers (and notes on anything a link gave that was not used),
// or the core's error while the last accepted numbers stay.
export type Outcome =
  | { ok: true; state: LessonState; evidence: Evidence; notes: string[]; changed: boolean }
  | { ok: false; error: CoreError; notes: string[] };

export class LessonController {
  readonly sizeLimits: SizeLimitView[];
  state: LessonState;
  // The module's experiment, where the self-score section starts (the core's SelfScoreRequest defaults).
  selfScore: SelfScoreRequest = { seed: '1', tokens: '5', dim: '8' };
  // Typed text that was not accepted: kept so that the next edit starts from what is on screen.
  private typed: LessonState;
  // The fixture's evaluation, as the core computed it once: starting and resetting show it.
  private readonly fixtureEvaluation: Evaluation;
  private shown = '';

  get fixture(): LessonState {
    return this.fixtureEvaluation.state;
  }
  get fixtureEvidence(): Evidence {
    return this.fixtureEvaluation.evidence;
  }

  // Throws if the core cannot even compute its own fixture (then the lesson cannot start).
  constructor(readonly core: QkvCore) {
    const fixture = core.fixture();
    if (!fixture.ok) throw new Error(fixture.error.message);
    this.fixtureEvaluation = { ok: true, state: fixture.state, evidence: fixture.evidence, notes: [] };
    this.state = this.typed = fixture.state;
    this.sizeLimits = fixture.size_limits;
  }

  // The chapter's or the self-score experiment's exercises, as the core's registry lists them now.
  exercises(prefix: 'ch26-' | 'qkv04-'): ExerciseView[] {
    const listed = this.core.exercises(this.selfScore);
    return listed.ok ? listed.exercises.filter((view) => view.id.startsWith(prefix)) : [];
  }

  check(id: string, responses: string[]): AnswerResponse {
    return this.core.checkAnswer({ id, responses, self_score: this.selfScore });
  }

  // A link-format state (b=1&t=2&…), or the fixture when empty; a link the core refuses leaves the
  // fixture on screen and says why, in words. One longer than linkLimit is refused before it is read: reading
  // megabytes of cells held the page for seconds.
  startFrom(search: string): Outcome {
    if (search.length > linkLimit) return this.refuseLink(`it is ${count(search.length)} characters long, and the lesson reads links of at most ${count(linkLimit)}`);
    const asked = search ? stateFromSearch(search) : null;
    if (!asked) return this.accept(this.fixtureEvaluation);
    const outcome = this.evaluate(asked);
    return outcome.ok ? outcome : this.refuseLink(outcome.error.message);
  }

  private refuseLink(why: string): Outcome {
    const reason = `The link’s numbers were not used (${why}); the lesson shows the frozen fixture instead.`;
    return { ...this.accept(this.fixtureEvaluation), notes: [reason] };
  }

  reset(): Outcome {
    return this.accept(this.fixtureEvaluation);
  }

  editSize(field: SizeField, text: string): Outcome {
    return this.evaluate({ ...this.typed, [field]: text });
  }

  // `index`: the cell, in row-major order.
  editCell(field: EditableKey, index: number, text: string): Outcome {
    const cells = [...this.typed[field].cells];
    cells[index] = text;
    return this.evaluate({ ...this.typed, [field]: { ...this.typed[field], cells } });
  }

  // Where one computed cell of the numbers on screen comes from, as the core writes it out.
  provenance(tensor: ComputedKey, index: number): ProvenanceResponse {
    return this.core.provenance({ state: this.state, tensor, index });
  }

  // Warm-up: the same evaluation again, so that WebAssembly compiles its hot code optimised.
  rehearse(): void {
    this.core.evaluate(this.state);
  }

  private evaluate(state: LessonState): Outcome {
    const evaluation = this.core.evaluate(state);
    if (!evaluation.ok) {
      if ('state' in evaluation) this.typed = evaluation.state;
      return { ok: false, error: evaluation.error, notes: 'notes' in evaluation ? evaluation.notes : [] };
    }
    return this.accept(evaluation);
  }

  // The numbers of an accepted evaluation become the lesson's.
  private accept(evaluation: Evaluation): Outcome {
    this.state = this.typed = evaluation.state;
    // The output changed unless every shown value and shape is the same as last time ("1.0" for "1").
    const shown = JSON.stringify(evaluation.evidence);
    const changed = shown !== this.shown;
    this.shown = shown;
    return { ok: true, state: evaluation.state, evidence: evaluation.evidence, notes: evaluation.notes, changed };
  }
}
