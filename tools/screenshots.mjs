// The README's pictures, taken from the built lesson (dist/) in headless Chromium as a learner sees it:
//   node tools/screenshots.mjs        (after npm run build; writes docs/lesson-1280.png and docs/lesson-390.png)
// 1280 px: the output shapes and q₀, k₀, v₀ answered, "what the views are for" checked, a focused score of S = Q Kᵀ with its sum.
// 390 px: the opening question on a phone for a drawn problem (the link's v=48213), with X and the three weights
// beside it, and the line that names the problem and offers another one.
import { resolve } from 'node:path';
import { launchBrowser, openLesson, repo, startServer } from '../tests/browser/harness.mjs';

const server = await startServer();
const browser = await launchBrowser();
try {
  {
    const { page, close } = await openLesson(browser, server.url, { width: 1280, height: 900 });
    const form = (id) => page.locator(`qkv-lesson form[data-exercise="${id}"]`).first();
    const first = form('ch26-first-token');
    const blanks = first.locator('input[type="text"]');
    for (const [i, value] of ['[0, 3]', '[3, 0]', '[3, -3]'].entries()) await blanks.nth(i).fill(value);
    await first.getByRole('button', { name: 'Check' }).click();
    // Q, K and V unfold once both questions about them are checked.
    await form('ch26-output-shapes').locator('input[type="text"]').fill('[4, 7, 2]');
    await form('ch26-output-shapes').getByRole('button', { name: 'Check' }).click();
    for (const [id, option] of [['ch26-still-missing', 'scores-probabilities-mixture'], ['ch26-best-key', 'token-1']]) {
      await form(id).locator(`input[value="${option}"]`).check();
      await form(id).getByRole('button', { name: 'Check' }).click();
    }
    const score = page.locator('qkv-lesson table[data-tensor="scores"] td[data-index="1"]');
    await score.focus();
    await page.locator('qkv-lesson [data-provenance="scores"][data-shown]').waitFor();
    // The picture runs from Q (the score's sources, highlighted) down to the score's sum, cut from a
    // full-page screenshot at document coordinates measured in the page (the sticky sizes bar is left in
    // its place in the page for the picture).
    const [from, to] = await page.evaluate(() => {
      const root = document.querySelector('qkv-lesson').shadowRoot;
      root.querySelector('.controls').style.position = 'static';
      const top = (selector) => root.querySelector(selector).getBoundingClientRect().top + window.scrollY;
      const bottom = (selector) => root.querySelector(selector).getBoundingClientRect().bottom + window.scrollY;
      return [top('ol.branches.feed table[data-tensor="query"]') - 60, bottom('[data-provenance="scores"]') + 24];
    });
    await page.screenshot({ path: resolve(repo, 'docs/lesson-1280.png'), fullPage: true, clip: { x: 0, y: from, width: 1280, height: to - from } });
    await close();
  }
  {
    const { page, close } = await openLesson(browser, `${server.url}?v=48213`, { width: 390, height: 844 });
    const worked = page.locator('qkv-lesson section[data-section="prediction"]');
    const box = await worked.boundingBox();
    const top = await page.evaluate(() => window.scrollY);
    await page.screenshot({ path: resolve(repo, 'docs/lesson-390.png'), fullPage: true, clip: { x: 0, y: top + box.y, width: 390, height: Math.min(box.height, 1100) } });
    await close();
  }
} finally {
  await browser.close();
  await server.close();
}
