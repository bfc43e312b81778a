// Every exercise's prose, keyed by the core's ids (exercise-prose.json), and the one form that asks it. The core
// (cpp/learner/exercises.cpp) holds the rest: option order, right answers, hints and explanations, computed
// from the values the learner is looking at. The page never grades.
import { BuiltFrom, counterpartIn, h, sayTheSame, type SetByLesson, setText } from './dom';
import { savedTextLimit } from './saved-text';
import prose from './exercise-prose.json';
import type { AnswerResponse, CoreError, ExerciseView } from './types';

interface Prose {
  // A few words naming the question where the whole of it would not fit ("Your results").
  title: string;
  question: string;
  blanks?: { label: string; placeholder: string }[];
  choices?: Record<string, string>;
  // What the question needs beside it when it is asked away from its part of the lesson.
  context?: string;
}

export const exerciseProse: Record<string, Prose> = prose;

// One check, as course pages receive it: what the learner typed, what the core read, whether it was right,
// and what the question offered and expected (for an xAPI statement or a SCORM interaction).
export interface AnswerRecord {
  id: string;
  question: string;
  interaction: 'choice' | 'fill-in';
  choices: { id: string; text: string }[]; // a choice question's options, in the order shown
  typed: string[];
  read: string[];
  correct: boolean; // the response matched
  counts: boolean; // and the check counts as a success: the core's rule (counts_as_success in cpp/learner/exercise.hpp)
  correctResponse: string[]; // the core's answer for the numbers asked about (option ids for a choice)
  attempt: number; // 1 for the first check of this question, 2 for the next…, across saved visits
  revealed: boolean; // the answer was on screen before this check (then it never counts as a success)
  durationMs: number; // since the question was shown, or since its previous check
}

/** What the lesson keeps of one question: enough to put the learner's work back (progress-key, SCORM). */
export interface ExerciseProgress {
  responses: string[];
  /** The last check matched. */
  correct: boolean;
  /** The last check counts as a success (absent in work saved before the lesson kept it). */
  counts?: boolean;
  attempts: number;
  /** The answer was shown before the learner got it right: by their request or by the lesson. */
  revealed: boolean;
}

// Who put an answer on screen before the learner got it right: the learner ("Show the answer") or the lesson
// (after the second wrong check).
export type ShownBy = 'learner' | 'lesson';

/** When exercise answers are shown: after a check (default), never (only right or wrong; hints stay), or always
 * (a teacher's copy with every answer shown). */
export type Reveal = 'after-check' | 'never' | 'always';

export interface ExerciseOptions {
  idPrefix: string;
  // answerShown: the answer was on screen before this check (the core then counts no success); attemptsUsed: the
  // checks already made of it (the core refuses one past the author's allowance).
  check: (id: string, responses: string[], answerShown: boolean, attemptsUsed: number) => AnswerResponse;
  reveal: () => Reveal;
  onAnswer: (record: AnswerRecord, replayed: boolean) => void;
  // The answer was shown before the learner got it right (replayed: restored from saved progress).
  onShown?: (id: string, by: ShownBy, replayed: boolean) => void;
}

export interface ExerciseHandle {
  form: HTMLFormElement;
  // Puts saved work back and checks it again, without reporting it (progress kept across visits).
  replay(saved: Partial<ExerciseProgress> & { responses: string[] }): void;
  // What the learner did with this question, or null if nothing yet.
  progress(): ExerciseProgress | null;
  // New values from the core (another seed): the teacher's answer follows them.
  update(view: ExerciseView): void;
  // The core's word on this question's checks (its outcome's checks_note): a note says they are used up, Check is
  // disabled and the note replaces the offer of another try; none ("") and both are back.
  applyAllowance(checksNote: string): void;
  // The reveal attribute now (it may change at any time): the teacher's copy of the answer and Show the answer follow.
  applyReveal(): void;
}

