// The page's input boundary (issue 18, items 4, 12 and the long-link note): links that load from any server at
// every size, a documented length limit, lone surrogates, and the iframe as the boundary for a course page that
// rewrites built-ins (docs/threat-model.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serve } from '../../scripts/serve.mjs';
import { assertNoProblems, cell, csp, dist, host, openLesson, openPage, readFixture, rendered, tableTexts, useServerAndBrowser, waitLaidOut, waitReady, waitRenderedAfter, waitUrlSynced } from './harness.mjs';

const run = useServerAndBrowser();

const tensors = { input: 'x', query_weight: 'wq', key_weight: 'wk', value_weight: 'wv', query_upstream: 'uq', key_upstream: 'uk', value_upstream: 'uv' };
const editable = Object.keys(tensors);

// Every size at 8 (the largest the lesson accepts): X and the upstreams [8,8,8], the weights [8,8], 2,240 cells
// in all; each cell a 17-digit decimal of its own ("-0.12345678901234567"), or a short one ("-0.25").
function longState({ short = false } = {}) {
  const cells = {};
  for (const [n, key] of editable.entries()) {
    const count = key.endsWith('_weight') ? 64 : 512;
    const digits = (i) => (short ? String(10 + ((i + n) % 90)) : String(12345678901234567 + n * 1e6 + i * 7919).slice(-17));
    cells[key] = Array.from({ length: count }, (_, i) => `${i % 3 ? '' : '-'}0.${digits(i)}`);
  }
  return cells;
}

function linkOf(cells, sizes = { b: 8, t: 8, d: 8, h: 8 }) {
  const params = new URLSearchParams(Object.entries(sizes).map(([name, value]) => [name, String(value)]));
  for (const key of editable) params.set(tensors[key], cells[key].join(','));
  return params.toString();
}

async function shownCells(page) {
  const shown = {};
  for (const key of editable) shown[key] = await tableTexts(page, key);
  return shown;
}

function notes(page) {
  return page.locator('qkv-lesson .link-notes').innerText();
}

test('every size at 8 with 17-digit cells: the link the page writes keeps its query short, reloads from the server and gives the same numbers back', async () => {
  const cells = longState();
  const opened = await openLesson(run.browser, run.server.url);
  const { page, problems, reload } = opened;
  try {
    // The numbers arrive as a course's state would; then a learner edits one cell, and the page writes its link.
    let before = await rendered(page);
    await page.locator('qkv-lesson').evaluate((lesson, state) => lesson.setAttribute('state', state), linkOf(cells));
    await waitRenderedAfter(page, before);
    before = await rendered(page);
    await cell(page, 'value_upstream', 511).fill('0.98765432109876543');
    await waitRenderedAfter(page, before);
    cells.value_upstream[511] = '0.98765432109876543';
    const written = new URL(await waitUrlSynced(page));

    const oldFormat = `${written.origin}${written.pathname}?${linkOf(cells)}`;
    assert.ok(oldFormat.length > 16384, `the same numbers all in the query would be ${oldFormat.length} characters, more than Node's default header limit`);
    const target = written.pathname + written.search;
    assert.ok(target.length <= 2000, `the request target (path and query) should be at most 2,000 characters, is ${target.length}: ${target.slice(0, 200)}…`);
    assert.deepEqual(Object.fromEntries(['b', 't', 'd', 'h'].map((name) => [name, written.searchParams.get(name)])), { b: '8', t: '8', d: '8', h: '8' }, 'the sizes stay in the query');
    assert.ok(written.hash.startsWith('#?x='), `the cells should follow the fragment's '?': ${written.hash.slice(0, 80)}`);
    assert.deepEqual(await shownCells(page), cells, 'the page shows the numbers it was given');

    await reload();
    await waitReady(page);
    assert.equal(page.url(), written.href, 'the reload asked for the same URL');
    assert.deepEqual(await shownCells(page), cells, 'after the reload every cell is back, as typed');
    assert.equal(await page.locator('qkv-lesson .link-notes').isVisible(), false, 'no note: every number was used');
    assertNoProblems(problems, 'writing and reloading a link at every size 8');
  } finally {
    await opened.close();
  }
});

