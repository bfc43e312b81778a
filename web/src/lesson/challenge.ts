// The independent challenge (a free-text answer in the self-score section): kept as it is typed, and reported as a
// statement once the learner leaves the box after changing it, with whether the model answer had been opened.
import { challengeId, challengeStatement, type AnswerStatement, type StatementContext } from './answers';
import type { ExerciseProgress } from './exercises';
import type { SelfScoreSectionView } from './self-score';

export interface ChallengeHooks {
  save(id: string, progress: ExerciseProgress): void; // kept under progress-key
  report(statement: AnswerStatement): void; // the answer event and the message to the course
  context(): StatementContext; // where the statement belongs (lesson-record.ts)
  changed(): void; // the learner's work changed
}

export function watchChallenge({ text, modelAnswer, question }: SelfScoreSectionView['challenge'], hooks: ChallengeHooks): void {
  let since = performance.now();
  let reports = 0;
  let modelSeen = false;
  modelAnswer.addEventListener('toggle', () => (modelSeen ||= modelAnswer.open));
  text.addEventListener('input', () => {
    hooks.save(challengeId, { responses: [text.value], correct: false, attempts: reports, revealed: modelSeen });
    hooks.changed();
  });
  text.addEventListener('change', () => {
    const now = performance.now();
    hooks.report(challengeStatement(question, text.value, now - since, ++reports, modelSeen, hooks.context()));
    since = now;
  });
}
