// Defines <qkv-lesson> once, even if this module is loaded twice on a page. The npm package's entry: what it
// exports here is the package's API, and its types (dist-lib/qkv-lesson.d.ts) are emitted from this file by
// scripts/build-lib-types.mjs.
import { version } from '../../../package.json';
import { startCoreDownloads } from './core';
import { QkvLessonElement, type QkvLessonEventMap } from './element';

declare global {
  interface HTMLElementTagNameMap {
    'qkv-lesson': QkvLessonElement;
  }
  // The events bubble out of the element, so a listener on a container, the document or the window gets them typed.
  interface GlobalEventHandlersEventMap extends QkvLessonEventMap {}
}

// Which copy defined <qkv-lesson>, kept on its class under a global symbol so that any later copy, of any
// version, can name it.
interface DefinedBy {
  version: string;
  script: string;
}
const definedByKey = Symbol.for('qkv-lesson.defined-by');
const thisCopy: DefinedBy = { version, script: import.meta.url };
const describe = (copy: DefinedBy) => `version ${copy.version} (${copy.script})`;

// Two copies on one page (two versions of the package, or a site's own copy beside it) are two module graphs: the
// first to run defines the element, and the other is told so once, on the console, and downloads no engine.
const defined = customElements.get('qkv-lesson');
if (!defined) {
  customElements.define('qkv-lesson', QkvLessonElement);
  Object.defineProperty(QkvLessonElement, definedByKey, { value: thisCopy });
  startCoreDownloads();
} else {
  const first = (defined as unknown as Partial<Record<symbol, DefinedBy>>)[definedByKey];
  console.warn(
    `<qkv-lesson>: this page loads the lesson’s element twice: ${first ? describe(first) : 'another script'} defined <qkv-lesson> first and is ` +
      `the one used; this copy, ${describe(thisCopy)}, is ignored and downloads no engine. Load one copy of the element.`,
  );
}

export { QkvLessonElement };
export type { QkvLessonEventMap, LessonOutcome } from './element';
export type { QkvLessonAttributes, SectionName, Theme } from './attributes';
export type { ActivityRef, AnswerStatement, LanguageMap } from './answers';
export type { ExerciseProgress, Reveal } from './exercises';
export type { LessonProgress } from './progress';
