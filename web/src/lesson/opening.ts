// The lesson's opening as the build prerenders it into the page (web/prerender/): the heading, the intro and the
// opening prediction with X, the weights and its question, made by the components the element builds them with
// (content.ts, exercises.ts, another-one.ts) from the core's fixture, so that the text is the core's exactly. At
// ready the element's view takes these nodes as its own where they say what it would say (prerendered.ts).
import { renderAnotherOne } from './another-one';
import { lessonArticle, renderIntro, renderWorkedPrediction } from './content';
import { h } from './dom';
import { numberExercises, renderExercise } from './exercises';
import type { Evidence, ExerciseView } from './types';

// The question the opening prediction asks (questions.ts puts its form there).
export const openingQuestionId = 'ch26-first-token';

// `idPrefix`: the element's for its first instance, so that ids and labels match the view that adopts it.
export function renderOpening(fixture: Evidence, views: ExerciseView[], idPrefix: string): HTMLElement {
  const view = views.find((candidate) => candidate.id === openingQuestionId);
  if (!view) throw new Error(`the core lists no ${openingQuestionId} question to prerender`);
  const notAsked = () => {
    throw new Error('a prerendered question is never checked: at ready the element’s view checks it');
  };
  const question = renderExercise(view, { idPrefix: `${idPrefix}-exercise`, check: notAsked, reveal: () => 'after-check', onAnswer: notAsked });
  // Before the lesson's script runs nothing stops the form being sent (Enter would reload the page and lose what was
  // typed); a disabled default button blocks that. Its other buttons are type="button": they do nothing until then.
  question.form.querySelector<HTMLButtonElement>('button[type="submit"]')!.disabled = true;
  const anotherOne = renderAnotherOne(notAsked, notAsked);
  anotherOne.show(null, false, null);
  const worked = renderWorkedPrediction(fixture, h('div', { class: 'worked-question' }, question.form), anotherOne.element);
  const article = lessonArticle(renderIntro(), worked.element);
  numberExercises(article);
  return article;
}