test('a link an earlier page wrote, with every cell in an 18,000-character query, still loads from npm start’s server', async () => {
  const cells = longState({ short: true });
  const link = `${run.server.url}?${linkOf(cells)}`;
  assert.ok(link.length > 16384, `the old link is ${link.length} characters, more than Node's default header limit`);
  const opened = await openLesson(run.browser, link);
  try {
    assert.deepEqual(await shownCells(opened.page), cells, 'the old link’s numbers are shown');
    const written = new URL(await waitUrlSynced(opened.page));
    assert.ok((written.pathname + written.search).length <= 2000, 'the page writes it again in the short form');
    assertNoProblems(opened.problems, 'opening an old long link');
  } finally {
    await opened.close();
  }
});

test('a section name before the numbers in the fragment still takes the reader to that section, under its earlier name too', async () => {
  const cells = longState();
  const params = new URLSearchParams(linkOf(cells));
  const cellsPart = editable.map((key) => `${tensors[key]}=${encodeURIComponent(params.get(tensors[key]))}`).join('&');
  // self-bias: the self-score section's earlier name, which stored links still carry.
  for (const name of ['self-score', 'self-bias']) {
    const opened = await openLesson(run.browser, `${run.server.url}?b=8&t=8&d=8&h=8#${name}?${cellsPart}`);
    const { page } = opened;
    try {
      assert.deepEqual(await shownCells(page), cells, `#${name}: the numbers in the fragment are read`);
      const top = await page.locator('qkv-lesson').evaluate((lesson) => lesson.shadowRoot.getElementById('self-score').getBoundingClientRect().top);
      assert.ok(Math.abs(top) < 2, `#${name}: the self-score section should be scrolled to the top of the viewport, its top is at ${top}`);
      const written = new URL(await waitUrlSynced(page));
      assert.ok(written.hash.startsWith(`#${name}?x=`), `#${name}: the page keeps the section name when it writes the link: ${written.hash.slice(0, 60)}`);
      assertNoProblems(opened.problems, `a link to a section (#${name}) with the numbers in the fragment`);
    } finally {
      await opened.close();
    }
  }
});

test('a link with some of the numbers but not all four sizes says so, once on screen, and shows the fixture', async () => {
  const fixtureInput = (await readFixture()).input.values.map(String);
  for (const query of ['?b=99', '?x=1,2,3']) {
    const opened = await openLesson(run.browser, `${run.server.url}${query}`);
    const { page } = opened;
    try {
      assert.match(await notes(page), /^The link’s numbers were not used \(it has no (t, d or h|b, t, d or h), and a link gives all four sizes: b, t, d and h\)/, query);
      assert.deepEqual(await tableTexts(page, 'input'), fixtureInput, `${query}: the fixture is shown`);
      // The live region reads the note out too (after its 400 ms pause), for screen readers only: on screen it
      // shows once, in the notes list.
      const status = page.locator('qkv-lesson .controls .status');
      await page.waitForFunction(() => document.querySelector('qkv-lesson').shadowRoot.querySelector('.controls .status').textContent.includes('were not used'));
      assert.equal(await status.evaluate((element) => element.getBoundingClientRect().width <= 1 && getComputedStyle(element).clipPath !== 'none'), true, `${query}: the note is not repeated on screen`);
      assert.equal(await page.locator('qkv-lesson .link-notes').isVisible(), true);
      assertNoProblems(opened.problems, `a partial link (${query})`);
    } finally {
      await opened.close();
    }
  }
});

