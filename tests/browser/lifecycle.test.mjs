// Lessons that leave nothing behind (issue 18, item 5): a <qkv-lesson> removed from the page terminates its
// workers (and with them their WebAssembly instances), also while a search is running, and nothing keeps it: after
// a few create/remove cycles and a full collection none of the removed lessons is alive. Counting the removed
// lessons still alive sees one kept lesson, where a heap-size trend needed 100 cycles (138 s) to see a few.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, openLesson, signalTimeout, useServerAndBrowser } from './harness.mjs';

const run = useServerAndBrowser();

// Adds one more lesson to the page, waits until its self-score worker has answered, and removes it; the page keeps
// only a WeakRef to it (window.removedLessons), which does not keep it alive.
async function cycle(page) {
  await page.evaluate(() => {
    const lesson = document.createElement('qkv-lesson');
    lesson.dataset.cycle = '';
    document.body.append(lesson);
  });
  const added = page.locator('qkv-lesson[data-cycle]');
  await added.locator('.self-score-results[data-shown]').waitFor({ state: 'attached' });
  assert.notEqual(await added.getAttribute('data-state'), 'error', 'the added lesson started');
  await added.evaluate((lesson) => {
    (window.removedLessons ??= []).push(new WeakRef(lesson));
    lesson.remove();
  });
}

// How many removed lessons are still alive after a full collection (V8's and Blink's, through the DevTools
// protocol). A detached node keeps its whole tree, and a shadow root its host, so any part of a removed lesson that
// something still holds (a listener on window, a module-level list, a pending callback) keeps its lesson counted.
async function removedLessonsAlive(page, session) {
  await session.send('HeapProfiler.collectGarbage');
  return page.evaluate(() => window.removedLessons.filter((ref) => ref.deref() !== undefined).length);
}

// Playwright lists the page's live dedicated workers; a terminated one leaves the list when it has closed.
async function workersSettleAt(page, count) {
  await page.waitForFunction(() => true); // one round trip, so that close events already sent are applied
  const deadline = Date.now() + signalTimeout;
  while (page.workers().length !== count) {
    if (Date.now() > deadline) assert.fail(`${page.workers().length} workers alive, expected ${count}: ${page.workers().map((w) => w.url()).join(', ')}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

test('lessons created and removed: workers back to the page’s own, none of them kept alive', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    await page.locator('qkv-lesson section.self-score .self-score-results[data-shown]').waitFor({ state: 'attached' });
    await workersSettleAt(page, 1); // the standalone lesson's own self-score worker
    const session = await page.context().newCDPSession(page);
    // Three cycles: a lesson kept by what all lessons share shows as three, one kept by the next lesson as two.
    for (let i = 0; i < 3; i++) await cycle(page);
    await workersSettleAt(page, 1);
    assert.equal(await removedLessonsAlive(page, session), 0, 'removed lessons still alive after a full collection');
    assertNoProblems(problems, 'create/remove cycles');
  } finally {
    await close();
  }
});

test('a lesson removed while its seed search runs stops it: its worker is terminated', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    await page.locator('qkv-lesson section.self-score .self-score-results[data-shown]').waitFor({ state: 'attached' });
    await workersSettleAt(page, 1);
    await page.evaluate(() => {
      const lesson = document.createElement('qkv-lesson');
      lesson.id = 'second';
      document.body.append(lesson);
    });
    const second = page.locator('#second');
    await second.locator('.self-score-results[data-shown]').waitFor({ state: 'attached' });
    await workersSettleAt(page, 2);
    // 64 tokens of width 512: a search of seconds (as in self-score.test.mjs), still running when the element goes.
    await second.locator('section.self-score input[id$="-sb-tokens"]').fill('64');
    await second.locator('section.self-score input[id$="-sb-dim"]').fill('512');
    await second.locator('.self-score-results[data-shown="1 64 512"]').waitFor({ state: 'attached' });
    await second.locator('section.self-score button', { hasText: 'Find the next seed' }).click();
    await second.locator('section.self-score .self-score-busy', { hasText: /\d+ tried/ }).waitFor();
    await page.evaluate(() => document.getElementById('second').remove());
    await workersSettleAt(page, 1);
    assertNoProblems(problems, 'removed during a search');
  } finally {
    await close();
  }
});

test('a lesson removed while a scale preset runs stops it: its scale worker is terminated', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    await page.locator('qkv-lesson section.self-score .self-score-results[data-shown]').waitFor({ state: 'attached' });
    await workersSettleAt(page, 1);
    await page.evaluate(() => {
      const lesson = document.createElement('qkv-lesson');
      lesson.id = 'second';
      document.body.append(lesson);
    });
    const second = page.locator('#second');
    await second.locator('.self-score-results[data-shown]').waitFor({ state: 'attached' });
    // GPT-2 small's twelve heads: seconds of work in the scale section's own worker.
    await second.locator('section.scale button[data-preset="gpt2-heads"]').click();
    await second.locator('section.scale[data-busy]').waitFor({ state: 'attached' });
    await workersSettleAt(page, 3);
    await page.evaluate(() => document.getElementById('second').remove());
    await workersSettleAt(page, 1);
    assertNoProblems(problems, 'removed during a scale preset');
  } finally {
    await close();
  }
});
