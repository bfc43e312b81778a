// The names the lesson gives KaTeX's fonts. Each of KaTeX's fonts declares its family name (KaTeX_Main, …) a
// Reserved Font Name under the SIL OFL 1.1, and the build ships subsets of them (web/katex-font-subsets.ts): Modified
// Versions, which may not use those names. So each subset goes by ours, in its own name table and in every
// @font-face rule and KaTeX style rule that names it (docs/licensing.md).
const katexPrefix = 'KaTeX_';
const lessonPrefix = 'QkvLesson_';

// KaTeX_Main -> QkvLesson_Main; any other name is a mistake in the caller.
export function lessonFontFamily(katexFamily: string): string {
  if (!/^KaTeX_[A-Za-z0-9]+$/.test(katexFamily)) throw new Error(`lessonFontFamily: ${katexFamily} is not a KaTeX font family`);
  return lessonPrefix + katexFamily.slice(katexPrefix.length);
}

// Every KaTeX family a style sheet names, under the lesson's name.
export function withLessonFontFamilies(css: string): string {
  return css.replace(/\bKaTeX_[A-Za-z0-9]+\b/g, lessonFontFamily);
}