// The right answer in words: an option's label, or each blank's answer (after its label when there are
// several). Each part is its own <bdi data-answer-part>, so a reader can tell the parts apart.
function answerParts(view: ExerciseView, answer: string[]): (Node | string)[] {
  const words = questionWords(view);
  const part = (text: string) => h('bdi', { dir: 'ltr', 'data-answer-part': '' }, text);
  if (view.kind === 'choice') return [part(words.choice(answer[0]))];
  if (answer.length === 1) return [part(answer[0])];
  return answer.flatMap((text, i) => [...(i > 0 ? ['; '] : []), `${words.blank(i).label} `, part(text)]);
}

// A question's words: the core's, where it writes them from the numbers on screen (the question, its options,
// its blanks' labels), else the page's prose for the id.
export function questionWords(view: ExerciseView) {
  const prose = exerciseProse[view.id] ?? { question: view.id };
  return {
    question: view.question || prose.question,
    choice: (id: string): string => view.choice_texts[view.choices.indexOf(id)] || prose.choices?.[id] || id,
    blank: (i: number) => ({ label: view.blank_labels[i] || prose.blanks?.[i]?.label || `Answer ${i + 1}`, placeholder: prose.blanks?.[i]?.placeholder ?? '' }),
  };
}

function answerBlock(view: ExerciseView, answer: string[], explanation: string): (Node | string)[] {
  return [h('p', {}, h('strong', {}, 'Answer: '), ...answerParts(view, answer)), h('p', {}, explanation)];
}

// Numbers the visible questions 1, 2, 3… in document order, which is the order a learner meets them; a
// question in a hidden part keeps no number. Run again whenever questions move or parts show or hide.
export function numberExercises(root: ParentNode): void {
  let number = 0;
  for (const form of root.querySelectorAll<HTMLFormElement>('form.exercise')) {
    const label = form.querySelector('.exercise-number');
    if (!label) continue;
    const text = form.closest('[hidden]') ? '' : `${++number}. `;
    if (label.textContent !== text) label.textContent = text; // an adopted form's number stays the node it was
  }
  nestQuestionHeadings(root);
}

const headingBelow: Record<string, 'h3' | 'h4' | 'h5' | 'h6'> = { H2: 'h3', H3: 'h4', H4: 'h5', H5: 'h6' };

// A question's heading is one level below the heading of the part it sits in (an h4 under a section's h3, an h5
// under a part's h4), wherever the sections shown put it: headings nest, sections above questions. The part's
// heading is the last one before the question that heads something holding the question (not a fold's).
function nestQuestionHeadings(root: ParentNode): void {
  const headings: HTMLElement[] = [];
  for (const element of root.querySelectorAll<HTMLElement>('h2, h3, h4, h5, form.exercise')) {
    if (element.closest('[hidden]')) continue;
    if (!(element instanceof HTMLFormElement)) {
      if (!element.closest('form.exercise')) headings.push(element);
      continue;
    }
    const part = [...headings].reverse().find((heading) => heading.parentElement?.contains(element));
    const wanted = headingBelow[part?.tagName ?? 'H3'];
    const title = element.querySelector<HTMLElement>('.question-title')!;
    if (title.tagName === wanted.toUpperCase()) continue;
    const nested = h(wanted, { id: title.id, class: title.className });
    nested.append(...title.childNodes);
    title.replaceWith(nested);
  }
}

