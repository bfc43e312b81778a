// Issue 38, items 7 and 8 (heard and seen; inputs): after an edit the live region names what changed with the
// core's own texts, and the changed cells are marked by more than colour; the cards' decorative arrows are not
// in the accessibility tree; count blanks ask for a numeric keypad, matrix cells for one with a minus sign.
//   node --test --test-concurrency=1 tests/browser/heard-and-seen.test.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, cell, openLesson, rendered, useServerAndBrowser, waitRenderedAfter } from './harness.mjs';

const run = useServerAndBrowser();
const inLesson = (page, selector) => page.locator(`qkv-lesson ${selector}`);
const statusText = (page) => inLesson(page, '[role="status"][aria-live="polite"]').innerText();

// The texts of one row of a computed table, as the page shows them (the core's formatted numbers).
const rowTexts = (page, key, row) =>
  page.locator('qkv-lesson').evaluate((host, [key, row]) => {
    const table = host.shadowRoot.querySelector(`.diagram table[data-tensor="${key}"]`) ?? host.shadowRoot.querySelector(`table[data-tensor="${key}"]`);
    return [...table.querySelectorAll('tbody tr')[row].querySelectorAll('td')].map((td) => td.textContent.trim());
  }, [key, row]);

test('after an edit of X the live region names a changed row of Q and a changed score, with the values on screen', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    const before = await rendered(page);
    const queryBefore = await rowTexts(page, 'query', 0);
    await cell(page, 'input', 0).fill('2');
    await waitRenderedAfter(page, before);
    const queryAfter = await rowTexts(page, 'query', 0);
    assert.notDeepEqual(queryAfter, queryBefore, 'the edit changes q₀ (else this test would prove nothing)');
    await page.waitForFunction(() => document.querySelector('qkv-lesson').shadowRoot.querySelector('[role="status"][aria-live="polite"]')?.textContent.includes('is now'), undefined, { timeout: 5000 });
    const said = await statusText(page);
    assert.ok(said.includes(`Q at batch 0, token 0 is now [${queryAfter.join(', ')}]`), `the status names q₀'s new values: "${said}"`);
    assert.match(said, /S at batch 0, token \d, key \d is now /, `the status names a changed score: "${said}"`);
    // Marked for sighted learners too, and not by colour alone: an outline on each changed cell of Q.
    const marks = await page.locator('qkv-lesson').evaluate((host) =>
      [...host.shadowRoot.querySelectorAll('table[data-tensor="query"] td.changed')].map((td) => getComputedStyle(td).outlineStyle),
    );
    assert.ok(marks.length > 0, 'changed cells of Q are marked');
    assert.ok(marks.every((style) => style !== 'none'), `each mark has an outline: ${marks}`);
    assertNoProblems(problems, 'edit announcement');
  } finally {
    await close();
  }
});

test('the branch cards’ arrows (CSS content) are not in the accessibility tree, at a phone’s width and a wide one', async () => {
  for (const width of [360, 1280]) {
    const { page, problems, close } = await openLesson(run.browser, run.server.url, { width, height: 800 });
    try {
      const drawn = await page.locator('qkv-lesson').evaluate((host) => getComputedStyle(host.shadowRoot.querySelector('.branches.feed > li'), '::before').content);
      assert.match(drawn, /[▶▼]/, `the arrow is drawn at ${width} px (else this test would prove nothing): ${drawn}`);
      const session = await page.context().newCDPSession(page);
      const { nodes } = await session.send('Accessibility.getFullAXTree');
      const read = nodes.map((node) => `${node.name?.value ?? ''} ${node.value?.value ?? ''}`).filter((text) => /[▶▼]/.test(text));
      assert.deepEqual(read, [], `no accessible name or value reads an arrow at ${width} px`);
      assertNoProblems(problems, `arrows at ${width} px`);
    } finally {
      await close();
    }
  }
});

test('count blanks ask for a numeric keypad, shape blanks do not', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    const modes = await page.locator('qkv-lesson').evaluate((host) => ({
      count: host.shadowRoot.querySelector('form[data-exercise="ch26-parameter-count"] input[type="text"]').inputMode,
      shape: host.shadowRoot.querySelector('form[data-exercise="ch26-output-shapes"] input[type="text"]').inputMode,
    }));
    assert.equal(modes.count, 'numeric');
    assert.notEqual(modes.shape, 'numeric', 'a shape needs brackets or commas');
    // The matrix cells' keyboard (one with a minus sign) is checked at 320 px in layout.test.mjs.
    assertNoProblems(problems, 'input modes');
  } finally {
    await close();
  }
});
