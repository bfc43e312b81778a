// The lesson as the learner sees it: the main path's sections in the lesson's order (the opening prediction, the
// forward rule, the diagram, the questions left over, the self-score experiment, what comes next), then the
// optional part ("Going deeper"), which ends with the scale presets; built once the core is ready, and shown or
// hidden as the sections attribute asks.
import math from 'virtual:math';
import { sectionNames, type SectionName } from './attributes';
import { askedPart, lessonArticle, renderForwardRule, renderIntro, renderNext, renderWorkedPrediction } from './content';
import type { LessonController } from './controller';
import { DiagramSection } from './diagram-section';
import { h, holding, keptIfSame, mathProbe } from './dom';
import { waitForLayout } from './laid-out';
import type { ExerciseHandle, ExerciseOptions } from './exercises';
import type { SavedProgress } from './host-bridge';
import { renderAnotherOne, type AnotherOne } from './another-one';
import { ChapterQuestions } from './questions';
import { renderResults, type ResultsView } from './results-view';
import { buildScale, type ScaleView } from './scale';
import { buildSelfScoreSection, type SelfScoreSectionView } from './self-score';
import type { Evidence, ExerciseView, QkvCore } from './types';

export { lessonSheets } from './lesson-sheets';

export interface LessonHooks extends Omit<ExerciseOptions, 'idPrefix'> {
  reset(): void; // the sizes bar's Reset
  drawVariant(seed: string): void; // "Another one"'s new problem
  selfScoreAccepted(): void; // the experiment's settings changed (the URL follows)
}

export class LessonView {
  readonly article: HTMLElement;
  readonly diagram: DiagramSection;
  readonly questions: ChapterQuestions;
  readonly selfScoreSection: SelfScoreSectionView;
  readonly scale: ScaleView;
  readonly anotherOne: AnotherOne;
  readonly results: ResultsView;
  private readonly worked: ReturnType<typeof renderWorkedPrediction>;
  private readonly sections: Record<SectionName, HTMLElement>;
  // Says, at the top, that the learner's answers are not being kept (host-bridge.ts; content.ts, renderIntro).
  private readonly notKeptNote: HTMLElement;

  // `prerendered`: the opening the build prerendered (opening.ts), still on screen; the view takes its nodes as its
  // own where they say what its own would say (the heading and intro, the opening prediction, its tables and
  // question), so that only the rest is added and what differs replaced. Null: the view is built whole.
  constructor(core: QkvCore, controller: LessonController, idPrefix: string, hooks: LessonHooks, prerendered: HTMLElement | null = null) {
    const worked = prerendered?.querySelector(':scope > section.worked') ?? null;
    const views = controller.exercises(); // one call lists both sections' questions
    this.diagram = new DiagramSection(idPrefix, controller.sizeLimits, hooks.reset, (tensor, index) => controller.provenance(tensor, index), () => controller.numericalChecksStep(), controller.gradcheckRules);
    const chapter = views.filter((view) => view.id.startsWith('ch26-'));
    const questionPlace = worked?.querySelector(`:scope > .${askedPart} > .worked-question`);
    this.questions = new ChapterQuestions(chapter, controller.fixtureEvidence, this.diagram.diagram, { ...hooks, idPrefix: `${idPrefix}-exercise` }, questionPlace);
    this.selfScoreSection = buildSelfScoreSection(core, {
      ...hooks,
      idPrefix,
      views: views.filter((view) => view.id.startsWith('qkv04-')),
      settings: () => controller.selfScore,
      accept: (request, facts) => {
        controller.setSelfScore(request, facts);
        hooks.selfScoreAccepted();
        return controller.exercises();
      },
    });
    this.scale = buildScale(idPrefix);
    this.anotherOne = renderAnotherOne(hooks.drawVariant, (request) => controller.practiceStreak(request), worked?.querySelector(`:scope > .${askedPart} > .another-one-bar`));
    this.results = renderResults(idPrefix);
    this.worked = renderWorkedPrediction(controller.fixtureEvidence, this.questions.workedQuestion, this.anotherOne.element, worked);
    this.sections = {
      prediction: this.worked.element,
      rule: renderForwardRule(),
      diagram: this.diagram.element,
      scale: this.scale.element,
      exercises: h(
        'section',
        { class: 'exercises', 'aria-labelledby': `${idPrefix}-exercises-title` },
        h('h3', { id: `${idPrefix}-exercises-title` }, 'Predict, then check'),
        h('p', {}, 'Answer each question, then check it: the core compares your answer with what it computed for the numbers on screen. A wrong answer gets a hint and a second try.'),
        this.questions.list,
      ),
      'self-score': this.selfScoreSection.element,
      next: renderNext(),
    };
    for (const name of sectionNames) {
      this.sections[name].dataset.section = name;
      this.sections[name].id = name; // a link target: #diagram, #self-score…
    }
    // The optional part (reverse mode, the checks, rejected inputs, then the layer at scale, which times forward
    // and backward) comes after the main path, with the diagram; the scale section sits at its end (applySections).
    // A graded run's results end the main path.
    const mainPath = [...sectionNames.filter((name) => name !== 'scale').map((name) => this.sections[name]), this.results.element];
    const intro = keptIfSame(renderIntro(), prerendered?.querySelector(':scope > header.intro'));
    this.notKeptNote = intro.querySelector('p.not-kept')!;
    this.diagram.diagram.deeper.append(this.sections.scale);
    const children = [intro, mathProbe(math.queryBranch), ...mainPath, this.diagram.diagram.deeper];
    this.article = holding(lessonArticle(), prerendered, children);
    waitForLayout(this.article); // laid out a stretch at a time after ready (laid-out.ts)
  }

