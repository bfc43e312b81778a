// What the lesson keeps of a learner's work, for a course's own store (`progress`, `restoreProgress`, the
// qkv-lesson-progress event; the SCORM launch page keeps it as suspend_data), and how a saved copy is read back.
import type { ExerciseProgress } from './exercises';
import { readSavedProgress } from './host-bridge';
import { keptText } from './saved-text';
import { uuidPattern } from './lesson-record';
import { linkLimit } from './url-state';

/** What the lesson keeps of a learner's work: `progress`, `restoreProgress`, the qkv-lesson-progress event. */
export interface LessonProgress {
  /** By exercise id: every question checked or shown. */
  answers: Record<string, ExerciseProgress>;
  /** The free-text challenge's answer. */
  challenge: string;
  /** The edited numbers in link format; '' for the frozen fixture. */
  state: string;
  /** The attempt's xAPI registration (a UUID): restoring it continues the attempt. */
  registration?: string;
  /** Drawn problems ("Another one") whose first check was right, in a row. */
  problemsInARow?: number;
}

// A progress object from outside (a course's store): what is readable is kept, the rest dropped.
export function readLessonProgress(value: unknown): LessonProgress | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const given = value as Record<string, unknown>;
  const answers: Record<string, ExerciseProgress> = {};
  const listed = given.answers;
  if (typeof listed === 'object' && listed !== null && !Array.isArray(listed)) {
    for (const [id, saved] of Object.entries(listed as Record<string, unknown>)) {
      const read = readSavedProgress(saved);
      if (read) answers[id] = { responses: read.responses, correct: false, attempts: read.attempts ?? 1, revealed: read.revealed ?? false, ...(read.counts === undefined ? {} : { counts: read.counts }) };
    }
  }
  // The challenge is the learner's text, kept to the lesson's one limit; the state is a link, which a cut would break.
  const challenge = typeof given.challenge === 'string' ? keptText(given.challenge) : '';
  const state = typeof given.state === 'string' && given.state.length <= linkLimit ? given.state : '';
  const registration = typeof given.registration === 'string' && uuidPattern.test(given.registration) ? { registration: given.registration } : {};
  const inARow = given.problemsInARow;
  const problemsInARow = typeof inARow === 'number' && Number.isSafeInteger(inARow) && inARow >= 0 ? { problemsInARow: inARow } : {};
  return { answers, challenge, state, ...registration, ...problemsInARow };
}

// The learner's work as a course keeps it: every question with progress, the challenge's text, and the edited
// numbers' link ('' while the lesson shows the frozen fixture).
export function collectProgress(exercises: Iterable<[string, { progress(): ExerciseProgress | null }]>, challenge: string, state: string, registration: string, problemsInARow = 0): LessonProgress {
  const answers: Record<string, ExerciseProgress> = {};
  for (const [id, handle] of exercises) {
    const progress = handle.progress();
    if (progress) answers[id] = progress;
  }
  return { answers, challenge, state, registration, ...(problemsInARow > 0 ? { problemsInARow } : {}) };
}
