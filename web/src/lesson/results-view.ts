// "Your results", at the end of the main path in a graded run: each question that counts (its number as the page
// shows it, in reading order, and its short title from exercise-prose.json: whole questions crowd a phone), whether it is right, not right, had its answer shown or is not yet answered, the checks
// used of those allowed, then the score, the pass mark and whether it passes. Every number is the core's outcome
// (lesson.outcome()); the words say what colour never has to.
import { h } from './dom';
import { exerciseProse } from './exercises';
import type { OutcomeResponseMembers } from './core-api';

type Outcome = OutcomeResponseMembers;
type QuestionResult = Outcome['questions'][number];

export interface ResultsView {
  element: HTMLElement;
  // The outcome now (null: the core refused, or not a graded run: the section hides); `form` finds a question's form.
  show(outcome: Outcome | null, form: (id: string) => HTMLFormElement | undefined): void;
}

function checksWords(question: QuestionResult, allowed: number): string {
  return allowed > 0 ? `${question.attempts} of ${allowed}` : `${question.attempts} (no limit)`;
}

function verdictWords(outcome: Outcome): string {
  if (!outcome.completed) return 'Not finished: every question that counts needs a check or its answer shown before the run is graded.';
  return outcome.passed ? 'This passes.' : 'This does not pass.';
}

// One row: the question's number and short title link to its form.
function row(question: QuestionResult, allowed: number, form: HTMLFormElement | undefined): HTMLElement {
  const number = form?.querySelector('.exercise-number')?.textContent?.trim() ?? '';
  const words = exerciseProse[question.id]?.title ?? question.id;
  const heading = form?.querySelector<HTMLElement>('.question-title');
  const title = heading?.id ? h('a', { href: `#${heading.id}` }, words) : words;
  return h(
    'tr',
    { 'data-result': question.id, 'data-standing': question.standing },
    h('th', { scope: 'row' }, number),
    h('td', {}, title),
    h('td', {}, question.standing),
    h('td', {}, checksWords(question, allowed)),
  );
}

export function renderResults(idPrefix: string): ResultsView {
  const body = h('tbody');
  const summary = h('p', { class: 'results-summary', 'data-results-summary': '' });
  const verdict = h('p', { class: 'results-verdict', 'data-results-verdict': '' });
  const practice = h('p', { class: 'note', 'data-results-practice': '' });
  const element = h(
    'section',
    { class: 'results', 'aria-labelledby': `${idPrefix}-results-title`, 'data-results': '', hidden: true },
    h('h3', { id: `${idPrefix}-results-title` }, 'Your results'),
    h(
      'table',
      { class: 'results-table' },
      h('caption', {}, 'The questions that count'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'No.'), h('th', { scope: 'col' }, 'Question'), h('th', { scope: 'col' }, 'Result'), h('th', { scope: 'col' }, 'Checks used'))),
      body,
    ),
    summary,
    verdict,
    practice,
  );
  return {
    element,
    show(outcome, form) {
      element.hidden = outcome === null;
      if (!outcome) return;
      const counted = outcome.questions.filter((question) => question.counted);
      body.replaceChildren(...counted.map((question) => row(question, outcome.attempts, form(question.id))));
      summary.textContent = `Score: ${outcome.percent} % (${outcome.right} of ${outcome.counted} right). Pass mark: ${outcome.passing_percent} %.`;
      verdict.textContent = verdictWords(outcome);
      practice.textContent = outcome.counted < outcome.shown ? 'The lesson’s other questions are practice: they do not change the score.' : '';
    },
  };
}
