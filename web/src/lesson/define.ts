// Defines <qkv-lesson> once, even if this module is loaded twice on a page. The npm package's entry: what it
// exports here is the package's API, and its types (dist-lib/qkv-lesson.d.ts) are emitted from this file by
// scripts/build-lib-types.mjs.
import { QkvLessonElement, type QkvLessonEventMap } from './element';

declare global {
  interface HTMLElementTagNameMap {
    'qkv-lesson': QkvLessonElement;
  }
  // The events bubble out of the element, so a listener on a container, the document or the window gets them typed.
  interface GlobalEventHandlersEventMap extends QkvLessonEventMap {}
}

if (!customElements.get('qkv-lesson')) customElements.define('qkv-lesson', QkvLessonElement);

export { QkvLessonElement };
export type { QkvLessonEventMap, LessonOutcome } from './element';
export type { QkvLessonAttributes, SectionName, Theme } from './attributes';
export type { ActivityRef, AnswerStatement, LanguageMap } from './answers';
export type { ExerciseProgress, Reveal } from './exercises';
export type { LessonProgress } from './progress';
