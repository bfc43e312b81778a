// The element's public surface: every observed attribute has a property that parses it, and setting
// `sections` and `state` after ready takes effect without a reload.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertNoProblems, openLesson, tableTexts, useServerAndBrowser } from './harness.mjs';

const run = useServerAndBrowser();

test('every observed attribute has a property, and properties parse into closed values', async () => {
  const { page, problems, close } = await openLesson(run.browser, run.server.url);
  try {
    const result = await page.evaluate(() => {
      const element = document.querySelector('qkv-lesson');
      const type = customElements.get('qkv-lesson');
      const camel = (name) => name.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
      const missing = type.observedAttributes.filter((name) => !(camel(name) in type.prototype));
      element.setAttribute('reveal', 'sometimes');
      const reveal = element.reveal;
      element.setAttribute('sections', 'diagram nonsense');
      const sections = element.sections;
      element.setAttribute('theme', 'purple');
      const theme = element.theme;
      return { missing, reveal, sections, theme };
    });
    assert.deepEqual(result.missing, [], 'observed attributes without a property');
    assert.equal(result.reveal, 'after-check', 'an unknown reveal falls back to the default');
    assert.deepEqual(result.sections, ['diagram'], 'unknown section names are ignored');
    assert.equal(result.theme, 'auto');
    const hidden = await page.locator('qkv-lesson [data-section]').evaluateAll((sections) => sections.filter((s) => !s.hidden).map((s) => s.dataset.section));
    assert.deepEqual(hidden, ['diagram'], 'changing sections after ready shows only the diagram');
    // Each unknown value was said once on the console (course-statements.test.mjs checks the words).
    assert.deepEqual(
      problems.splice(0).map((problem) => /^console\.warning: <qkv-lesson>: (reveal|sections|theme)/.exec(problem)?.[1]),
      ['reveal', 'sections', 'theme'],
    );

    await page.evaluate(() => {
      document.querySelector('qkv-lesson').state = 'b=1&t=1&d=1&h=1&x=3&wq=2&wk=5&wv=-1&uq=1&uk=1&uv=1';
    });
    assert.deepEqual(await tableTexts(page, 'query'), ['6'], 'a new state attribute recomputes (3 × 2)');
    assert.deepEqual(await tableTexts(page, 'key'), ['15']);
    assertNoProblems(problems, 'element API');
  } finally {
    await close();
  }
});
