// The diagram section as the learner sees it: the sizes bar, then the diagram of Q, K, V and their gradients
// (buildDiagram), its cells explaining themselves when focused. New numbers replace the old; an input the core
// refused is marked, its message shown next to it and announced, while the last accepted numbers stay.
import type { ChecksStep, Outcome } from './controller';
import type { GradcheckRules } from './core-api';
import { renderBitwise, renderChecks } from './checks-cards';
import { attachProvenance, buildDiagram, renderDiagram, type DiagramRefs, type Explain } from './diagram';
import { describeChanges } from './changes';
import { h } from './dom';
import { whenIdle, whenIdleNext } from './idle';
import { buildSizesBar, type SizesBar } from './sizes-bar';
import { sizeFields, type CoreError, type Evidence, type SizeField, type SizeLimitView } from './types';

// How long cells an edit changed stay marked: long enough to find them after looking back from the field.
const changedMarkMilliseconds = 4000;

export class DiagramSection {
  readonly diagram: DiagramRefs;
  readonly sizesBar: SizesBar;
  readonly element: HTMLElement;
  private unchecked = false; // numbers on screen whose checks are still to come
  private connected = false; // the lesson is laid out on a page (connect), so idle work may run
  private cancelChecks?: () => void;
  private invalid?: HTMLInputElement; // the input a refusal marked aria-invalid
  private errorShown?: HTMLElement; // the refusal's message area
  private shownEvidence?: Evidence; // the numbers on screen, to name what the next edit changes
  private unmark?: ReturnType<typeof setTimeout>;

  // check: the next step of the gradcheck and the bitwise checks of the numbers on screen (the core leaves them
  // out of an evaluation: they are most of its work), asked once the page is idle after new numbers are shown,
  // a step per idle moment.
  constructor(
    idPrefix: string,
    limits: SizeLimitView[],
    reset: () => void,
    explain: Explain,
    private readonly check: () => ChecksStep | null,
    gradcheckRules: GradcheckRules,
  ) {
    this.diagram = buildDiagram(idPrefix, explain, gradcheckRules);
    attachProvenance(this.diagram);
    this.sizesBar = buildSizesBar(idPrefix, limits, reset);
    this.element = h('section', { class: 'diagram-section', 'aria-labelledby': `${idPrefix}-diagram-title` }, this.sizesBar.element, this.diagram.root);
  }

  // New numbers (edited: by the learner, announced as a recomputation), or the core's error.
  show(outcome: Outcome, edited: boolean): void {
    if (!outcome.ok) {
      this.reject(outcome.error);
      if (outcome.notes.length) this.sizesBar.showNotes(outcome.notes);
      return;
    }
    this.clearErrors();
    if (!edited || outcome.notes.length) this.sizesBar.showNotes(outcome.notes);
    this.sizesBar.showSizes(outcome.state);
    renderDiagram(this.diagram, outcome.evidence, outcome.state);
    if (edited) this.tellChanges(outcome.evidence);
    else if (outcome.notes.length) this.readOut(outcome.notes.join(' '));
    this.shownEvidence = outcome.evidence;
    this.unchecked = true;
    this.cancelChecks?.();
    this.cancelChecks = undefined;
    this.scheduleChecks();
  }

  // After an edit: the live region names what changed (the core's texts, compared), and the changed cells are
  // marked for a moment (styles.css: an outline and heavier text, not colour alone; no fade with reduced motion).
  private tellChanges(evidence: Evidence): void {
    if (!this.shownEvidence) {
      this.announce('Recomputed: Q, K, V, S and the gradients. The numerical checks follow.');
      return;
    }
    const changes = describeChanges(this.shownEvidence, evidence);
    this.announce(changes.message);
    clearTimeout(this.unmark);
    const containers = [this.diagram.root, this.diagram.lookAhead, this.diagram.deeper];
    const marked: Element[] = [];
    for (const { key, index } of changes.cells) {
      for (const container of containers) {
        for (const table of container.querySelectorAll(`table[data-tensor="${key}"]`)) {
          const cell = table.querySelectorAll('tbody td')[index];
          if (cell) marked.push(cell);
        }
      }
    }
    for (const cell of marked) cell.classList.add('changed');
    this.unmark = setTimeout(() => {
      for (const cell of marked) cell.classList.remove('changed');
    }, changedMarkMilliseconds);
  }

  // From the end of the lesson's layout (element.ts) until it leaves the page: the numbers' checks may run. The
  // numbers the start shows wait for this, so that their checks do not share a frame with the layout's.
  connect(): void {
    this.connected = true;
    this.scheduleChecks();
  }

  // Once the page is idle, the checks of the numbers on screen, unless they are shown already.
  private scheduleChecks(): void {
    if (!this.connected || this.cancelChecks || !this.unchecked) return;
    // Each step is its own idle task: at once, the checks took 22–30 ms at CPU ÷4, and over 50 ms on a busy
    // machine. A step after the first goes ahead of the idle work asked for since (the warm-up's slices).
    const step = () => {
      this.cancelChecks = undefined;
      const checked = this.check();
      if (!checked) {
        this.unchecked = false; // the core refused them: asked again with the next numbers
        return;
      }
      if (!checked.done) {
        this.cancelChecks = whenIdleNext(step);
        return;
      }
      // The card, then the verdicts, each drawn in the next idle moment: with the check (the core's work), they
      // made one frame of over 50 ms on a slow phone. The numbers count as checked once the verdicts are drawn:
      // a release before that leaves them to be checked again when the lesson comes back.
      this.cancelChecks = whenIdleNext(() => {
        renderChecks(this.diagram.checks, checked.gradcheck);
        this.cancelChecks = whenIdleNext(() => {
          this.cancelChecks = undefined;
          this.unchecked = false;
          renderBitwise(this.diagram.checks, checked.bitwise);
        });
      });
    };
    this.cancelChecks = whenIdle(step);
  }

  // The lesson left the page: checks still waiting wait for it to come back (connect).
  release(): void {
    this.connected = false;
    this.cancelChecks?.();
    this.cancelChecks = undefined;
  }

  announce(message: string): void {
    this.sizesBar.announce(message);
  }

  // For screen readers only: the message repeats what is on screen (a question's verdict, a link's note).
  readOut(message: string): void {
    this.sizesBar.readOut(message);
  }

  // The message goes next to the field (a size's under the sizes bar) and to the live region.
  private reject(error: CoreError): void {
    this.clearErrors();
    const field = error.field;
    let target: HTMLInputElement | null = null;
    if ((sizeFields as readonly string[]).includes(field)) target = this.sizesBar.inputs[field as SizeField];
    else if (error.index >= 0) target = this.root().querySelector<HTMLInputElement>(`input[data-field="${field}"][data-index="${error.index}"]`);
    const area = this.diagram.fieldErrors[field] ?? this.sizesBar.error;
    target?.setAttribute('aria-invalid', 'true');
    this.invalid = target ?? undefined;
    this.errorShown = area;
    area.hidden = false;
    area.textContent = `Rejected: ${error.message}. The diagram still shows the last accepted numbers.`;
    this.readOut(`Rejected: ${error.message}`);
  }

  // Only what reject marked: an edit clears in constant time, not by searching the lesson.
  private clearErrors(): void {
    this.invalid?.removeAttribute('aria-invalid');
    this.invalid = undefined;
    if (!this.errorShown) return;
    this.errorShown.hidden = true;
    this.errorShown.textContent = '';
    this.errorShown = undefined;
  }

  // The lesson's shadow root once placed: the diagram's parts sit in several sections of it.
  private root(): ParentNode {
    return this.element.getRootNode() as ParentNode;
  }
}
