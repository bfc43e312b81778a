// The formulas a screen reader reads: KaTeX draws each formula twice, as HTML that is hidden from assistive
// technology and as MathML that is hidden from view (clipped to a pixel). The MathML must stay in the browser's
// accessibility tree. Making it cheaper to lay out with `content-visibility: auto` (fewer long frames after ready on
// a slow phone, issue 19) took every formula out of Chromium's accessibility tree: this test is what would say so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, openLesson, useServerAndBrowser } from './harness.mjs';

const run = useServerAndBrowser();

test('every formula, folds open, is a math node in Chromium’s accessibility tree, with its text, on screen or not', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url, { width: 390, height: 844 });
  try {
    const formulas = await page.evaluate(() => {
      const root = document.querySelector('qkv-lesson').shadowRoot;
      for (const fold of root.querySelectorAll('details')) fold.open = true;
      scrollTo(0, 0); // most formulas below the viewport: what the browser may skip drawing
      // Not the MathML probe, kept out of the accessibility tree on purpose (aria-hidden, dom.ts).
      return [...root.querySelectorAll('.katex-mathml math')].filter((math) => !math.closest('[hidden], [aria-hidden="true"]')).length;
    });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const byId = new Map(nodes.map((node) => [node.nodeId, node]));
    const text = (node) => (node.role?.value === 'StaticText' ? (node.name?.value ?? '') : (node.childIds ?? []).map((id) => byId.get(id)).filter(Boolean).map(text).join(''));
    const maths = nodes.filter((node) => node.role?.value === 'MathMLMath' && !node.ignored);
    assert.ok(formulas >= 20, `the lesson has its formulas (${formulas})`);
    assert.equal(maths.length, formulas, 'each formula’s MathML is in the accessibility tree');
    assert.deepEqual(maths.filter((node) => text(node).trim() === '').map((node) => node.nodeId), [], 'each one has text to read');
    assertNoProblems(problems, 'formulas');
  } finally {
    await close();
  }
});