// A question's inputs: its options as radio buttons (in the core's order), or its blanks as text fields, and their
// labels, whose words follow the numbers (showWords).
function answerFields(view: ExerciseView, name: string): { inputs: HTMLInputElement[]; labels: HTMLLabelElement[]; fields: Node[] } {
  const inputs: HTMLInputElement[] = [];
  const labels: HTMLLabelElement[] = [];
  const words = questionWords(view);
  if (view.kind === 'choice') {
    const group = h('fieldset', { class: 'choices' }, h('legend', {}, 'Choose one'));
    for (const choice of view.choices) {
      const id = `${name}-choice-${choice}`;
      const input = h('input', { id, type: 'radio', name, value: choice });
      const label = h('label', { for: id }, words.choice(choice));
      inputs.push(input);
      labels.push(label);
      group.append(h('p', {}, input, ' ', label));
    }
    return { inputs, labels, fields: [group] };
  }
  const fields: Node[] = [];
  for (let i = 0; i < view.blanks; i++) {
    const blank = words.blank(i);
    const id = `${name}-blank-${i}`;
    // maxlength: what storage, restoreProgress and the LMS keep of an answer (host-bridge.ts); as attributes, so
    // that the prerendered opening's fields have them too (opening.ts).
    const inputMode = view.kind === 'count' ? 'numeric' : undefined;
    const input = h('input', { id, type: 'text', placeholder: blank.placeholder, autocomplete: 'off', spellcheck: 'false', maxlength: `${savedTextLimit}`, inputmode: inputMode });
    const label = h('label', { for: id }, blank.label);
    inputs.push(input);
    labels.push(label);
    fields.push(h('p', { class: 'blank' }, label, ' ', input));
  }
  return { inputs, labels, fields };
}

// A question's heading, its text, and the note saying why it is not graded when the numbers make it meaningless.
function questionHeading(name: string) {
  const text = h('span', { class: 'question-text' });
  const title = h('h4', { id: `${name}-question`, class: 'question-title' }, h('span', { class: 'exercise-number' }), text);
  const notGraded = h('p', { class: 'note not-graded', 'data-not-graded': '' });
  return { title, text, notGraded };
}

// The nodes of one question's form that its handle reads and writes.
interface FormParts {
  form: HTMLFormElement;
  text: HTMLElement;
  notGraded: HTMLElement;
  inputs: HTMLInputElement[];
  labels: HTMLLabelElement[];
  checkButton: HTMLButtonElement;
  showAnswer: HTMLButtonElement;
  feedback: HTMLElement;
  teacherAnswer: HTMLElement;
}

function formParts(view: ExerciseView, name: string): FormParts {
  const feedback = h('div', { class: 'feedback', 'aria-live': 'polite', 'data-feedback': view.id });
  const { inputs, labels, fields } = answerFields(view, name);
  const { title, text, notGraded } = questionHeading(name);
  const teacherAnswer = h('div', { class: 'teacher-answer', 'data-answer': view.id, hidden: true });
  const showAnswer = h('button', { type: 'button', class: 'show-answer' }, 'Show the answer');
  const checkButton = h('button', { type: 'submit' }, 'Check');
  const form = h(
    'form',
    { class: 'exercise', 'data-exercise': view.id, 'aria-labelledby': `${name}-question` },
    title,
    notGraded,
    ...fields,
    h('p', { class: 'exercise-actions' }, checkButton, ' ', showAnswer),
    feedback,
    teacherAnswer,
  );
  return { form, text, notGraded, inputs, labels, checkButton, showAnswer, feedback, teacherAnswer };
}

// The question's words in the core's words for the numbers on screen (again after new numbers): its heading, why it
// is not graded, its options' or blanks' labels.
function showWords(parts: FormParts, view: ExerciseView): void {
  const words = questionWords(view);
  setText(parts.text, words.question);
  setText(parts.notGraded, view.not_graded ?? '');
  parts.notGraded.hidden = view.not_graded === undefined;
  parts.labels.forEach((label, i) => setText(label, view.kind === 'choice' ? words.choice(view.choices[i]) : words.blank(i).label));
}

// What the lesson sets itself on a question's form, so what a prerendered form says of them is not compared when
// adopting it: the number, which numberExercises writes into every form once placed (the view's form has none until
// then), and Check's disabled, set in the prerender until the lesson's script runs (opening.ts) and the lesson's from
// then on (adoptedForm enables it; applyAllowance disables it once checks are used up).
const setByLesson: SetByLesson[] = [
  { selector: '.exercise-number', text: true },
  { selector: 'button[type="submit"]', attribute: 'disabled' },
];

