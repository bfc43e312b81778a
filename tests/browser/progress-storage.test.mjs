// Saved progress that fails out loud (issue 37, items 5 and 6): with progress-key set and the browser's storage
// full or throwing, answers still grade and the learner is told once, at the top of the lesson, that they are
// not being kept; two lessons of one page under one progress-key are detected, the second warned about and
// kept from overwriting the first's answers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { serve } from '../../scripts/serve.mjs';
import { assertNoProblems, csp, dist, launchBrowser, openPage, waitLaidOut, waitReady } from './harness.mjs';

let browser;
let server;
let origin;
// A course page with two lessons under one progress-key (the element's script, as a course page loads it).
const twoLessons = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title><link rel="icon" href="/favicon.svg">
<script type="module" src="/qkv-lesson.js"></script></head><body>
<qkv-lesson id="first" progress-key="shared" sections="exercises"></qkv-lesson>
<qkv-lesson id="second" progress-key="shared" sections="exercises"></qkv-lesson></body></html>`;
before(async () => {
  browser = await launchBrowser();
  server = await serve({ root: dist, port: 0, csp, route: (url) => (url.pathname === '/two-lessons.html' ? { ext: '.html', body: twoLessons } : undefined) });
  origin = `http://127.0.0.1:${server.address().port}`;
});
after(async () => {
  await browser?.close();
  await new Promise((done) => server?.close(done));
});

const notKeptNote = 'qkv-lesson header .not-kept[role="status"]';

// Counts every change of the note's text from now on (a flood would be many).
async function countNoteChanges(page) {
  await page.evaluate(() => {
    window.__noteChanges = 0;
    const note = document.querySelector('qkv-lesson').shadowRoot.querySelector('.not-kept');
    new MutationObserver((records) => (window.__noteChanges += records.length)).observe(note, { childList: true, characterData: true, subtree: true });
  });
}

async function check(form, answer) {
  const blank = form.locator('input[type="text"]');
  if ((await blank.count()) > 0) await blank.first().fill(answer);
  else await form.locator(`input[value="${answer}"]`).check();
  await form.getByRole('button', { name: 'Check' }).click();
}

test('storage full (QuotaExceededError): checks still grade, and the learner is told once that answers are not kept', async () => {
  const { page, problems, goto, close } = await openPage(browser);
  await page.addInitScript(() => {
    window.__setItemCalls = 0;
    Storage.prototype.setItem = function () {
      window.__setItemCalls++;
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
  });
  try {
    await goto(`${origin}/embed.html?progress-key=t1&sections=exercises`);
    await waitReady(page);
    await waitLaidOut(page);
    assert.equal(await page.locator(notKeptNote).innerText(), '', 'nothing said before anything failed');
    await countNoteChanges(page);
    const count = page.locator('qkv-lesson form[data-exercise="ch26-parameter-count"]');
    await check(count, '17');
    assert.equal(await count.getAttribute('data-answered'), 'incorrect', 'the wrong answer is graded');
    const said = /^Your answers are not being kept in this browser: the browser refused to store them \(QuotaExceededError\)\. They count while this page is open, and will be gone after a reload\.$/;
    assert.match(await page.locator(notKeptNote).innerText(), said);
    assert.ok(await page.locator(notKeptNote).isVisible(), 'the note is on screen');
    await check(count, '18');
    assert.equal(await count.getAttribute('data-answered'), 'correct', 'the right answer is graded');
    await check(page.locator('qkv-lesson form[data-exercise="ch26-change-query-only"]'), 'yes');
    const calls = await page.evaluate(() => window.__setItemCalls);
    assert.ok(calls >= 3, `every answer was offered to storage (${calls} calls), each refusal caught`);
    assert.equal(await page.evaluate(() => window.__noteChanges), 1, 'the note was written once, not once per refusal');
    assert.match(await page.locator('qkv-lesson').getAttribute('data-answers-not-kept'), said);
    assertNoProblems(problems, 'storage full');
  } finally {
    await close();
  }
});

test('storage that throws (a localStorage getter throwing SecurityError): the lesson starts, grades, and says so at once', async () => {
  const { page, problems, goto, close } = await openPage(browser);
  await page.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', {
      configurable: true,
      get() {
        throw new DOMException('Access is denied for this document.', 'SecurityError');
      },
    });
  });
  try {
    await goto(`${origin}/embed.html?progress-key=t1&sections=exercises`);
    await waitReady(page);
    await waitLaidOut(page);
    assert.match(await page.locator(notKeptNote).innerText(), /^Your answers are not being kept in this browser: the browser's storage cannot be read here \(SecurityError\)\./, 'said as soon as the saved answers could not be read');
    await countNoteChanges(page);
    const count = page.locator('qkv-lesson form[data-exercise="ch26-parameter-count"]');
    await check(count, '18');
    assert.equal(await count.getAttribute('data-answered'), 'correct');
    await check(page.locator('qkv-lesson form[data-exercise="ch26-change-query-only"]'), 'yes');
    assert.equal(await page.evaluate(() => window.__noteChanges), 0, 'no second note for the refused saves');
    assertNoProblems(problems, 'storage throwing');
  } finally {
    await close();
  }
});

