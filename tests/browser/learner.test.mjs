// Learners first (issue 9): predictions before folded evidence, every computed cell explains itself
// (focus, hover, tap, arrow keys), and the page fits every screen. Expected expressions are built here
// from the numbers in the input tables with plain JS; the right-hand side must be the core's value shown.
//   node --test --test-concurrency=1 tests/browser/learner.test.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, cell, openEvidence, openLesson, readText, rendered, tableTexts, useServerAndBrowser, waitLaidOut, waitReady, waitRenderedAfter } from './harness.mjs';

const run = useServerAndBrowser();
const inLesson = (page, selector) => page.locator(`qkv-lesson ${selector}`);
const chapterIds = ['ch26-output-shapes', 'ch26-first-token', 'ch26-change-query-only', 'ch26-parameter-count', 'ch26-empty-axes', 'ch26-rank-two', 'ch26-divisibility', 'ch26-history', 'ch26-still-missing'];
// The chapter's questions the page has forms for, in document order (the core's registry may hold more
// than the list above).
const chapterForms = (page) => page.locator('qkv-lesson').evaluate((host) => [...host.shadowRoot.querySelectorAll('form[data-exercise^="ch26-"]')].filter((form) => !form.closest('[hidden]')).map((form) => form.dataset.exercise));

// How the page writes a number inside a sum: U+2212 minus, negatives in parentheses.
const prose = (text) => text.replace(/^-/, '−');
const factor = (text) => (text.startsWith('-') ? `(${prose(text)})` : text);
const sum = (pairs) => (pairs.length ? pairs.map(([a, b]) => `${factor(a)}·${factor(b)}`).join(' + ') : '(empty sum)');
const arithmetic = (pairs) => pairs.reduce((total, [a, b]) => total + Number(a) * Number(b), 0);

// The expected expression for a computed cell, from the tables on screen; also checks the shown value
// against JS arithmetic on the same numbers (exact for these small numbers).
async function expected(page, tensor, index) {
  const sizes = await page.locator('qkv-lesson input[data-size]').evaluateAll((inputs) => Object.fromEntries(inputs.map((i) => [i.dataset.size, Number(i.value)])));
  const { batch: b, tokens: t, model_width: d, head_width: h } = sizes;
  const x = await tableTexts(page, 'input');
  const shown = (await tableTexts(page, tensor))[index];
  const names = { query: ['Q', 'query'], key: ['K', 'key'], value: ['V', 'value'] };
  let target;
  let pairs;
  let text;
  if (names[tensor]) {
    const w = await tableTexts(page, `${tensor}_weight`);
    const row = Math.floor(index / h);
    const j = index % h;
    target = `${names[tensor][0]}[${Math.floor(row / t)},${row % t},${j}]`;
    pairs = [...Array(d).keys()].map((k) => [x[row * d + k], w[k * h + j]]);
    text = sum(pairs);
  } else if (tensor === 'input_gradient') {
    const row = Math.floor(index / d);
    const k = index % d;
    target = `X̄[${Math.floor(row / t)},${row % t},${k}]`;
    const paths = [];
    pairs = [];
    for (const role of ['query', 'key', 'value']) {
      const u = await tableTexts(page, `${role}_upstream`);
      const w = await tableTexts(page, `${role}_weight`);
      const path = [...Array(h).keys()].map((j) => [u[row * h + j], w[k * h + j]]);
      pairs.push(...path);
      paths.push(`(${sum(path)})`);
    }
    text = paths.join(' + ');
  } else {
    const role = tensor.replace('_weight_gradient', '');
    const u = await tableTexts(page, `${role}_upstream`);
    const k = Math.floor(index / h);
    const j = index % h;
    target = `W̄_${role[0].toUpperCase()}[${k},${j}]`;
    pairs = [...Array(b * t).keys()].map((r) => [x[r * d + k], u[r * h + j]]);
    text = sum(pairs);
  }
  assert.equal(Number(shown), arithmetic(pairs), `${tensor}[${index}] shows ${shown}, JS arithmetic on the same numbers gives ${arithmetic(pairs)}`);
  return `${target} = ${text} = ${prose(shown)}`;
}

const computedCell = (page, tensor, index) => inLesson(page, `table[data-tensor="${tensor}"] td[data-index="${index}"]`);
const line = (page, tensor) => inLesson(page, `[data-provenance="${tensor}"]`);
const marked = (page, tensor, kind) =>
  inLesson(page, `table[data-tensor="${tensor}"]`).evaluate((table, kind) => [...table.querySelectorAll('tbody td')].flatMap((td, i) => (td.classList.contains(kind) ? [i] : [])), kind);

