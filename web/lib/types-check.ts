// Holds the package's hand-written types (qkv-lesson.d.ts) equal to the source's: `tsc -p web/lib` fails on
// any difference (tests/browser/npm-package.test.mjs runs it). Not part of the package.
import type * as Declared from './qkv-lesson';
import type { AnswerStatement } from '../src/lesson/answers';
import { answerEvent } from '../src/lesson/answers';
import type { QkvLessonElement, LessonOutcome, LessonProgress, SectionName } from '../src/lesson/element';
import type { ExerciseProgress, Reveal } from '../src/lesson/exercises';

// true only when A and B are the same type (not merely assignable one way).
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Own<E> = Pick<E, Exclude<keyof E, keyof HTMLElement>>;

export const checks: true[] = [
  true as Equal<Declared.AnswerStatement, AnswerStatement>,
  true as Equal<Declared.LessonProgress, LessonProgress>,
  true as Equal<Declared.LessonOutcome, LessonOutcome>,
  true as Equal<Declared.ExerciseProgress, ExerciseProgress>,
  true as Equal<Declared.SectionName, SectionName>,
  true as Equal<Declared.Reveal, Reveal>,
  true as Equal<Declared.Theme, QkvLessonElement['theme']>,
  // Every public member of the element, with its type, and no other.
  true as Equal<Own<Declared.QkvLessonElement>, Own<QkvLessonElement>>,
  true as Equal<Declared.QkvLessonEventMap['qkv-lesson-answer'], CustomEvent<AnswerStatement>>,
  true as Equal<Extract<keyof Declared.QkvLessonEventMap, typeof answerEvent>, typeof answerEvent>,
];
