// Lessons that leave nothing behind (issue 18, item 5): a <qkv-lesson> removed from the page terminates its
// workers (and with them their WebAssembly instances), also while a search is running; 100 create/remove
// cycles bring the page back to its own worker count with a flat JavaScript heap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, openLesson, useServerAndBrowser } from './harness.mjs';

const run = useServerAndBrowser();

// Adds one more lesson to the page, waits until its self-score worker has answered, and removes it.
async function cycle(page) {
  await page.evaluate(async () => {
    const lesson = document.createElement('qkv-lesson');
    lesson.dataset.cycle = '';
    document.body.append(lesson);
    await new Promise((done, fail) => {
      const started = Date.now();
      const poll = () => {
        if (lesson.shadowRoot?.querySelector('.self-score-results[data-shown]')) return done();
        if (lesson.dataset.state === 'error') return fail(new Error(lesson.shadowRoot?.textContent ?? 'error'));
        if (Date.now() - started > 30000) return fail(new Error(`no self-score result in 30 s (state ${lesson.dataset.state})`));
        setTimeout(poll, 20);
      };
      poll();
    });
    lesson.remove();
  });
}

// The page's JavaScript heap after a full collection, in bytes.
async function heapAfterCollection(session) {
  await session.send('HeapProfiler.collectGarbage');
  return (await session.send('Runtime.getHeapUsage')).usedSize;
}

// Playwright lists the page's live dedicated workers; a terminated one leaves the list when it has closed.
async function workersSettleAt(page, count) {
  await page.waitForFunction(() => true); // one round trip, so that close events already sent are applied
  const deadline = Date.now() + 10000;
  while (page.workers().length !== count) {
    if (Date.now() > deadline) assert.fail(`${page.workers().length} workers alive, expected ${count}: ${page.workers().map((w) => w.url()).join(', ')}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

test('100 lessons created and removed: workers back to the page’s own, heap flat', async (t) => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    await page.locator('qkv-lesson section.self-score .self-score-results[data-shown]').waitFor({ state: 'attached' });
    await workersSettleAt(page, 1); // the standalone lesson's own self-score worker
    const session = await page.context().newCDPSession(page);
    for (let i = 0; i < 10; i++) await cycle(page);
    await workersSettleAt(page, 1);
    const early = await heapAfterCollection(session);
    for (let i = 10; i < 100; i++) await cycle(page);
    await workersSettleAt(page, 1);
    const late = await heapAfterCollection(session);
    // 90 more cycles; a retained lesson (its DOM, evidence and exercise views) is several hundred kB, so
    // 1 MB of growth would mean that at most a few of 90 are kept.
    t.diagnostic(`heap after collection: ${early} bytes after 10 cycles, ${late} after 100`);
    assert.ok(late - early < 1_000_000, `the heap grew by ${late - early} bytes over 90 cycles (${early} → ${late})`);
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
