// Defines <qkv-lesson> once, even if this module is loaded twice on a page.
import { QkvLessonElement } from './element';

declare global {
  interface HTMLElementTagNameMap {
    'qkv-lesson': QkvLessonElement;
  }
}

if (!customElements.get('qkv-lesson')) customElements.define('qkv-lesson', QkvLessonElement);

export { QkvLessonElement };
