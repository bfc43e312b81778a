// The lesson's style sheets: KaTeX's (its @font-face rules dropped at build time, vite.config.ts) with the
// layout rules that replace its inline styles, then the lesson's own. One text for both uses: the element's
// constructed sheets, and the build's prerendered opening (web/prerender/), which links them as a file.
import katexCss from 'katex/dist/katex.min.css?inline';
import { css as mathLayoutCss } from 'virtual:math';
import lessonCss from './styles.css?inline';

export const lessonCssTexts: readonly string[] = [`${katexCss}\n${mathLayoutCss}`, lessonCss];

let sheets: CSSStyleSheet[] | undefined;
// Constructed style sheets: shared by every instance, isolated in each shadow root, and allowed under a
// Content-Security-Policy without 'unsafe-inline'. KaTeX's fonts are registered on the document (fonts.ts).
export function lessonSheets(): CSSStyleSheet[] {
  sheets ??= lessonCssTexts.map((text) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(text);
    return sheet;
  });
  return sheets;
}