async function assertExplained(page, tensor, index, sources, context) {
  const want = await expected(page, tensor, index);
  const said = await readText(line(page, tensor).locator('.expression'));
  assert.equal(said, want, `${context}: the line under ${tensor} should read the core's computation`);
  assert.deepEqual(await marked(page, tensor, 'target'), [index], `${context}: ${tensor}[${index}] is the marked target`);
  for (const [key, cells] of Object.entries(sources)) assert.deepEqual(await marked(page, key, 'source'), cells, `${context}: source cells of ${key}`);
}

test('1. provenance: focus, hover and arrow keys explain Q, X̄ and W̄ cells, also after an edit and at other sizes', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    await openEvidence(page);
    await page.mouse.move(0, 0); // a keyboard learner's pointer rests away from the tables
    assert.equal(await line(page, 'query').getAttribute('aria-live'), 'polite', 'the provenance line is a polite live region');
    await computedCell(page, 'query', 1).focus();
    await assertExplained(page, 'query', 1, { input: [0, 1, 2], query_weight: [1, 3, 5] }, 'focus Q[0,0,1]');
    assert.equal(await line(page, 'query').locator('.expression').innerText(), 'Q[0,0,1] = 1·0 + 2·1 + (−1)·(−1) = 3', 'the issue’s own example');

    await page.keyboard.press('ArrowDown');
    await assertExplained(page, 'query', 3, { input: [3, 4, 5], query_weight: [1, 3, 5] }, 'ArrowDown to Q[0,1,1]');
    await page.keyboard.press('ArrowLeft');
    await assertExplained(page, 'query', 2, { input: [3, 4, 5], query_weight: [0, 2, 4] }, 'ArrowLeft to Q[0,1,0]');
    assert.deepEqual(await inLesson(page, 'table[data-tensor="query"] td[tabindex="0"]').evaluateAll((cells) => cells.map((c) => c.dataset.index)), ['2'], 'one roving tab stop, on the focused cell');

    await computedCell(page, 'key', 2).hover();
    await assertExplained(page, 'key', 2, { input: [3, 4, 5], key_weight: [0, 2, 4] }, 'hover K[0,1,0]');
    assert.deepEqual(await marked(page, 'query', 'target'), [], 'only one cell is explained at a time');

    await page.mouse.move(0, 0);
    await computedCell(page, 'input_gradient', 5).focus();
    const path = { query_upstream: [2, 3], query_weight: [4, 5], key_upstream: [2, 3], key_weight: [4, 5], value_upstream: [2, 3], value_weight: [4, 5] };
    await assertExplained(page, 'input_gradient', 5, path, 'X̄[0,1,2]: three paths');
    await computedCell(page, 'value_weight_gradient', 3).focus();
    await assertExplained(page, 'value_weight_gradient', 3, { input: [1, 4], value_upstream: [1, 3] }, 'W̄_V[1,1]');

    // An edit: the selected cell's computation follows the new numbers.
    await computedCell(page, 'query', 0).focus();
    let before = await rendered(page);
    await cell(page, 'input', 0).fill('2');
    await waitRenderedAfter(page, before);
    await assertExplained(page, 'query', 0, { input: [0, 1, 2], query_weight: [0, 2, 4] }, 'Q[0,0,0] after X[0] = 2');
    assert.match(await line(page, 'query').innerText(), /Q\[0,0,0\] = 2·1 \+ 2·0 \+ \(−1\)·1 = 1/, 'the edited number is in the sum');

    // Other sizes: a second batch item with a number in it.
    before = await rendered(page);
    await inLesson(page, 'input[data-size="batch"]').fill('2');
    await waitRenderedAfter(page, before);
    before = await rendered(page);
    await cell(page, 'input', 6).fill('3');
    await waitRenderedAfter(page, before);
    await openEvidence(page);
    await page.mouse.move(0, 0);
    await computedCell(page, 'query', 4).focus();
    await assertExplained(page, 'query', 4, { input: [6, 7, 8], query_weight: [0, 2, 4] }, 'Q[1,0,0] at B = 2');
    await computedCell(page, 'query_weight_gradient', 0).focus();
    await assertExplained(page, 'query_weight_gradient', 0, { input: [0, 3, 6, 9], query_upstream: [0, 2, 4, 6] }, 'W̄_Q[0,0] sums four rows');
    await computedCell(page, 'input_gradient', 7).focus();
    await assertExplained(page, 'input_gradient', 7, { query_upstream: [4, 5], query_weight: [2, 3], key_upstream: [4, 5], key_weight: [2, 3], value_upstream: [4, 5], value_weight: [2, 3] }, 'X̄[1,0,1]');
    assertNoProblems(problems, 'provenance');
  } finally {
    await close();
  }
});

