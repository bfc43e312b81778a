// KaTeX's fonts, registered once on the document (@font-face rules inside a shadow root are ignored), under the
// lesson's names for them (font-families.ts).
// URLs come from the build, absolute (or root-relative from Vite's dev server), so they work from any sub-path or
// origin; resolved against the document, as the style sheet would, not import.meta.url: a computed
// new URL(…, import.meta.url) makes webpack bundle every file of the folder as a "Critical dependency".
import { lessonFontFamily, withLessonFontFamilies } from './font-families';

const fontUrls = import.meta.glob('../../../node_modules/katex/dist/fonts/*.woff2', {
  query: '?url',
  import: 'default',
  eager: true,
}) as Record<string, string>;

let registered = false;

export function registerMathFonts(): void {
  if (registered) return;
  registered = true;
  const rules: string[] = [];
  for (const [path, url] of Object.entries(fontUrls)) {
    // KaTeX_Main-BoldItalic.woff2 -> family QkvLesson_Main, weight bold, style italic
    const match = /(KaTeX_[A-Za-z0-9]+)-([A-Za-z]+)\.woff2$/.exec(path);
    if (!match) continue;
    const [, katexFamily, variant] = match;
    const family = lessonFontFamily(katexFamily);
    const weight = variant.includes('Bold') ? 'bold' : 'normal';
    const style = variant.includes('Italic') ? 'italic' : 'normal';
    const absolute = new URL(url, document.baseURI).href;
    rules.push(`@font-face{font-family:${family};src:url(${JSON.stringify(absolute)}) format("woff2");font-weight:${weight};font-style:${style};font-display:swap}`);
  }
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(rules.join('\n'));
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

// The faces the formulas use (tests/browser/fonts.test.mjs checks that the lesson, every fold open, loads no
// other), asked for once the core has arrived: the line is free by then, and they are there for the first frame
// after ready or soon after, rather than each laying the lesson out again when it arrives (KaTeX_SansSerif is the
// transpose's T, in folded evidence). A face that fails to load leaves KaTeX's text in the fallback font, as
// font-display: swap does while it loads.
const mathFaces = ['1em KaTeX_Main', 'italic 1em KaTeX_Math', '1em KaTeX_AMS', '1em KaTeX_SansSerif'].map(withLessonFontFamilies);

export function loadMathFonts(): void {
  for (const face of mathFaces) document.fonts.load(face).catch(() => undefined);
}
