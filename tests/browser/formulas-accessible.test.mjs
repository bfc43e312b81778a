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
    // Names in prose come with text the page writes later too (the checks' verdicts once the page is idle, the
    // experiment's facts once its worker answers): counted once all of it is on the page, not in between.
    await page.waitForFunction(() => {
      const root = document.querySelector('qkv-lesson').shadowRoot;
      return root.querySelector('.checks-pending') === null && root.querySelector('.self-score-results[data-shown]') !== null;
    });
    const { formulas, names } = await page.evaluate(() => {
      const root = document.querySelector('qkv-lesson').shadowRoot;
      for (const fold of root.querySelectorAll('details')) fold.open = true;
      scrollTo(0, 0); // most formulas below the viewport: what the browser may skip drawing
      // Not the MathML probe, kept out of the accessibility tree on purpose (aria-hidden, dom.ts).
      const shown = (math) => !math.closest('[hidden], [aria-hidden="true"]');
      return { formulas: [...root.querySelectorAll('.katex-mathml math')].filter(shown).length, names: [...root.querySelectorAll('math[data-name]')].filter(shown).length };
    });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const byId = new Map(nodes.map((node) => [node.nodeId, node]));
    const text = (node) => (node.role?.value === 'StaticText' ? (node.name?.value ?? '') : (node.childIds ?? []).map((id) => byId.get(id)).filter(Boolean).map(text).join(''));
    // Besides the formulas, the symbols' names in prose are MathML too (the next test).
    const maths = nodes.filter((node) => node.role?.value === 'MathMLMath' && !node.ignored);
    assert.ok(formulas >= 20, `the lesson has its formulas (${formulas})`);
    assert.equal(maths.length, formulas + names, 'each formula’s MathML (and each name’s) is in the accessibility tree');
    assert.deepEqual(maths.filter((node) => text(node).trim() === '').map((node) => node.nodeId), [], 'each one has text to read');
    assertNoProblems(problems, 'formulas');
  } finally {
    await close();
  }
});

// Every symbol is read one way (issue 38): a name typed in prose (W_Q, d_head, W̄_K) was read "W underscore Q"
// where the formulas' MathML reads "W sub Q". Prose names are now MathML built as KaTeX builds the same name: no
// name is left typed with an underscore on the page (code and typed fields aside), and in Chromium's
// accessibility tree every subscripted name has one structure, whether it stands in prose or in a formula.
test('every symbol is read one way: names in prose are the MathML the formulas use, none is typed with an underscore', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url, { width: 1280, height: 900 });
  try {
    const typed = await page.evaluate(() => {
      const root = document.querySelector('qkv-lesson').shadowRoot;
      for (const fold of root.querySelectorAll('details')) fold.open = true;
      const name = /(?<![\p{L}\p{N}_])[A-Za-z]\u0304?_[A-Za-z0-9]/u;
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      const found = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement.closest('pre, code, textarea, .katex, style, [hidden]')) continue;
        if (name.test(node.data)) found.push(node.data.trim().slice(0, 80));
      }
      return found;
    });
    assert.deepEqual(typed, [], 'no name typed with an underscore in the lesson’s text');
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const byId = new Map(nodes.map((node) => [node.nodeId, node]));
    const children = (node) => (node.childIds ?? []).map((id) => byId.get(id)).filter(Boolean);
    const text = (node) => (node.role?.value === 'StaticText' ? (node.name?.value ?? '') : children(node).map(text).join(''));
    // A subscript's structure: the roles of its nodes, depth first, without the text nodes' own boxes.
    const structure = (node) => (node.role?.value === 'StaticText' || node.role?.value === 'InlineTextBox' ? '' : `${node.role?.value}(${children(node).map(structure).filter(Boolean).join(',')})`);
    const byName = new Map();
    for (const node of nodes.filter((node) => node.role?.value === 'MathMLSub' && !node.ignored)) {
      const key = text(node).normalize('NFKC'); // the math italic 𝑊 the tree reports, as W
      if (!byName.has(key)) byName.set(key, new Set());
      byName.get(key).add(structure(node));
    }
    for (const [key, structures] of byName) assert.equal(structures.size, 1, `${key} is read one way, not as ${[...structures].join(' and ')}`);
    for (const key of ['WQ', 'dhead', 'UK']) assert.ok(byName.has(key), `the lesson reads ${key} somewhere (${[...byName.keys()].join(', ')})`);
    assertNoProblems(problems, 'names');
  } finally {
    await close();
  }
});