test('2. provenance by touch: tapping a cell on a phone shows its computation', async () => {
  const context = await run.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => ['error', 'warning'].includes(message.type()) && problems.push(`console: ${message.text()}`));
  try {
    await page.goto(run.server.url);
    await waitReady(page);
    await waitLaidOut(page);
    const summary = inLesson(page, 'li.branch.value details.evidence > summary');
    await summary.scrollIntoViewIfNeeded();
    await summary.tap();
    const target = computedCell(page, 'value', 1);
    await target.scrollIntoViewIfNeeded();
    await target.tap();
    await assertExplained(page, 'value', 1, { input: [0, 1, 2], value_weight: [1, 3, 5] }, 'tap V[0,0,1]');
    assert.equal(await line(page, 'value').locator('.expression').innerText(), 'V[0,0,1] = 1·1 + 2·(−1) + (−1)·2 = −3');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('3. predict, then see: each question sits before its folded evidence, which opens on a check or when asked', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    for (const id of chapterIds) assert.equal(await inLesson(page, `form[data-exercise="${id}"]`).count(), 1, `one form for ${id}`);
    assert.equal(await inLesson(page, 'section.worked form[data-exercise="ch26-first-token"]').count(), 1, 'the opening question is the first-token exercise itself');
    const layout = await page.locator('qkv-lesson').evaluate((host, ids) => {
      const root = host.shadowRoot;
      const folds = [...root.querySelectorAll('details.evidence')];
      return ids.map((id) => {
        const form = root.querySelector(`form[data-exercise="${id}"]`);
        const next = folds.find((fold) => form.compareDocumentPosition(fold) & Node.DOCUMENT_POSITION_FOLLOWING);
        return { id, answers: next?.dataset.evidenceFor.split(' ').includes(id) ?? false, open: next?.open ?? null };
      });
    }, await chapterForms(page));
    for (const { id, answers, open } of layout) {
      assert.ok(answers, `the first fold after ${id} holds its evidence`);
      assert.equal(open, false, `the evidence for ${id} starts folded`);
    }
    assert.equal(await inLesson(page, 'table[data-tensor="query"]').isVisible(), false, 'Q is folded before any answer');

    const form = inLesson(page, 'form[data-exercise="ch26-first-token"]');
    for (const [i, text] of ['[0, 3]', '[3, 0]', '[3, 2]'].entries()) await form.locator('input[type="text"]').nth(i).fill(text);
    await form.getByRole('button', { name: 'Check' }).click();
    assert.match(await form.locator('[data-feedback]').innerText(), /Not quite/, 'a wrong answer');
    // Q, K and V also answer the output-shapes question, which is still open: they stay folded until it is checked.
    assert.equal(await inLesson(page, 'table[data-tensor="query"]').isVisible(), false, 'Q stays folded while the shapes question waits');
    const shapes = inLesson(page, 'form[data-exercise="ch26-output-shapes"]');
    await shapes.locator('input[type="text"]').fill('[4, 7, 2]');
    await shapes.getByRole('button', { name: 'Check' }).click();
    assert.ok(await inLesson(page, 'table[data-tensor="query"]').isVisible(), 'after checking both, Q, K and V are shown');
    assert.ok(await inLesson(page, 'table[data-tensor="value"]').isVisible(), 'all three branches open together');
    assert.equal(await inLesson(page, 'details[data-evidence-for="ch26-rank-two"]').getAttribute('open'), null, 'other evidence stays folded');

    await inLesson(page, 'form[data-exercise="ch26-rank-two"]').getByRole('button', { name: 'Show the answer' }).click();
    assert.notEqual(await inLesson(page, 'details[data-evidence-for="ch26-rank-two"]').getAttribute('open'), null, 'asking for the answer opens the evidence');
    await inLesson(page, 'details[data-evidence-for="ch26-empty-axes"] > summary').click();
    assert.ok(await inLesson(page, 'details[data-evidence-for="ch26-empty-axes"]').evaluate((d) => d.open), '"Show the evidence" opens it');

    await page.locator('qkv-lesson').evaluate((host) => host.setAttribute('reveal', 'always'));
    await page.waitForFunction(() => [...document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('details.evidence')].every((d) => d.open), undefined, { timeout: 3000 });
    assertNoProblems(problems, 'folds');
  } finally {
    await close();
  }
});

