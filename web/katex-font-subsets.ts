// KaTeX's fonts cut down to the characters the lesson's formulas use. Every formula is typeset at build time
// (typeset-formulas.ts), so the characters are known here: each woff2 font that fonts.ts registers is emitted as a
// subset (HarfBuzz's, through subset-font) holding those characters only, under a name hashed from the subset.
// The three fonts the formulas use were 71.6 kB of brotli on a cold load; a browser downloads them when text
// first needs them, and each one's arrival laid the lesson out again after ready (docs/performance.md).
// A subset is a Modified Version under the fonts' licence (SIL OFL 1.1), which may not use the Reserved Font
// Name each KaTeX font declares: each subset gets the lesson's name (src/lesson/font-families.ts) and keeps every
// other name record of the font, its copyright notice and licence among them (docs/licensing.md).
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import fontverter from 'fontverter';
import subsetFont from 'subset-font';
import type { Plugin } from 'vite';
import { fontNameIds, nameRecords, reservedFontNames, withNameRecords, type NameRecord } from './font-names.ts';
import { lessonFontFamily } from './src/lesson/font-families.ts';
import { typesetFormulas } from './typeset-formulas.ts';

// Every character of every formula's markup, tags and entities aside (KaTeX writes & < > " ' as entities).
export function formulaCharacters(): string {
  const characters = new Set<string>();
  for (const markup of Object.values(typesetFormulas())) {
    const text = markup
      .replace(/<[^>]*>/g, '')
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#x27;/g, "'");
    if (/&[#\w]+;/.test(text)) throw new Error(`a formula's markup has an entity this plugin does not read: ${/&[#\w]+;/.exec(text)?.[0]}`);
    for (const character of text) characters.add(character);
  }
  return [...characters].sort().join('');
}

// FreeType's auto-hinter (Chromium's and WebKit's on Linux) sets each font's alignment zones from reference letters
// of each script (its blue strings, afblue.dat) and its widths from 'o' and 'ο': a subset without them drew the same
// glyphs up to a pixel lower, so every subset keeps them.
const hintingReference = 'THEZOCQS HEZLOCUS fijkdbh xzroesc pqgjy o ΓΒΕΖΘΟΩ ΒΔΖΞΘΟ βθδζλξ αειοπστω βγημρφχψ ο';

// A WOFF2 font at least `minimumBytes` long: what it lacks is added as the file's private data block (WOFF2 §3:
// the header's privOffset and privLength, on a 4-byte boundary at the end of the file), which decoders skip.
export function padWoff2(font: Uint8Array, minimumBytes: number): Uint8Array {
  if (font.length >= minimumBytes) return font;
  const header = new DataView(font.buffer, font.byteOffset, font.byteLength);
  if (header.getUint32(0) !== 0x774f4632 || header.getUint32(8) !== font.length || header.getUint32(44) !== 0)
    throw new Error('padWoff2: not a WOFF2 font of its stated length without a private block');
  const privateOffset = Math.ceil(font.length / 4) * 4;
  const padded = new Uint8Array(Math.max(minimumBytes, privateOffset + 4));
  padded.set(font);
  const view = new DataView(padded.buffer);
  view.setUint32(8, padded.length); // length
  view.setUint32(40, privateOffset); // privOffset
  view.setUint32(44, padded.length - privateOffset); // privLength
  return padded;
}

// The records that may quote a font's name as a notice (copyright, trademark, licence): kept word for word. Every
// other record (family, full, PostScript, typographic names…) is the subset's own.
const noticeNameIds = new Set<number>([fontNameIds.copyright, fontNameIds.trademark, fontNameIds.licenseDescription, fontNameIds.licenseUrl]);
const comparable = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

// The subset's records under the lesson's family name (KaTeX_Main -> QkvLesson_Main wherever a record other than
// a notice names it, and a unique ID of the subset's own); an error if such a record still holds a Reserved Font
// Name the font declares, however spaced or cased.
function renamedRecords(records: NameRecord[]): NameRecord[] {
  const katexFamily = records.find((record) => record.nameId === fontNameIds.family)?.text;
  if (!katexFamily) throw new Error('katex-font-subsets: a KaTeX font without a family name');
  const family = lessonFontFamily(katexFamily);
  const postScriptName = records.find((record) => record.nameId === fontNameIds.postScriptName)?.text.replaceAll(katexFamily, family) ?? family;
  const renamed = records.map((record) => {
    if (noticeNameIds.has(record.nameId)) return record;
    return { ...record, text: record.nameId === fontNameIds.uniqueId ? `qkv-lesson subset: ${postScriptName}` : record.text.replaceAll(katexFamily, family) };
  });
  for (const reserved of reservedFontNames(records)) {
    const kept = renamed.find((record) => !noticeNameIds.has(record.nameId) && comparable(record.text).includes(comparable(reserved)));
    if (kept) throw new Error(`katex-font-subsets: name ${kept.nameId} of the subset of ${katexFamily} keeps the Reserved Font Name ${reserved}: ${kept.text}`);
  }
  return renamed;
}

// The font (woff2) cut down to `text`, renamed, as woff2. HarfBuzz keeps only name IDs 0–6 unless told, so it is
// told to keep every record the font has (the licence, 13 and 14, among them).
async function renamedSubset(woff2: Buffer, text: string): Promise<Buffer> {
  const originalIds = nameRecords(await fontverter.convert(woff2, 'sfnt')).map((record) => record.nameId);
  const subset = await subsetFont(woff2, text, { targetFormat: 'sfnt', preserveNameIds: [...new Set(originalIds)] });
  return fontverter.convert(withNameRecords(subset, renamedRecords(nameRecords(subset))), 'woff2', 'sfnt');
}

// minimumBytes: the npm package's build pads each subset to at least this length (vite.lib.config.ts).
export function katexFontSubsets({ minimumBytes = 0 } = {}): Plugin {
  const text = formulaCharacters() + hintingReference;
  return {
    name: 'qkv-katex-font-subsets',
    apply: 'build',
    enforce: 'pre',
    async load(id) {
      const [path, query] = id.split('?');
      if (query !== 'url' || !/\/katex\/dist\/fonts\/KaTeX_[\w-]+\.woff2$/.test(path)) return undefined;
      const source = padWoff2(await renamedSubset(await readFile(path), text), minimumBytes);
      const reference = this.emitFile({ type: 'asset', name: basename(path), source });
      return `export default import.meta.ROLLUP_FILE_URL_${reference};`;
    },
  };
}