// `made`'s parts in the form the build prerendered (opening.ts), when it asks the same question with the same
// fields, all else but setByLesson compared: what the learner typed there is simply still there. Null when it asks
// something else.
function adoptedForm(made: FormParts, prerendered: HTMLFormElement | null | undefined): FormParts | null {
  if (!prerendered || !sayTheSame(made.form, prerendered, setByLesson)) return null;
  const at = counterpartIn(made.form, prerendered);
  const adopted: FormParts = {
    form: prerendered,
    text: at(made.text),
    notGraded: at(made.notGraded),
    inputs: made.inputs.map(at),
    labels: made.labels.map(at),
    checkButton: at(made.checkButton),
    showAnswer: at(made.showAnswer),
    feedback: at(made.feedback),
    teacherAnswer: at(made.teacherAnswer),
  };
  adopted.checkButton.disabled = false;
  return adopted;
}

type Graded = Extract<AnswerResponse, { ok: true }>;

// The core's word on the checks left, on the form: when its note says they are used up, Check disabled,
// data-no-checks-left, the offer of another try (data-try-again) hidden and the note shown (the Check button is
// disabled beside it), or the other way round. A refusal already says it in the core's own sentence, so no note is
// added beside it.
function applyAllowance(form: HTMLFormElement, check: HTMLButtonElement, feedback: HTMLElement, checksNote: string): void {
  const outOfChecks = checksNote !== '';
  check.disabled = outOfChecks;
  form.toggleAttribute('data-no-checks-left', outOfChecks);
  const tryAgain = feedback.querySelector<HTMLElement>('[data-try-again]');
  if (tryAgain) tryAgain.hidden = outOfChecks;
  feedback.querySelector('[data-no-checks-left]')?.remove();
  if (!outOfChecks || feedback.querySelector('[data-refused]')) return;
  const note = h('p', { class: 'note', 'data-no-checks-left': '' }, checksNote);
  const after = tryAgain ?? feedback.querySelector('.verdict-text');
  if (after) after.after(note);
  else feedback.prepend(note);
}

// A check the core refused: an answer it could not read, or one past the checks allowed, in the core's words (its
// reader's message already says what was not read and what it expected).
function refusalFeedback(error: CoreError): HTMLElement[] {
  const words = error.kind === 'attempts' ? error.sentence : error.message;
  return [h('p', { class: 'verdict-text wrong', 'data-refused': '' }, words)];
}

// What a graded check shows: the verdict, then a hint and another try, or the answer (right, after the second
// wrong try, in a teacher's copy, or once shown); never the answer when answers are never shown. The offer of
// another try is marked data-try-again: applyAllowance swaps it for the no-checks-left note.
function checkFeedback(view: ExerciseView, result: Graded, mode: Reveal, wrongTries: number, revealed: boolean): (Node | string)[] {
  const verdict = h('p', { class: `verdict-text ${result.correct ? 'right' : 'wrong'}` }, result.correct ? '✓ Correct.' : '✗ Not quite.');
  // A check after the answer was shown is graded, but a course never counts it as a success.
  const shownFirst = result.correct && !result.counts ? [h('p', { class: 'note' }, 'The answer was shown before this check, so it is not counted as a success.')] : [];
  const hint = () => [h('p', { class: 'hint' }, h('strong', {}, 'Hint: '), result.hint || 'Look again at the numbers above.')];
  const tryAgain = (words: string) => h('p', { 'data-try-again': '' }, words);
  if (mode === 'never') return [verdict, ...shownFirst, ...(result.correct ? [] : [...hint(), tryAgain('Try again.')])];
  if (result.correct || wrongTries >= 2 || mode === 'always' || revealed) return [verdict, ...shownFirst, ...answerBlock(view, result.answer, result.explanation)];
  return [verdict, ...hint(), tryAgain('Try once more, or show the answer.')];
}