test('4. sections="exercises" lists every chapter question once, in the diagram’s order; with the diagram shown, the empty section hides', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    const lesson = page.locator('qkv-lesson');
    await lesson.evaluate((host) => host.setAttribute('sections', 'diagram'));
    await page.waitForFunction(() => document.querySelector('qkv-lesson').shadowRoot.querySelector('[data-section="prediction"]').hidden, undefined, { timeout: 3000 });
    const pathOrder = await chapterForms(page);
    for (const id of chapterIds) assert.ok(pathOrder.includes(id), `the diagram asks ${id}`);
    await lesson.evaluate((host) => host.setAttribute('sections', 'exercises'));
    await page.waitForFunction((count) => document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('section.exercises form[data-exercise^="ch26-"]').length === count, pathOrder.length, { timeout: 3000 });
    const listed = await inLesson(page, 'section.exercises form[data-exercise]').evaluateAll((forms) => forms.map((f) => f.dataset.exercise));
    assert.deepEqual(listed, pathOrder, 'all of them, in the order the diagram asks them');
    for (const id of pathOrder) assert.ok(await inLesson(page, `form[data-exercise="${id}"]`).isVisible(), `${id} is visible`);
    await lesson.evaluate((host) => host.setAttribute('sections', 'prediction diagram exercises'));
    await page.waitForFunction(() => document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('section.exercises form[data-exercise]').length === 0, undefined, { timeout: 3000 });
    assert.equal(await inLesson(page, 'section.exercises').isVisible(), false, 'with every question in the diagram, the exercises section is hidden, not an empty heading');
    assertNoProblems(problems, 'sections');
  } finally {
    await close();
  }
});

// Everything that sticks out of the lesson without a scrolling box to hold it, clipped text, and tables
// that need sideways scrolling.
function measure() {
  const host = document.querySelector('qkv-lesson');
  const root = host.shadowRoot;
  const lesson = root.querySelector('.lesson').getBoundingClientRect();
  const name = (el) => `${el.tagName.toLowerCase()}${[...el.classList].map((c) => `.${c}`).join('')}${el.dataset?.tensor ? `[${el.dataset.tensor}]` : ''}`;
  const out = [];
  const clipped = [];
  // Inside a box that scrolls (a table's region, a long formula, the numpy code) is fine: that box is checked.
  const scrolled = (el) => {
    for (let p = el.parentElement; p && !p.classList.contains('lesson'); p = p.parentElement) if (getComputedStyle(p).overflowX !== 'visible') return true;
    return false;
  };
  for (const el of root.querySelectorAll('.lesson *')) {
    if (el.closest('.katex-mathml, .visually-hidden, [hidden]') || el.getClientRects().length === 0 || scrolled(el)) continue;
    const box = el.getBoundingClientRect();
    if (box.right > lesson.right + 0.5 || box.left < lesson.left - 0.5) out.push(`${name(el)} (${Math.round(box.left)}–${Math.round(box.right)}, lesson ${Math.round(lesson.left)}–${Math.round(lesson.right)})`);
    const style = getComputedStyle(el);
    if ((style.overflowX === 'hidden' || style.overflowX === 'clip' || style.textOverflow === 'ellipsis') && el.scrollWidth > el.clientWidth + 1) clipped.push(name(el));
  }
  const scrolling = [...root.querySelectorAll('.scroller')].filter((s) => s.getClientRects().length && s.scrollWidth > s.clientWidth + 1).map((s) => `${s.getAttribute('aria-label')} (${s.scrollWidth} > ${s.clientWidth})`);
  return { documentWidth: document.documentElement.scrollWidth, viewport: innerWidth, out: out.slice(0, 8), clipped: clipped.slice(0, 8), scrolling };
}

test('5. at 320, 390, 768, 1024 and 1280 px, light and dark: nothing sticks out, no sideways page, wide tables only on narrow screens', async () => {
  for (const theme of ['light', 'dark']) {
    for (const width of [320, 390, 768, 1024, 1280]) {
      const { page, problems, close } = await openLesson(run.browser, run.server.url, { width, height: 800 });
      try {
        await page.locator('qkv-lesson').evaluate((host, theme) => host.setAttribute('theme', theme), theme);
        await openEvidence(page);
        await cell(page, 'input', 1).fill('x'.repeat(300)); // a rejected entry of any length
        await inLesson(page, '.field-error:not([hidden])').first().waitFor();
        await page.evaluate(() => document.fonts.ready);
        const found = await page.evaluate(measure);
        const where = `${width}px ${theme}`;
        assert.ok(found.documentWidth <= width, `${where}: the page is ${found.documentWidth}px wide`);
        assert.deepEqual(found.out, [], `${where}: elements outside the lesson`);
        assert.deepEqual(found.clipped, [], `${where}: clipped text`);
        if (width >= 1024) assert.deepEqual(found.scrolling, [], `${where}: tables that need sideways scrolling`);
        assertNoProblems(problems, where);
      } finally {
        await close();
      }
    }
  }
});
