// The chapter's questions (ch26-…), one form each, each where the learner meets it: the first-token question in
// the opening prediction, the others right before the evidence that answers them; when those parts are hidden,
// in the exercises section's list, in the lesson's path order. Folds open once all their questions are settled.
import { renderExerciseContext, type ExerciseContext } from './content';
import { openAnswered, type DiagramRefs } from './diagram';
import { h, placeChildren, shellIfSame } from './dom';
import { openingQuestionId } from './opening';
import { numberExercises, renderExercise, type ExerciseHandle, type ExerciseOptions } from './exercises';
import type { SectionName } from './attributes';
import type { Evidence, ExerciseView } from './types';

export class ChapterQuestions {
  readonly handles = new Map<string, ExerciseHandle>();
  // Where the forms go when the diagram is hidden, and the first one's place in the opening prediction.
  readonly list = h('div', { class: 'exercise-list' });
  readonly workedQuestion: HTMLElement;
  // What a question needs beside it when it is asked in the list (content.ts; null: nothing), made the first time
  // it is listed: in the lesson's default sections no question is, and making them all cost about 15 ms of the start
  // on a slow phone. The numbers on screen, for the one made next.
  private readonly contexts = new Map<string, ExerciseContext | null>();
  private numbers: { evidence: Evidence; edited: boolean };
  // Questions checked, or whose answer the learner asked to see.
  private readonly settled = new Set<string>();
  private readonly pathOrder: string[];

  // `prerendered`: the opening's place for the first-token question as the build prerendered it, with its form,
  // which that question takes as its own when it asks the same (renderExercise); a form it does not take goes.
  constructor(views: ExerciseView[], evidence: Evidence, private readonly diagram: DiagramRefs, options: ExerciseOptions, prerendered: Element | null = null) {
    this.workedQuestion = shellIfSame(h('div', { class: 'worked-question' }), prerendered);
    const prerenderedForm = this.workedQuestion.querySelector<HTMLFormElement>(`:scope > form.exercise[data-exercise="${openingQuestionId}"]`);
    for (const view of views) this.handles.set(view.id, renderExercise(view, options, view.id === openingQuestionId ? prerenderedForm : null));
    this.numbers = { evidence, edited: false };
    const adopted = prerenderedForm !== null && this.handles.get(openingQuestionId)?.form === prerenderedForm;
    placeChildren(this.workedQuestion, adopted ? [prerenderedForm] : []); // the view's own form is placed later
    this.pathOrder = diagram.pathOrder.filter((id) => this.handles.has(id));
    for (const id of this.handles.keys()) if (!this.pathOrder.includes(id)) this.pathOrder.push(id);
  }

  // New numbers on screen (an edit, a link, a drawn problem): each question's words, answer and hints follow
  // them (a verdict about the old ones is said to be stale), and so does the context a listed question carries.
  update(views: ExerciseView[], evidence: Evidence, edited: boolean): void {
    for (const view of views) this.handles.get(view.id)?.update(view);
    this.numbers = { evidence, edited };
    for (const context of this.contexts.values()) context?.show(evidence, edited);
  }

  // A listed question's context, showing the numbers on screen.
  private contextOf(id: string): ExerciseContext | null {
    if (!this.contexts.has(id)) {
      const { evidence, edited } = this.numbers;
      const context = renderExerciseContext(id, evidence);
      if (edited) context?.show(evidence, edited);
      this.contexts.set(id, context);
    }
    return this.contexts.get(id) ?? null;
  }

  // Puts each form in its place for the sections shown; the exercises section is hidden when it lists none.
  place(shown: SectionName[], exercisesSection: HTMLElement, root: ParentNode, revealAll: boolean): void {
    const visible = (home: HTMLElement | undefined): home is HTMLElement => home !== undefined && !home.closest('[hidden]');
    for (const id of this.pathOrder) {
      const form = this.handles.get(id)!.form;
      const home = [id === openingQuestionId ? this.workedQuestion : undefined, this.diagram.predictions[id]].find(visible);
      if (home) {
        this.contexts.get(id)?.element.remove();
        if (home.lastChild !== form) home.append(form); // a form in place stays: moved, it would lose its focus
      } else {
        const context = this.contextOf(id)?.element;
        this.list.append(...(context ? [context] : []), form);
      }
    }
    exercisesSection.hidden = !shown.includes('exercises') || this.list.querySelector('form') === null;
    numberExercises(root);
    this.openFolds(root, revealAll);
  }

  // A question (of any section) was checked or its answer shown: open the folds whose questions are all settled.
  settle(id: string, root: ParentNode, revealAll: boolean): void {
    this.settled.add(id);
    this.openFolds(root, revealAll);
  }

  private openFolds(root: ParentNode, revealAll: boolean): void {
    openAnswered(root, revealAll ? undefined : this.settled);
  }
}