test('a link or state attribute past 131,072 characters is refused unread, with a note that names the limit', async () => {
  const fixtureInput = (await readFixture()).input.values.map(String);
  const opened = await openLesson(run.browser, `${run.server.url}?b=1&t=2&d=3&h=2#?x=${'1,'.repeat(1_000_000)}1`);
  const { page } = opened;
  try {
    const text = await notes(page);
    assert.match(text, /^The link’s numbers were not used \(it is 2,000,\d{3} characters long, and the lesson reads links of at most 131,072\)/);
    assert.deepEqual(await tableTexts(page, 'input'), fixtureInput, 'the fixture is shown');
    // A course page's state attribute is held to the same limit.
    await page.locator('qkv-lesson').evaluate((lesson) => lesson.setAttribute('state', `b=1&t=2&d=3&h=2&x=${'2,'.repeat(5_000_000)}2`));
    await page.waitForFunction(() => document.querySelector('qkv-lesson').shadowRoot.querySelector('.link-notes').textContent.includes('10,000,0'));
    assert.match(await notes(page), /\(it is 10,000,\d{3} characters long, and the lesson reads links of at most 131,072\)/);
    assert.deepEqual(await tableTexts(page, 'input'), fixtureInput, 'the fixture is still shown');
    assertNoProblems(opened.problems, 'over-long links');
  } finally {
    await opened.close();
  }
});

test('a lone surrogate typed into a cell reaches the core as U+FFFD and is refused, naming what was typed; the next character is kept', async () => {
  const opened = await openLesson(run.browser, run.server.url);
  const { page } = opened;
  try {
    const before = await tableTexts(page, 'query');
    await cell(page, 'input', 0).evaluate((input) => {
      input.value = '\ud800' + '5';
      input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    });
    await page.waitForFunction(() => document.querySelector('qkv-lesson').dataset.error !== undefined);
    const message = await host(page, 'data-error');
    assert.ok(message.includes('"\ufffd5" is not read'), `the core's message should quote "\ufffd5", got: ${message}`);
    const field = await page.locator('qkv-lesson .card.input .field-error, qkv-lesson .field-error:visible').first().innerText();
    assert.ok(field.includes('"\ufffd5" is not read'), `the message next to the field should quote it too, got: ${field}`);
    assert.deepEqual(await tableTexts(page, 'query'), before, 'the last valid numbers stay');
    assertNoProblems(opened.problems, 'a lone surrogate');
  } finally {
    await opened.close();
  }
});

// The element trusts the page it is on (docs/threat-model.md): a course page rewriting the built-ins the core's
// calls read through (the bindings' Array.from and index writes, the core's Number) changes its numbers. A page
// not trusted with them embeds embed.html from the lesson's origin: the frame is a realm of its own, which a page
// of another origin cannot reach.
const rewritesBuiltIns = `const { from } = Array;
const { push } = Array.prototype;
Object.defineProperty(Array.prototype, 0, { get: () => 'rewritten', set() {}, configurable: true });
Array.from = (items) => from.call(Array, items).map(() => 42);
Array.isArray = () => false;
Array.prototype.push = function (...items) { return push.apply(this, items.map(() => 0)); };
globalThis.Number = () => 0;
`;

test('a course page of another origin that rewrites Array.prototype, Array.from and Number cannot reach the iframe embed: the frame shows what the standalone lesson does', async () => {
  const lessonOrigin = run.server.origin;
  const coursePage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title><link rel="icon" href="/favicon.svg">
<script src="/rewrites-built-ins.js"></script></head><body><h1>Unit 3</h1>
<iframe src="${lessonOrigin}/embed.html" title="Lesson" width="1200" height="800"></iframe></body></html>`;
  const pages = { '/course/unit.html': { ext: '.html', body: coursePage }, '/rewrites-built-ins.js': { ext: '.js', body: rewritesBuiltIns } };
  const server = await serve({ root: dist, port: 0, csp: `default-src 'self'; frame-src ${lessonOrigin}`, route: (url) => pages[url.pathname] });
  const clean = await openLesson(run.browser, run.server.url);
  const course = await openPage(run.browser);
  try {
    const edit = async (scope) => {
      const before = await rendered(scope);
      await cell(scope, 'input', 1).fill('-3.25');
      await waitRenderedAfter(scope, before);
    };
    const computed = ['query', 'key', 'value', 'input_gradient', 'query_weight_gradient', 'key_weight_gradient', 'value_weight_gradient'];
    const read = async (scope) => {
      const shown = {};
      for (const key of computed) shown[key] = await tableTexts(scope, key);
      shown.loss = await scope.locator('qkv-lesson .loss').innerText();
      return shown;
    };
    await edit(clean.page);
    const expected = await read(clean.page);

    await course.goto(`http://127.0.0.1:${server.address().port}/course/unit.html`);
    const frame = await (await course.page.waitForSelector('iframe[title="Lesson"]')).contentFrame();
    await waitReady(frame);
    await waitLaidOut(frame);
    await edit(frame);
    // A string, so that nothing of the rewritten page's own reads this answer back.
    const coursePageSees = await course.page.evaluate(() => {
      const iframe = document.querySelector('iframe');
      let frameArray;
      try {
        frameArray = typeof iframe.contentWindow.Array;
      } catch (error) {
        frameArray = error.name;
      }
      return JSON.stringify({ from: Array.from([1, 2]), number: Number('2.5'), frameArray, frameDocument: iframe.contentDocument });
    });
    assert.deepEqual(JSON.parse(coursePageSees), { from: [42, 42], number: 0, frameArray: 'SecurityError', frameDocument: null }, 'the course page’s built-ins are rewritten, and the frame’s realm is out of its reach');
    assert.deepEqual(await read(frame), expected, 'the frame shows what the standalone lesson does');
    assert.equal(await host(frame, 'data-error'), null);
    assertNoProblems(course.problems, 'a course page that rewrote built-ins, with the lesson in an iframe');
  } finally {
    await clean.close();
    await course.close();
    await new Promise((done) => server.close(done));
  }
});

