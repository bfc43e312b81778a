// KaTeX's fonts, registered once on the document's font set (@font-face rules inside a shadow root are ignored),
// under the lesson's names for them (font-families.ts).
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
  for (const [path, url] of Object.entries(fontUrls)) {
    // KaTeX_Main-BoldItalic.woff2 -> family QkvLesson_Main, weight bold, style italic
    const match = /(KaTeX_[A-Za-z0-9]+)-([A-Za-z]+)\.woff2$/.exec(path);
    if (!match) continue;
    const [, katexFamily, variant] = match;
    const family = lessonFontFamily(katexFamily);
    const descriptors: FontFaceDescriptors = {
      weight: variant.includes('Bold') ? 'bold' : 'normal',
      style: variant.includes('Italic') ? 'italic' : 'normal',
      display: 'swap',
    };
    const absolute = new URL(url, document.baseURI).href;
    // Loaded when text first uses it, as an @font-face rule's face is.
    const face = new FontFace(family, `url(${JSON.stringify(absolute)}) format("woff2")`, descriptors);
    document.fonts.add(face);
    face.loaded.catch(() => replaceFailedFace(face, absolute, descriptors));
  }
}

// A font file that failed to load may be a damaged copy the HTTP cache keeps for a year (hashed, immutable): it is
// asked for once more from the server, past the cache (which replaces the cached copy), and the face made again
// from those bytes. If that fails too, the fallback font stays, as it does while a face loads.
async function replaceFailedFace(failed: FontFace, url: string, descriptors: FontFaceDescriptors): Promise<void> {
  try {
    const response = await fetch(url, { cache: 'reload' });
    if (!response.ok) return;
    const face = new FontFace(failed.family, await response.arrayBuffer(), descriptors);
    await face.load();
    document.fonts.delete(failed);
    document.fonts.add(face);
  } catch {
    // the fallback font stays
  }
}

// The faces the formulas use (tests/browser/fonts.test.mjs checks that the lesson, every fold open, loads no
// other), asked for once the core has arrived: the line is free by then, and they are there for the first frame
// after ready or soon after, rather than each laying the lesson out again when it arrives (KaTeX_SansSerif is the
// transpose's T, in folded evidence). A face that fails to load, and again past the cache, leaves KaTeX's text in
// the fallback font, as font-display: swap does while it loads.
const mathFaces = ['1em KaTeX_Main', 'italic 1em KaTeX_Math', '1em KaTeX_AMS', '1em KaTeX_SansSerif'].map(withLessonFontFamilies);

export function loadMathFonts(): void {
  for (const face of mathFaces) document.fonts.load(face).catch(() => undefined);
}
