// What the build ships of KaTeX's fonts (issue 18): the lesson registers only woff2 files (fonts.ts), so
// dist/ holds each of KaTeX's woff2 fonts once and none of its .woff or .ttf files (876 kB that no browser
// fetched), and no built file names one. And the subsets, being Modified Versions under the fonts' SIL OFL 1.1,
// use none of the Reserved Font Names the originals declare, yet carry their copyright notice and licence
// (docs/licensing.md), in dist/ and in the npm package's dist-lib/. Reads dist/ (or $QKV_DIST) and dist-lib/
// (npm run build:lib); no browser.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import fontverter from 'fontverter';
import { dist, repo } from './harness.mjs';

const assets = readdirSync(resolve(dist, 'assets'));
const katexFonts = readdirSync(resolve(repo, 'node_modules/katex/dist/fonts'));

test('dist/assets has every KaTeX woff2 font once, and no .woff or .ttf', () => {
  const legacy = assets.filter((name) => /\.(woff|ttf)$/.test(name));
  assert.deepEqual(legacy, [], 'no .woff or .ttf file is shipped');
  const woff2 = katexFonts.filter((name) => name.endsWith('.woff2'));
  assert.ok(woff2.length > 0, 'KaTeX has woff2 fonts');
  for (const font of woff2) {
    const stem = font.replace(/\.woff2$/, '');
    const built = assets.filter((name) => name.startsWith(`${stem}-`) && name.endsWith('.woff2') && /^[\w-]+$/.test(name.slice(stem.length + 1, -'.woff2'.length)));
    assert.equal(built.length, 1, `${font} is shipped once: ${built.join(', ')}`);
  }
});

test('no built script, style sheet or page names a .woff or .ttf file', () => {
  const files = [...assets.filter((name) => /\.(js|css)$/.test(name)).map((name) => `assets/${name}`), ...readdirSync(dist).filter((name) => /\.(js|html|css)$/.test(name))];
  assert.ok(files.length > 2, `built files found: ${files.join(', ')}`);
  for (const file of files) {
    const named = readFileSync(resolve(dist, file), 'utf8').match(/[\w-]+\.(?:woff|ttf)\b(?!2)/g) ?? [];
    assert.deepEqual(named, [], `${file} names no .woff or .ttf`);
  }
});

// Every record of a TrueType/OpenType font's 'name' table (read here on its own, not with the build's
// web/font-names.ts, which wrote them): [nameId, text].
function nameRecords(font) {
  const tables = font.readUInt16BE(4);
  const directory = Array.from({ length: tables }, (_, i) => 12 + i * 16).find((entry) => font.toString('latin1', entry, entry + 4) === 'name');
  assert.ok(directory !== undefined, "the font has a 'name' table");
  const table = font.readUInt32BE(directory + 8);
  const strings = table + font.readUInt16BE(table + 4);
  return Array.from({ length: font.readUInt16BE(table + 2) }, (_, i) => {
    const [platform, , , nameId, length, offset] = [0, 2, 4, 6, 8, 10].map((field) => font.readUInt16BE(table + 6 + i * 12 + field));
    const bytes = Buffer.from(font.subarray(strings + offset, strings + offset + length));
    return [nameId, platform === 0 || platform === 3 ? bytes.swap16().toString('utf16le') : bytes.toString('latin1')];
  });
}

const woff2Names = async (path) => nameRecords(await fontverter.convert(readFileSync(path), 'sfnt'));
const textsOf = (records, nameId) => records.filter(([id]) => id === nameId).map(([, text]) => text);

// The OFL's notice declares them "with Reserved Font Name X." or "… Names "X" and "Y"." (copyright or licence).
function reservedFontNames(records) {
  const notices = records.filter(([id]) => id === 0 || id === 13).map(([, text]) => text).join('\n');
  return [...notices.matchAll(/Reserved Font Names?\s+([^\n]+?)\.?(?:\n|$)/g)].flatMap(([, list]) => {
    const quoted = [...list.matchAll(/"([^"]+)"/g)].map(([, name]) => name);
    return quoted.length ? quoted : list.split(/\s*,\s*|\s+and\s+/);
  });
}

// A name "uses" a Reserved Font Name however it is cased or spaced: KaTeX_Main, KaTeX Main, katexmain.
const comparable = (name) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
// Every record but the ones that may quote the name as a notice: copyright (0), trademark (7), licence (13, 14).
const notices = new Set([0, 7, 13, 14]);

for (const [build, folder] of [['dist', dist], ['dist-lib', resolve(repo, 'dist-lib')]]) {
  test(`${build}: no shipped font subset uses a Reserved Font Name, and each keeps its copyright notice and licence`, async () => {
    assert.ok(existsSync(resolve(folder, 'assets')), `${folder}/assets exists (npm run build:lib builds dist-lib/)`);
    const shipped = readdirSync(resolve(folder, 'assets')).filter((name) => name.endsWith('.woff2'));
    assert.equal(shipped.length, katexFonts.filter((name) => name.endsWith('.woff2')).length, `every KaTeX woff2 font is shipped: ${shipped.join(', ')}`);
    for (const file of shipped) {
      const original = katexFonts.find((name) => name.endsWith('.woff2') && file.startsWith(`${name.slice(0, -'.woff2'.length)}-`));
      assert.ok(original, `${file} is the subset of one of KaTeX's fonts`);
      const [theirs, ours] = [await woff2Names(resolve(repo, 'node_modules/katex/dist/fonts', original)), await woff2Names(resolve(folder, 'assets', file))];
      const reserved = reservedFontNames(theirs);
      assert.ok(reserved.length > 0, `${original} declares a Reserved Font Name`);
      for (const [nameId, text] of ours.filter(([id]) => !notices.has(id))) {
        for (const name of reserved) assert.ok(!comparable(text).includes(comparable(name)), `${file}: name ${nameId} "${text}" uses the Reserved Font Name ${name}`);
      }
      assert.ok(textsOf(ours, 1).length > 0, `${file} has a family name`);
      for (const nameId of [0, 13, 14]) {
        assert.ok(textsOf(theirs, nameId).length > 0, `${original} has name ${nameId}`);
        assert.deepEqual(textsOf(ours, nameId), textsOf(theirs, nameId), `${file} keeps ${original}'s name ${nameId} (${nameId ? 'licence' : 'copyright'})`);
      }
    }
  });
}

test('no built style sheet or script names a KaTeX font family that the build renamed', () => {
  const files = [...assets.filter((name) => /\.(js|css)$/.test(name)).map((name) => `assets/${name}`), ...readdirSync(dist).filter((name) => /\.(js|html|css)$/.test(name))];
  for (const file of files) {
    const declarations = readFileSync(resolve(dist, file), 'utf8').match(/font(?:-family)?:[^;}{]*\bKaTeX_\w+/g) ?? [];
    assert.deepEqual(declarations, [], `${file}: font declarations naming KaTeX's families`);
  }
});