// What one exercise keeps of its checks: wrong tries (a hint, then the answer), attempts (the statements), whether
// the answer was shown before the learner got it right (a right check shows it as their own), the last graded
// check (the progress) and when the last check was (its duration).
interface CheckRecord {
  wrongTries: number;
  attempts: number;
  revealed: boolean;
  last: { typed: string[]; correct: boolean; counts: boolean } | null;
  since: number;
}

interface CheckContext {
  view: ExerciseView;
  form: HTMLFormElement;
  feedback: HTMLElement;
  options: ExerciseOptions;
  record: CheckRecord;
  markShown: (by: ShownBy, replayed: boolean) => void;
}

// One check of `typed`: the core grades it, the feedback shows, the check is reported and recorded.
function submitCheck({ view, form, feedback, options, record, markShown }: CheckContext, typed: string[], replayed: boolean): void {
  const answerShown = record.revealed || options.reveal() === 'always';
  // A replayed check was taken when it was made: graded again, not refused, whatever the allowance is now.
  const result = options.check(view.id, typed, answerShown, replayed ? 0 : record.attempts);
  if (!result.ok) {
    feedback.replaceChildren(...refusalFeedback(result.error));
    return;
  }
  record.attempts++;
  if (!result.correct) record.wrongTries++;
  const mode = options.reveal();
  feedback.replaceChildren(...checkFeedback(view, result, mode, record.wrongTries, record.revealed));
  form.dataset.answered = result.correct ? 'correct' : 'incorrect';
  const now = performance.now();
  record.last = { typed, correct: result.correct, counts: result.counts };
  options.onAnswer(
    {
      id: view.id,
      question: questionWords(view).question,
      interaction: view.kind === 'choice' ? 'choice' : 'fill-in',
      choices: view.kind === 'choice' ? view.choices.map((id) => ({ id, text: questionWords(view).choice(id) })) : [],
      typed,
      read: result.read,
      correct: result.correct,
      counts: result.counts,
      correctResponse: result.answer,
      attempt: record.attempts,
      revealed: answerShown,
      durationMs: now - record.since,
    },
    replayed,
  );
  record.since = now;
  // The answer now on screen after a wrong check was shown by the lesson: later checks do not count.
  if (!result.correct && mode === 'after-check' && record.wrongTries >= 2) markShown('lesson', replayed);
}

