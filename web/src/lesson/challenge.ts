// The independent challenge (a free-text answer in the self-score section): kept as it is typed, up to the
// lesson's one limit for saved text (said beside the box when reached), and reported as a statement once the
// learner leaves the box after changing it, with whether the model answer had been opened.
import { challengeId, challengeStatement, type AnswerStatement, type StatementContext } from './answers';
import { h } from './dom';
import type { ExerciseProgress } from './exercises';
import { savedTextLimit } from './saved-text';
import type { SelfScoreSectionView } from './self-score';

export interface ChallengeHooks {
  save(id: string, progress: ExerciseProgress): void; // kept under progress-key
  report(statement: AnswerStatement): void; // the answer event and the message to the course
  context(): StatementContext; // where the statement belongs (lesson-record.ts)
  changed(): void; // the learner's work changed
}

// The box stops at savedTextLimit characters (what storage, restoreProgress and the LMS keep), and a line beside it
// says so once the box is full: a paste past the limit is cut by the browser, never silently by a later save.
// Returns the check that updates the line (a polite live region, empty until then: it takes no room, and is
// there before its words so that they are announced).
function limitBox(text: HTMLTextAreaElement): () => void {
  text.maxLength = savedTextLimit;
  const note = h('p', { class: 'note challenge-limit', 'aria-live': 'polite', id: `${text.id}-limit`, 'data-challenge-limit': '' });
  text.after(note);
  text.setAttribute('aria-describedby', [text.getAttribute('aria-describedby'), note.id].filter(Boolean).join(' '));
  return () => {
    // Written only once the box is full: the first toLocaleString sets up the browser's number formatting, 60–80 ms
    // of the start on the slow phone's CPU.
    const words = text.value.length >= savedTextLimit ? `This box keeps at most ${savedTextLimit.toLocaleString('en')} characters, and it is full: what you type or paste past that is not kept.` : '';
    if (note.textContent !== words) note.textContent = words;
  };
}

export function watchChallenge({ text, modelAnswer, question }: SelfScoreSectionView['challenge'], hooks: ChallengeHooks): void {
  let since = performance.now();
  let reports = 0;
  let modelSeen = false;
  const sayIfFull = limitBox(text);
  // Saved text is put back after this runs (the same task) or later by the course: the line is checked then too.
  queueMicrotask(sayIfFull);
  text.addEventListener('focus', sayIfFull);
  modelAnswer.addEventListener('toggle', () => (modelSeen ||= modelAnswer.open));
  text.addEventListener('input', () => {
    sayIfFull();
    hooks.save(challengeId, { responses: [text.value], correct: false, attempts: reports, revealed: modelSeen });
    hooks.changed();
  });
  text.addEventListener('change', () => {
    const now = performance.now();
    hooks.report(challengeStatement(question, text.value, now - since, ++reports, modelSeen, hooks.context()));
    since = now;
  });
}
