// KaTeX's fonts as the build ships them (web/katex-font-subsets.ts): each cut down to the characters of the
// lesson's formulas and the letters FreeType's auto-hinter measures, and the four faces the formulas use asked for
// once the core has arrived (web/src/lesson/fonts.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { assertNoProblems, openLesson, repo, useServerAndBrowser } from './harness.mjs';

const run = useServerAndBrowser();

// Opens every fold, so that every formula is drawn, and waits for the fonts that asks for.
function openFoldsAndWaitForFonts(page) {
  return page.evaluate(async () => {
    for (const fold of document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('details')) fold.open = true;
    await document.fonts.ready;
  });
}

// Every formula on show, each as a screenshot of its own (not the MathML probe, which is never seen: dom.ts).
async function formulaShots(page) {
  await openFoldsAndWaitForFonts(page);
  const formulas = page.locator('qkv-lesson .katex:not(.math-probe .katex)');
  const shots = [];
  for (let i = 0; i < (await formulas.count()); i++) shots.push(await formulas.nth(i).screenshot({ animations: 'disabled' }));
  return shots;
}

test('every formula drawn with the shipped fonts is, pixel for pixel, the formula drawn with KaTeX’s whole fonts', async () => {
  const shipped = await openLesson(run.browser, run.server.url);
  const whole = await openLesson(run.browser, run.server.url);
  try {
    // The second page gets KaTeX's own woff2 files in place of the subsets, under the same URLs.
    await whole.page.context().route(/\/assets\/KaTeX_[\w-]+?-[\w-]{8}\.woff2$/, (route) => {
      const name = /\/(KaTeX_[A-Za-z0-9]+-[A-Za-z]+)-[\w-]{8}\.woff2$/.exec(new URL(route.request().url()).pathname)[1];
      route.fulfill({ contentType: 'font/woff2', body: readFileSync(resolve(repo, `node_modules/katex/dist/fonts/${name}.woff2`)) });
    });
    await whole.reload();
    const [mine, theirs] = [await formulaShots(shipped.page), await formulaShots(whole.page)];
    assert.ok(mine.length >= 20, `the lesson has its formulas (${mine.length})`);
    assert.equal(mine.length, theirs.length);
    const differing = mine.flatMap((shot, i) => (shot.equals(theirs[i]) ? [] : [i]));
    assert.deepEqual(differing, [], 'formulas drawn differently with the subsets');
    assertNoProblems(shipped.problems, 'the shipped fonts');
    assertNoProblems(whole.problems, 'KaTeX’s whole fonts');
  } finally {
    await shipped.close();
    await whole.close();
  }
});

test('the lesson, every fold open, loads no KaTeX face but the four it asks for early', async () => {
  const opened = await openLesson(run.browser, run.server.url);
  try {
    await openFoldsAndWaitForFonts(opened.page);
    const faces = await opened.page.evaluate(() => [...document.fonts].filter((face) => face.status !== 'unloaded').map((face) => `${face.family} ${face.style} ${face.status}`).sort());
    // Under the lesson's names for KaTeX's families (web/src/lesson/font-families.ts).
    assert.deepEqual(faces, ['QkvLesson_AMS normal loaded', 'QkvLesson_Main normal loaded', 'QkvLesson_Math italic loaded', 'QkvLesson_SansSerif normal loaded']);
    // Asked for before ready (as the start begins), not when the first frame after ready first draws a formula.
    const timing = await opened.page.evaluate(() => ({
      ready: performance.getEntriesByName('qkv-lesson-ready')[0].startTime,
      fonts: performance.getEntriesByType('resource').filter((entry) => /\/KaTeX_[\w-]+\.woff2$/.test(entry.name)).map((entry) => [entry.name.split('/').pop(), entry.startTime]),
    }));
    assert.equal(timing.fonts.length, 4, `four font files: ${timing.fonts.map(([name]) => name).join(', ')}`);
    for (const [name, start] of timing.fonts) assert.ok(start < timing.ready, `${name} asked for at ${start} ms, before ready at ${timing.ready} ms`);
    assertNoProblems(opened.problems, 'the fonts');
  } finally {
    await opened.close();
  }
});
