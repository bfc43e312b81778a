// What the build ships of KaTeX's fonts (issue 18): the lesson registers only woff2 files (fonts.ts), so
// dist/ holds each of KaTeX's woff2 fonts once and none of its .woff or .ttf files (876 kB that no browser
// fetched), and no built file names one. Reads dist/ (or $QKV_DIST); no browser.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
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
