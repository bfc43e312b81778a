// The next lesson's preview (value-preview.ts): one row worked by the core, S[0]/√d_head, the softmax with
// and without the division, and weights × V. Its prediction (ch26-preview-weights) comes first and the
// preview stays folded until it is checked; it shows the fixture's row as numpy computes it
// (fixtures/numpy/value_preview.json), and follows every edit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { assertNoProblems, cell, coreInPage, openLesson, rendered, repo, useServerAndBrowser, waitRenderedAfter } from './harness.mjs';

const run = useServerAndBrowser();
const preview = 'qkv-lesson .value-preview';

// The preview's rows as shown: step → values text.
function shownSteps(page) {
  return page.locator(preview).evaluate((section) => Object.fromEntries([...section.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.querySelector('bdi').textContent])));
}

// The core's preview for the numbers on screen (the state read as look-ahead.test.mjs reads it), as the same
// five rows and the output written out.
function coreSteps(page) {
  return page.evaluate(() => {
    const root = document.querySelector('qkv-lesson').shadowRoot;
    const size = (field) => root.querySelector(`input[data-size="${field}"]`).value;
    const [b, t, d, h] = ['batch', 'tokens', 'model_width', 'head_width'].map(size);
    const tensor = (key, shape) => ({ shape: shape.map(Number), cells: [...root.querySelectorAll(`input[data-field="${key}"]`)].map((input) => input.value) });
    const state = { batch: b, tokens: t, model_width: d, head_width: h, input: tensor('input', [b, t, d]) };
    for (const key of ['query_weight', 'key_weight', 'value_weight']) state[key] = tensor(key, [d, h]);
    for (const key of ['query_upstream', 'key_upstream', 'value_upstream']) state[key] = tensor(key, [b, t, h]);
    const p = window.testCore.evaluate({ state }).evidence.value_preview;
    const list = (view) => `[${view.rounded.join(', ')}]`;
    return [list(p.scores), list(p.scaled), list(p.weights), list(p.unscaled_weights), list(p.output), p.mixture_text];
  });
}

test('the prediction comes first; checked, the preview shows the fixture’s row as numpy computes it, and follows an edit', async () => {
  const numpy = JSON.parse(await readFile(resolve(repo, 'fixtures/numpy/value_preview.json'), 'utf8'));
  const fixture = JSON.parse(await readFile(resolve(repo, 'fixtures/chapter26.json'), 'utf8'));
  const { page, problems, requests, close } = await openLesson(run.browser, run.server.url);
  try {
    await coreInPage(page, requests);
    // The prediction comes first; the preview stays folded until it is checked (here: with the core's answer).
    const form = page.locator('qkv-lesson form[data-exercise="ch26-preview-weights"]');
    const before = await page.locator('qkv-lesson').evaluate((host) => {
      const root = host.shadowRoot;
      return Boolean(root.querySelector('form[data-exercise="ch26-preview-weights"]').compareDocumentPosition(root.querySelector('.value-preview')) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    assert.ok(before, 'the prediction comes before the preview');
    await page.locator('qkv-lesson details[data-evidence-for="ch26-best-key"] > summary').click();
    assert.equal(await page.locator(preview).isVisible(), false, 'folded until its prediction is checked');
    const view = await page.evaluate(() => window.testCore.exercises({ seed: '1', tokens: '5', dim: '8' }).exercises.find((e) => e.id === 'ch26-preview-weights'));
    assert.equal(view.answer[0], 'flattens', 'the core: for the fixture, the division moves the weights closer together');
    await form.locator(`input[value="${view.answer[0]}"]`).check();
    await form.getByRole('button', { name: 'Check' }).click();
    assert.match(await form.locator('[data-feedback]').innerText(), /Correct/);
    assert.match(await page.locator(`${preview} h5`).innerText(), /^Preview of the next lesson/, 'marked as a preview of the next lesson');

    // numpy's row, to two decimals (none of these values lies near a rounding tie).
    const two = (values) => `[${values.map((v) => v.toFixed(2)).join(', ')}]`;
    // The output written out: numpy's weights to four decimals times the fixture's rows of V (the page's minus sign).
    const { values: v, shape } = fixture.expected.value;
    const width = shape[2];
    const rowOfV = (j) => `[${v.slice(j * width, (j + 1) * width).map((x) => String(x).replace('-', '−')).join(', ')}]`;
    const writtenOut = numpy.weights.map((w, j) => `${w.toFixed(4)} · ${rowOfV(j)}`).join(' + ');
    const expected = [...[numpy.scores, numpy.scaled, numpy.weights, numpy.unscaled_weights, numpy.output].map(two), writtenOut];
    assert.deepEqual(Object.values(await shownSteps(page)), expected, 'the fixture’s preview row is numpy’s');
    assert.deepEqual(expected.slice(2, 5), ['[0.01, 0.99]', '[0.00, 1.00]', '[1.03, 2.92]'], 'test sanity: the issue’s numbers');

    // W_V[0,0] changes V, and so the output, but neither the scores nor the weights.
    const renders = await rendered(page);
    await cell(page, 'value_weight', 0).fill('5');
    await waitRenderedAfter(page, renders);
    const core = await coreSteps(page);
    assert.notEqual(core[4], expected[4], 'test sanity: the edit changes the output');
    assert.notEqual(core[5], expected[5], 'test sanity: and its written-out mixture');
    assert.deepEqual(Object.values(await shownSteps(page)), core, 'after the edit, the preview is the core’s');
    assertNoProblems(problems, 'preview');
  } finally {
    await close();
  }
});
