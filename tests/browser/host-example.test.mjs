// dist/host-example.html: a course page with the element and the iframe side by side, logging the answer
// statements it receives. Screenshots go to build/screenshots/ (artefacts, not assertions).
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { answerExercise, assertNoProblems, openPage, repo, useServerAndBrowser } from './harness.mjs';

const run = useServerAndBrowser();

const answer = (scope, id, text) => answerExercise(scope, id, [text]);

test('the example course page embeds the lesson both ways and receives both answers', async () => {
  const { page, problems, close } = await openPage(run.browser, { width: 1280, height: 900 });
  try {
    await page.goto(`${run.server.url}host-example.html`);
    await page.waitForSelector('qkv-lesson[data-state="ready"]');
    const frame = page.frameLocator('iframe[data-qkv-lesson]');
    await frame.locator('qkv-lesson[data-state="ready"]').waitFor();

    await answer(page, 'ch26-parameter-count', '18');
    await answer(frame, 'ch26-parameter-count', '17');
    const log = page.locator('#answer-log li');
    await log.nth(1).waitFor();
    assert.deepEqual(await log.allInnerTexts(), [
      `element: ${run.server.origin}/host-example.html#qkv-lesson/exercise/ch26-parameter-count → correct (response "18")`,
      `iframe: ${run.server.origin}/embed.html#qkv-lesson/exercise/ch26-parameter-count → incorrect (response "17")`,
    ]);
    // The iframe was sized to its content by qkv-embed-host.js (its default height is 150 px).
    const height = await page.locator('iframe[data-qkv-lesson]').evaluate((frameElement) => frameElement.getBoundingClientRect().height);
    assert.ok(height > 1000, `the iframe should grow to its content, it is ${height}px`);

    const shots = resolve(repo, 'build/screenshots');
    await mkdir(shots, { recursive: true });
    await page.screenshot({ path: resolve(shots, 'host-example-1280.png'), fullPage: true });
    await page.locator('#answer-log').scrollIntoViewIfNeeded();
    await page.screenshot({ path: resolve(shots, 'host-example-log.png') });
    assertNoProblems(problems, 'example course page');
  } finally {
    await close();
  }
});