  // New numbers on screen: the opening's tables, which problem it is, and the chapter's questions follow them.
  showNumbers(evidence: Evidence, chapterViews: ExerciseView[], which: { variantSeed: string | null; edited: boolean; exampleTitle: string | null }): void {
    this.worked.show(evidence, which.edited);
    this.anotherOne.show(which.variantSeed, which.edited, which.exampleTitle);
    this.questions.update(chapterViews, evidence, which.edited);
  }

  noteNotKept(words: string): void {
    this.notKeptNote.textContent = words;
  }

  // Every question of the lesson, with its handle (saved progress, replays).
  *exercises(): Iterable<[string, ExerciseHandle]> {
    yield* this.questions.handles;
    yield* this.selfScoreSection.exercises;
  }

  // Saved work put back: each question's answer checked again (without answer events), and the challenge's text.
  replay(saved: (id: string) => SavedProgress | null | undefined, challenge: string | undefined): void {
    for (const [id, handle] of this.exercises()) {
      const progress = saved(id);
      if (progress) handle.replay(progress);
    }
    if (challenge) this.selfScoreSection.challenge.text.value = challenge;
  }

  // Shows the sections asked for, and puts each question and the look-ahead where the learner meets them.
  applySections(shown: SectionName[], root: ParentNode, revealAll: boolean): void {
    for (const name of sectionNames) this.sections[name].hidden = !shown.includes(name);
    const { deeper, lookAhead, lookAheadHome } = this.diagram.diagram;
    deeper.hidden = !shown.includes('diagram');
    // The scale section ends the optional part; without the diagram (and so without that part), it ends the lesson.
    (deeper.hidden ? this.article : deeper).append(this.sections.scale);
    // The self-score experiment's optional part (its drills, numpy) goes there too; without it, it ends its section.
    const further = this.selfScoreSection.further;
    further.hidden = !shown.includes('self-score');
    (deeper.hidden ? this.sections['self-score'] : this.diagram.diagram.selfScoreFurtherHome).append(further);
    this.scale.headingLevel(deeper.hidden ? 3 : 4);
    // What the views are for comes right after Q, K and V: in the diagram after the branches, or, when the
    // diagram is hidden, at the end of the opening prediction (right after its question and its comment).
    (!shown.includes('diagram') && shown.includes('prediction') ? this.sections.prediction : lookAheadHome).append(lookAhead);
    this.questions.place(shown, this.sections.exercises, root, revealAll);
    for (const [, handle] of this.exercises()) handle.applyReveal(); // also on a change of reveal
  }

  // The idle work, in the order it runs (whenIdle): the checks of the numbers on screen, then the experiment.
  connect(): void {
    this.diagram.connect();
    this.selfScoreSection.connect();
  }

  release(): void {
    this.selfScoreSection.release();
    this.diagram.release();
    this.scale.release();
    this.diagram.sizesBar.cancel();
  }
}