test('two lessons under one progress-key: one warning naming the key, and the second keeps and restores nothing', async () => {
  const { page, problems, goto, reload, close } = await openPage(browser);
  const ready = () => page.waitForFunction(() => [...document.querySelectorAll('qkv-lesson')].every((lesson) => lesson.dataset.state === 'ready' && lesson.dataset.laidOut !== undefined));
  try {
    await goto(`${origin}/two-lessons.html`);
    await ready();
    const [first, second] = [page.locator('#first'), page.locator('#second')];
    const problem = 'progress-key="shared" is already used by another lesson on this page; this lesson\'s answers are not kept, so that they do not overwrite the other\'s (give each lesson its own key).';
    assert.deepEqual(problems.splice(0).map((line) => line.replace(/ \(at [^)]*\)$/, '')), [`console.warning: <qkv-lesson>: ${problem}`], 'one warning, naming the key');
    assert.equal(await second.getAttribute('data-progress-key-error'), problem);
    assert.equal(await first.getAttribute('data-progress-key-error'), null, 'the first lesson keeps the key');
    assert.match(await second.locator('header .not-kept').innerText(), /^Your answers are not being kept in this browser: another lesson on this page keeps its answers under the same name\./);
    assert.equal(await first.locator('header .not-kept').innerText(), '');

    await check(second.locator('form[data-exercise="ch26-parameter-count"]'), '17');
    assert.equal(await second.locator('form[data-exercise="ch26-parameter-count"]').getAttribute('data-answered'), 'incorrect', 'the second lesson grades');
    assert.deepEqual(await page.evaluate(() => Object.keys(localStorage)), [], 'the second lesson wrote nothing');
    await check(first.locator('form[data-exercise="ch26-parameter-count"]'), '18');
    assert.deepEqual(await page.evaluate(() => Object.keys(localStorage).sort()), ['shared:ch26-parameter-count', 'shared:registration'], 'the first lesson keeps its answer and its attempt');

    await reload();
    await ready();
    assert.equal(await first.locator('form[data-exercise="ch26-parameter-count"]').getAttribute('data-answered'), 'correct', 'the first lesson restores its answer');
    assert.equal(await second.locator('form[data-exercise="ch26-parameter-count"]').getAttribute('data-answered'), null, 'the second shows none of the first’s answers as its own');
    assert.equal(problems.filter((line) => line.includes('already used')).length, 1, 'one warning after the reload too');
    assertNoProblems(problems.filter((line) => !line.includes('already used')), 'two lessons, one key');
  } finally {
    await close();
  }
});