// Issue 37, item 6: a course page's own query (a video's t=120, a page number, and names the lesson uses bare on its
// own pages: d, h, x, b) is the course's. With sync-url the lesson reads and writes only its qkv- parameters.
test('sync-url on a course page at ?t=120&page=3 (and d, h, x, b): the page’s parameters are not read, not noted, and not changed', async () => {
  const coursePage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title><link rel="icon" href="/favicon.svg">
<script type="module" src="/qkv-lesson.js"></script></head><body><h1>Unit 3</h1><qkv-lesson sync-url></qkv-lesson></body></html>`;
  const server = await serve({ root: dist, port: 0, csp, route: (url) => (url.pathname === '/course/unit.html' ? { ext: '.html', body: coursePage } : undefined) });
  const own = '?t=120&page=3&d=2026-12-06&h=intro&x=7&b=1';
  const fixtureInput = (await readFixture()).input.values.map(String);
  const opened = await openLesson(run.browser, `http://127.0.0.1:${server.address().port}/course/unit.html${own}#video`);
  const { page, problems, reload } = opened;
  try {
    assert.deepEqual(await tableTexts(page, 'input'), fixtureInput, 'the fixture, not the page’s t, d, h, x, b');
    assert.equal(await page.locator('qkv-lesson .link-notes').isVisible(), false, 'no note about the link');
    assert.doesNotMatch(await page.locator('qkv-lesson').evaluate((lesson) => lesson.shadowRoot.textContent), /were not used/, 'nowhere, not even for screen readers');
    let written = new URL(await waitUrlSynced(page));
    assert.ok(written.search.startsWith(`${own}&qkv-`), `after ready the page’s own parameters are there as they were, the lesson’s after them: ${written.search.slice(0, 120)}`);
    assert.equal(written.hash, '#video', 'the page’s fragment stays');
    for (const [name, value] of new URLSearchParams(own)) assert.deepEqual(written.searchParams.getAll(name), [value], `${name} is the page’s, once`);

    const before = await rendered(page);
    await cell(page, 'input', 0).fill('2.5');
    await waitRenderedAfter(page, before);
    written = new URL(await waitUrlSynced(page));
    assert.ok(written.search.startsWith(`${own}&qkv-`), `after an edit too: ${written.search.slice(0, 120)}`);
    assert.equal(written.searchParams.get('qkv-x')?.split(',')[0], '2.5', 'the edit is in the lesson’s own qkv-x');

    await reload();
    await waitReady(page);
    assert.equal((await tableTexts(page, 'input'))[0], '2.5', 'the lesson reads its own parameters back');
    assert.ok(new URL(page.url()).search.startsWith(own), 'and still leaves the page’s alone');
    assertNoProblems(problems, 'a course page with parameters of its own');
  } finally {
    await opened.close();
    await new Promise((done) => server.close(done));
  }
});
