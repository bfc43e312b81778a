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

// reveal is observed: set after ready, the teacher's copy shows every question's answer as a page opened with it
// does, and back to after-check it is hidden again and "Show the answer" is back (review: both stayed as they were).
test('setting reveal after ready: "always" shows every answer as a page opened with it does; "after-check" hides them again', async () => {
  const shownAnswers = (page) =>
    page.evaluate(() => [...document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('.teacher-answer')].filter((answer) => !answer.hidden).map((answer) => answer.textContent));
  const showAnswerButtons = (page) => page.evaluate(() => [...document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('button.show-answer')].filter((button) => !button.hidden).length);
  const opened = await openLesson(run.browser, `${run.server.origin}/embed.html?reveal=always`);
  let teachersCopy;
  let teachersButtons;
  try {
    teachersCopy = await shownAnswers(opened.page);
    teachersButtons = await showAnswerButtons(opened.page);
    assert.ok(teachersCopy.length > 10 && teachersCopy.every((text) => text.startsWith('Answer: ')), `the teacher's copy opened with reveal="always" (${teachersCopy.length} answers)`);
    assertNoProblems(opened.problems, 'opened with reveal="always"');
  } finally {
    await opened.close();
  }
  const { page, problems, close } = await openLesson(run.browser, `${run.server.origin}/embed.html`);
  try {
    assert.deepEqual(await shownAnswers(page), []);
    const buttons = await showAnswerButtons(page);
    assert.ok(buttons > teachersButtons, `"Show the answer" on every question (${buttons}; ${teachersButtons} with reveal="always")`);
    await page.evaluate(() => document.querySelector('qkv-lesson').setAttribute('reveal', 'always'));
    await page.waitForFunction((count) => [...document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('.teacher-answer')].filter((answer) => !answer.hidden).length === count, teachersCopy.length);
    assert.deepEqual(await shownAnswers(page), teachersCopy, 'the same answers as the page opened with reveal="always"');
    assert.equal(await showAnswerButtons(page), teachersButtons, '"Show the answer" as in the page opened with reveal="always"');
    await page.evaluate(() => (document.querySelector('qkv-lesson').reveal = 'after-check'));
    await page.waitForFunction(() => [...document.querySelector('qkv-lesson').shadowRoot.querySelectorAll('.teacher-answer')].every((answer) => answer.hidden));
    assert.equal(await showAnswerButtons(page), buttons, '"Show the answer" is back');
    assertNoProblems(problems, 'reveal set after ready');
  } finally {
    await close();
  }
});