// One exercise: its blanks or options (in the core's order), Check, Show the answer, and feedback. A wrong
// answer gets a hint and a second try; the answer shows after the second wrong check, or when asked. Once it
// has been shown (or in a teacher's copy, where it always is), the core counts no check as a success.
// `prerendered`: the form the build prerendered for it, taken as its own when it asks the same (adoptedForm).
export function renderExercise(initial: ExerciseView, options: ExerciseOptions, prerendered?: HTMLFormElement | null): ExerciseHandle {
  let view = initial;
  const made = formParts(view, `${options.idPrefix}-${view.id}`);
  // Built only while shown (a teacher's copy), and rebuilt only when what it says changes: most edits leave a
  // question's answer as it was. Hidden, building every question's answer cost about 0.9 ms of each edit, and
  // 10–15 ms of the start on a slow phone, for nothing on screen.
  const teacherAnswerSays = new BuiltFrom<void>();
  const showTeacherAnswer = (parts: FormParts) => {
    const shown = options.reveal() === 'always';
    parts.teacherAnswer.hidden = !shown;
    const says = shown ? [view.answer, view.explanation, view.choices, view.choice_texts, view.blank_labels] : null;
    teacherAnswerSays.get(says, () => parts.teacherAnswer.replaceChildren(...(shown ? answerBlock(view, view.answer, view.explanation) : [])));
  };
  // Rewritten only when the core's words change: an edit that leaves a question's words as they were rewrites none
  // of them (names as MathML and all), as every edit did.
  const wordsSaid = new BuiltFrom<void>();
  const showWordsIn = (parts: FormParts) => wordsSaid.get([view.question, view.not_graded ?? null, view.choices, view.choice_texts, view.blank_labels], () => showWords(parts, view));
  const applyRevealTo = (parts: FormParts) => {
    showTeacherAnswer(parts);
    parts.showAnswer.hidden = options.reveal() !== 'after-check';
  };
  applyRevealTo(made);
  showWordsIn(made);
  const parts = adoptedForm(made, prerendered) ?? made;
  const { form, inputs, feedback, showAnswer, checkButton } = parts;
  const applyReveal = () => applyRevealTo(parts);

  const record: CheckRecord = { wrongTries: 0, attempts: 0, revealed: false, last: null, since: performance.now() };
  // The core's note on this question's checks when they are used up ("" while checks are left).
  let checksNote = '';
  const markShown = (by: ShownBy, replayed: boolean) => {
    if (record.revealed || record.last?.correct) return;
    record.revealed = true;
    form.dataset.revealed = by;
    options.onShown?.(view.id, by, replayed);
  };
  const showTheAnswer = (replayed: boolean) => {
    markShown('learner', replayed);
    feedback.replaceChildren(...answerBlock(view, view.answer, view.explanation));
  };
  showAnswer.addEventListener('click', () => showTheAnswer(false));

  const responsesNow = () => (view.kind === 'choice' ? [inputs.find((input) => input.checked)?.value ?? ''] : inputs.map((input) => input.value));
  const submit = (replayed: boolean) => submitCheck({ view, form, feedback, options, record, markShown }, responsesNow(), replayed);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit(false);
  });
  return {
    form,
    replay(saved) {
      const { responses } = saved;
      if (saved.revealed) showTheAnswer(true);
      if (view.kind === 'choice') for (const input of inputs) input.checked = input.value === responses[0];
      else inputs.forEach((input, i) => (input.value = responses[i] ?? ''));
      if (responses.some((response) => response !== '')) {
        // The replayed check counts as the last saved attempt, not as a new one.
        record.attempts = saved.attempts === undefined ? 0 : saved.attempts > 0 ? saved.attempts - 1 : 0; // a count host-bridge.ts read as a whole number
        submit(true);
      }
    },
    progress() {
      const { last, attempts, revealed } = record;
      if (!last && !revealed) return null;
      return { responses: last?.typed ?? responsesNow(), correct: last?.correct ?? false, counts: last?.counts ?? false, attempts, revealed };
    },
    update(next) {
      if (next === view) return; // the same listing (controller.exercises keeps the last): nothing to rewrite
      // A verdict (or a shown answer) about other numbers must not stand beside these: said, and cleared.
      const answerChanged = next.answer.join('\u241f') !== view.answer.join('\u241f');
      const changed = answerChanged || next.explanation !== view.explanation || next.question !== view.question;
      view = next;
      showTeacherAnswer(parts);
      showWordsIn(parts);
      if (!changed) return;
      // Another answer is a new problem: the one shown for the old numbers does not give it away, and its two tries
      // start again. The same answer stays given away.
      if (answerChanged) [record.wrongTries, record.revealed] = [0, false];
      if (answerChanged) delete form.dataset.revealed;
      if (feedback.childElementCount === 0) return;
      feedback.replaceChildren(h('p', { class: 'note', 'data-stale': '' }, 'The numbers changed since this was checked, so its verdict no longer applies. Check again for the numbers shown.'));
      delete form.dataset.answered;
      // Checks used up stay used up with other numbers: their note stays beside the stale one.
      if (checksNote) applyAllowance(form, checkButton, feedback, checksNote);
    },
    applyAllowance(note) {
      checksNote = note;
      applyAllowance(form, checkButton, feedback, checksNote);
    },
    applyReveal,
  };
}
