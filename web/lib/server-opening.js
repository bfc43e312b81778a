// qkv-lesson/server: the lesson's opening as a server render writes it inside <qkv-lesson> (Astro's frontmatter,
// Next's server components, plain Node), so that the learner reads it, and can start typing, before the engine
// arrives; at ready the element's view takes its nodes as its own, with what was typed (src/lesson/prerendered.ts). The markup was rendered
// at the package's build from the core's own numbers (web/prerender/server-opening.ts). Pure: no DOM, no global.
import { afterHref, beforeHref } from './opening-markup.js';

const attributeEscapes = { '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' };

function described(value) {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (value instanceof URL) return 'a URL object (pass its .href)';
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value).slice(8, -1)})`;
  return `${typeof value} ${String(value)}`;
}

/**
 * The element's content, `html` (a declarative shadow root linking the opening's style sheet at `stylesheetUrl`),
 * and the attributes to put on <qkv-lesson> beside it. `stylesheetUrl`: where the site serves qkv-lesson/opening.css
 * (with Vite or Astro, `import href from 'qkv-lesson/opening.css?url'`).
 */
export function prerenderedOpening(stylesheetUrl) {
  if (typeof stylesheetUrl !== 'string' || stylesheetUrl.trim() === '')
    throw new TypeError(`qkv-lesson/server: prerenderedOpening(stylesheetUrl) takes the URL where your site serves qkv-lesson/opening.css, as a non-empty string; got ${described(stylesheetUrl)}`);
  const href = stylesheetUrl.replace(/[&"<>]/g, (character) => attributeEscapes[character]);
  return { html: `${beforeHref}${href}${afterHref}`, attributes: { 'data-prerendered': '' } };
}
