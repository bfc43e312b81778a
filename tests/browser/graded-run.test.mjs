// A graded run an author sets (issue 40, item 4): graded-questions decides what counts (the others are practice),
// attempts caps the checks of a question and the form says when none are left, passing-score is the pass mark;
// "Your results" at the end of the main path shows the core's numbers; a bad value is said once and its default
// kept; with attempt-key, "Another one" is not offered.
//   node --test --test-concurrency=1 tests/browser/graded-run.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { answerExercise, assertNoProblems, coreCallsCounted, countCoreCalls, eventually, openForAxe, openLesson, openPage, readFixture, repo, useServerAndBrowser, waitLaidOut, waitReady } from './harness.mjs';

const run = useServerAndBrowser();
const prose = JSON.parse(readFileSync(resolve(repo, 'web/src/lesson/exercise-prose.json'), 'utf8'));
const counted = 'ch26-parameter-count';
const element = (page) => page.locator('qkv-lesson');
const setAttributes = (page, attributes) =>
  page.evaluate((pairs) => {
    const lesson = document.querySelector('qkv-lesson');
    for (const [name, value] of Object.entries(pairs)) {
      if (value === null) lesson.removeAttribute(name);
      else lesson.setAttribute(name, value);
    }
  }, attributes);
const outcome = (page) => page.evaluate(() => document.querySelector('qkv-lesson').outcome());
const results = (page) => page.locator('qkv-lesson section[data-results]');
// The results table's rows as the learner reads them: number, question, result, checks used.
const rows = (page) => results(page).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((cell) => cell.textContent)));
// Attribute changes apply together in a microtask: a round trip to the page lets it run.
const settled = (page) => page.evaluate(() => new Promise((done) => setTimeout(done)));
// A question shown other than the counted one.
const otherThanCounted = (ids) => ids.find((id) => id !== counted);

// The exercises section, ready and laid out, then made a graded run: `grading`'s attributes (graded-questions,
// passing-score, attempts; a function of the questions shown where it names some of them) set and applied; null
// sets none yet. `initScript`: run in the page before the lesson's. Returns openPage's handle and the questions shown.
async function openGradedRun(grading, { initScript } = {}) {
  const opened = await openPage(run.browser);
  if (initScript) await opened.page.addInitScript(initScript);
  await opened.page.goto(`${run.server.origin}/embed.html?sections=exercises`);
  await waitReady(opened.page);
  await waitLaidOut(opened.page);
  const ids = await opened.page.evaluate(() => document.querySelector('qkv-lesson').exerciseIds);
  if (grading) {
    await setAttributes(opened.page, typeof grading === 'function' ? grading(ids) : grading);
    await settled(opened.page);
  }
  return { ...opened, ids };
}

test('graded-questions decides what counts: practice never changes the score, and "Your results" shows the core’s numbers', async () => {
  const fixture = await readFixture();
  const { page, problems, close, ids } = await openGradedRun(null);
  try {
    assert.equal(await results(page).isHidden(), true, 'not a graded run: no results view');
    const other = otherThanCounted(ids);
    const practice = ids.find((id) => id !== counted && id !== other);
    assert.ok(ids.includes(counted) && practice, `questions shown: ${ids}`);
    await setAttributes(page, { 'graded-questions': `${counted} ${other}`, 'passing-score': '50' });
    await settled(page);
    assert.equal(await results(page).isVisible(), true, 'a graded run ends the main path with its results');
    await answerExercise(page, counted, [String(fixture.expected.parameter_count)]);
    let graded = await outcome(page);
    assert.equal(graded.counted, 2);
    assert.equal(graded.right, 1);
    assert.equal(graded.completed, false);
    // The practice question, checked wrong, changes nothing the course records.
    await answerExercise(page, practice, ['0']);
    const afterPractice = await outcome(page);
    for (const field of ['counted', 'right', 'settled', 'percent', 'completed', 'passed']) assert.equal(afterPractice[field], graded[field], field);
    assert.equal(afterPractice.questions.find((question) => question.id === practice).counted, false);
    // The other graded question's answer shown: completed, 1 of 2 right, 50 % against a pass mark of 50 %: passes.
    await page.evaluate((id) => document.querySelector('qkv-lesson').shadowRoot.querySelector(`form[data-exercise="${id}"] .show-answer`).click(), other);
    graded = await outcome(page);
    assert.equal(graded.completed, true);
    assert.equal(graded.passed, true);
    const table = await rows(page);
    assert.equal(table.length, 2, 'one row per question that counts');
    // In reading order, each numbered as the page numbers it.
    const gradedIds = ids.filter((id) => id === counted || id === other);
    const numbers = await Promise.all(gradedIds.map(async (id) => (await page.locator(`qkv-lesson form[data-exercise="${id}"] .exercise-number`).textContent()).trim()));
    assert.deepEqual(table.map((cells) => cells[0]), numbers);
    // Each by its short title (exercise-prose.json), not its whole question, linked to its question.
    assert.deepEqual(table.map((cells) => cells[1]), gradedIds.map((id) => prose[id].title));
    for (const id of gradedIds) assert.ok(prose[id].title.length < prose[id].question.length, `${id}: the title is shorter than its question`);
    const links = await results(page).locator('tbody a').evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
    const headings = await Promise.all(gradedIds.map((id) => page.locator(`qkv-lesson form[data-exercise="${id}"] .question-title`).getAttribute('id')));
    assert.deepEqual(links, headings.map((id) => `#${id}`));
    const row = (id) => table[gradedIds.indexOf(id)];
    assert.equal(row(counted)[2], 'Right');
    assert.equal(row(counted)[3], '1 (no limit)');
    assert.equal(row(other)[2], 'Answer shown: not counted as right');
    const summary = await results(page).locator('[data-results-summary]').textContent();
    assert.equal(summary, `Score: ${graded.percent} % (${graded.right} of ${graded.counted} right). Pass mark: ${graded.passing_percent} %.`);
    assert.equal(graded.passing_percent, 50);
    assert.equal(await results(page).locator('[data-results-verdict]').textContent(), 'This passes.');
    // A higher pass mark: the same work does not pass, and the results say so.
    await setAttributes(page, { 'passing-score': '60' });
    await settled(page);
    assert.equal((await outcome(page)).passed, false);
    assert.equal(await results(page).locator('[data-results-verdict]').textContent(), 'This does not pass.');
    assert.match(await results(page).locator('[data-results-summary]').textContent(), /Pass mark: 60 %\./);
    // Without graded-questions, every question shown counts again.
    await setAttributes(page, { 'graded-questions': null });
    await settled(page);
    assert.equal((await outcome(page)).counted, ids.length);
    assertNoProblems(problems, 'graded questions');
  } finally {
    await close();
  }
});

// A check in a graded run asked the core for the same outcome three times (the allowances, the record, the
// results), and so did a shown answer twice: each now asks once. Counted on the core calls after the start
// (harness countCoreCalls), each check's counts alone.
test('a check and a shown answer in a graded run ask the core for the outcome once each', async () => {
  const fixture = await readFixture();
  const grading = (ids) => ({ 'graded-questions': `${counted} ${otherThanCounted(ids)}`, 'passing-score': '50' });
  const { page, problems, close, ids } = await openGradedRun(grading, { initScript: countCoreCalls });
  const other = otherThanCounted(ids);
  try {
    const callsOf = async (act, what) => {
      await page.evaluate(() => (window.__coreCalls.later = {}));
      await act();
      const { later } = await coreCallsCounted(page, what);
      assert.equal(later.lessonOutcome?.count, 1, `${what}: the outcome asked for once`);
    };
    await callsOf(() => answerExercise(page, counted, [String(fixture.expected.parameter_count)]), 'a check');
    const show = (id) => page.evaluate((exercise) => document.querySelector('qkv-lesson').shadowRoot.querySelector(`form[data-exercise="${exercise}"] .show-answer`).click(), id);
    await callsOf(() => show(other), 'a shown answer');
    // The results shown came from that one outcome: 1 of 2 right, 50 % against a pass mark of 50 %.
    const graded = await outcome(page);
    assert.deepEqual([graded.completed, graded.right, graded.counted, graded.passed], [true, 1, 2, true]);
    assert.equal(await results(page).locator('[data-results-summary]').textContent(), `Score: ${graded.percent} % (1 of 2 right). Pass mark: 50 %.`);
    assert.equal(await results(page).locator('[data-results-verdict]').textContent(), 'This passes.');
    assertNoProblems(problems, 'graded run');
  } finally {
    await close();
  }
});

// lesson.outcome() hands its object to the host page: what the host does to it is not what the lesson reports next.
test('a host that changes the outcome it was handed does not change what the lesson reports next', async () => {
  const { page, problems, close } = await openGradedRun({ 'graded-questions': counted, 'passing-score': '50' });
  try {
    await answerExercise(page, counted, ['0']);
    const before = await outcome(page);
    const resultsBefore = await rows(page);
    const after = await page.evaluate(() => {
      const lesson = document.querySelector('qkv-lesson');
      const handed = lesson.outcome();
      handed.passed = !handed.passed;
      handed.right += 1;
      handed.questions[0].right = !handed.questions[0].right;
      handed.questions.push({ id: 'made-up' });
      lesson.passingFraction = lesson.passingFraction; // the results shown again, from the lesson's own outcome
      return lesson.outcome();
    });
    assert.deepEqual(after, before, 'the next outcome is the core\'s, not the host\'s edit');
    assert.deepEqual(await rows(page), resultsBefore, 'the results shown are unchanged');
    assertNoProblems(problems, 'host edits its outcome');
  } finally {
    await close();
  }
});

test('attempts: past the allowance the core refuses a check, the form says so and stops accepting checks, and the question is settled as not right', async () => {
  const fixture = await readFixture();
  const { page, problems, close } = await openGradedRun({ attempts: '1' });
  try {
    const form = await answerExercise(page, counted, ['17']);
    assert.equal(await form.getAttribute('data-no-checks-left'), '');
    assert.equal(await form.getByRole('button', { name: 'Check' }).isDisabled(), true);
    assert.match(await form.locator('[data-feedback]').innerText(), /No checks are left \(1 allowed for this question\), so it is settled as not right/);
    // A check forced past the disabled button: the core refuses it (kind "attempts"), in words.
    await form.locator('input[type="text"]').fill(String(fixture.expected.parameter_count));
    await form.evaluate((node) => node.requestSubmit());
    const refusal = await form.locator('[data-feedback]').innerText();
    assert.match(refusal, /No checks are left for this question\./);
    assert.doesNotMatch(refusal, /No checks are left \(1 allowed/, 'the core\'s sentence alone, not the page\'s beside it');
    const graded = await outcome(page);
    const question = graded.questions.find((entry) => entry.id === counted);
    assert.deepEqual({ right: question.right, settled: question.settled, out_of_attempts: question.out_of_attempts, attempts: question.attempts }, { right: false, settled: true, out_of_attempts: true, attempts: 1 });
    const progress = await page.evaluate((id) => document.querySelector('qkv-lesson').progress.answers[id], counted);
    assert.equal(progress.attempts, 1, 'the refused check is not an attempt');
    const ids = await page.evaluate(() => document.querySelector('qkv-lesson').exerciseIds);
    const row = (await rows(page))[ids.indexOf(counted)];
    assert.deepEqual(row.slice(2), ['Not right: no checks left', '1 of 1']);
    assertNoProblems(problems, 'attempts');
  } finally {
    await close();
  }
});

// Review (failing on f961b9e): the allowance is read by the core only at ready (gradingChanged), after the saved
// checks were replayed with an allowance of 0, so a question out of checks comes back with Check enabled and
// "Try once more".
test('attempts used up before a reload stay used up after it: Check disabled and the form says no checks are left', async () => {
  const { page, problems, close, reload } = await openLesson(run.browser, `${run.server.origin}/embed.html?sections=exercises&attempts=1&progress-key=graded-reload`);
  try {
    const form = await answerExercise(page, counted, ['17']);
    assert.equal(await form.getByRole('button', { name: 'Check' }).isDisabled(), true, 'before the reload');
    await reload();
    await waitReady(page);
    const restored = page.locator(`qkv-lesson form[data-exercise="${counted}"]`);
    const question = (await outcome(page)).questions.find((entry) => entry.id === counted);
    assert.equal(question.out_of_attempts, true, 'the core: no checks are left');
    const feedback = await restored.locator('[data-feedback]').innerText();
    assert.doesNotMatch(feedback, /Try once more|Try again/, 'no further try is offered');
    assert.match(feedback, /No checks are left \(1 allowed for this question\)/);
    assert.equal(await restored.getAttribute('data-no-checks-left'), '');
    assert.equal(await restored.getByRole('button', { name: 'Check' }).isDisabled(), true, 'Check stays disabled');
    assertNoProblems(problems, 'attempts after a reload');
  } finally {
    await close();
  }
});

// Review (failing on f961b9e): markAllowance runs only on a check, so an allowance raised or removed later leaves
// Check disabled although the core would take the check.
test('attempts removed after a question ran out of checks: Check is enabled again, as the core takes the check', async () => {
  const { page, problems, close } = await openGradedRun({ attempts: '1' });
  try {
    const form = await answerExercise(page, counted, ['17']);
    assert.equal(await form.getByRole('button', { name: 'Check' }).isDisabled(), true, 'out of checks');
    await setAttributes(page, { attempts: null });
    await settled(page);
    const question = (await outcome(page)).questions.find((entry) => entry.id === counted);
    assert.equal(question.out_of_attempts, false, 'the core: checks are unlimited now');
    assert.equal(await form.getAttribute('data-no-checks-left'), null);
    assert.equal(await form.getByRole('button', { name: 'Check' }).isDisabled(), false, 'Check follows the allowance');
    assertNoProblems(problems, 'attempts removed');
  } finally {
    await close();
  }
});

// Saved checks are replayed as they were taken: an allowance lowered since (two checks kept, one now allowed) does
// not make the core refuse the replay, so the learner's answer comes back, out of checks and not right.
test('saved checks past an allowance lowered since come back: the answer kept, Check disabled, the note once', async () => {
  const { page, problems, close } = await openLesson(run.browser, `${run.server.origin}/embed.html?sections=exercises&progress-key=graded-lowered`);
  try {
    await answerExercise(page, counted, ['17']);
    await answerExercise(page, counted, ['19']);
    await page.goto(`${run.server.origin}/embed.html?sections=exercises&progress-key=graded-lowered&attempts=1`);
    await waitReady(page);
    const form = page.locator(`qkv-lesson form[data-exercise="${counted}"]`);
    assert.equal(await form.locator('input[type="text"]').inputValue(), '19', 'the last answer is back');
    const kept = await page.evaluate((id) => document.querySelector('qkv-lesson').progress.answers[id], counted);
    assert.deepEqual({ responses: kept.responses, attempts: kept.attempts }, { responses: ['19'], attempts: 2 });
    assert.equal(await form.getByRole('button', { name: 'Check' }).isDisabled(), true);
    const feedback = await form.locator('[data-feedback]').innerText();
    assert.doesNotMatch(feedback, /No checks are left for this question\./, 'the replay was not refused');
    assert.equal(feedback.match(/No checks are left \(1 allowed for this question\)/g)?.length, 1, 'the note, once');
    assertNoProblems(problems, 'an allowance lowered since the checks were saved');
  } finally {
    await close();
  }
});

// A question out of checks that graded-questions makes practice takes checks again, and is closed again, with the
// note back in place of the offer of another try, when it counts again.
test('graded-questions: a question out of checks opens as practice and closes again when it counts', async () => {
  const { page, problems, close } = await openGradedRun({ attempts: '1' });
  try {
    const form = await answerExercise(page, counted, ['17']);
    const check = form.getByRole('button', { name: 'Check' });
    const feedback = form.locator('[data-feedback]');
    assert.equal(await check.isDisabled(), true, 'out of checks');
    await setAttributes(page, { 'graded-questions': 'ch26-first-token' });
    await settled(page);
    assert.equal(await check.isDisabled(), false, 'practice: checks are unlimited');
    assert.equal(await form.getAttribute('data-no-checks-left'), null);
    assert.match(await feedback.innerText(), /Try once more, or show the answer\./);
    assert.doesNotMatch(await feedback.innerText(), /No checks are left/);
    await setAttributes(page, { 'graded-questions': null });
    await settled(page);
    assert.equal(await check.isDisabled(), true, 'counted again: out of checks');
    assert.doesNotMatch(await feedback.innerText(), /Try once more/);
    assert.equal((await feedback.innerText()).match(/No checks are left \(1 allowed for this question\)/g)?.length, 1, 'the note, once');
    assertNoProblems(problems, 'graded-questions over an allowance used up');
  } finally {
    await close();
  }
});

test('a bad value: the attribute’s or the core’s own message, warned once and in data-*-error, and the default kept', async () => {
  const { page, problems, close, ids } = await openGradedRun(null);
  try {
    const shown = ids.length;
    await setAttributes(page, { 'passing-score': 'most', attempts: 'two', 'graded-questions': `${counted} no-such-question` });
    await settled(page);
    const errors = await element(page).evaluate((lesson) => ({ ...lesson.dataset }));
    assert.equal(errors.passingScoreError, 'passing-score="most": the passing score "most" is not read: expected a number such as \u22121.5, 3/2 or 2e-3; the default pass mark is used.');
    assert.match(errors.attemptsError, /^attempts="two": the attempts allowed per question "two" is not /);
    assert.match(errors.attemptsError, /; checks are unlimited\.$/);
    assert.equal(errors.gradedQuestionsError, `graded-questions="${counted} no-such-question": graded question "no-such-question" is not one of the questions shown; every question shown counts.`);
    let graded = await outcome(page);
    assert.equal(graded.passing, 0.8, 'the default pass mark');
    assert.equal(graded.attempts, 0, 'unlimited checks');
    assert.equal(graded.counted, shown, 'every question shown counts');
    // Out of range: the core's message.
    await setAttributes(page, { 'passing-score': '150', attempts: '1000' });
    await settled(page);
    const ranged = await element(page).evaluate((lesson) => ({ ...lesson.dataset }));
    assert.equal(ranged.passingScoreError, 'passing-score="150": the passing score must be a percent from 0 to 100; the default pass mark is used.');
    assert.equal(ranged.attemptsError, 'attempts="1000": the attempts allowed per question must be from 0 (unlimited) to 100; checks are unlimited.');
    graded = await outcome(page);
    assert.equal(graded.passing, 0.8);
    // Another change leaves the same problems: each was said once.
    await setAttributes(page, { theme: 'dark' });
    await settled(page);
    const warnings = problems.filter((problem) => problem.startsWith('console.warning'));
    for (const words of [errors.passingScoreError, errors.attemptsError, errors.gradedQuestionsError, ranged.passingScoreError, ranged.attemptsError])
      assert.equal(warnings.filter((warning) => warning.includes(`<qkv-lesson>: ${words}`)).length, 1, words);
    // Fixed: the errors go.
    await setAttributes(page, { 'passing-score': '70', attempts: '2', 'graded-questions': counted });
    await settled(page);
    const fixed = await element(page).evaluate((lesson) => [lesson.dataset.passingScoreError, lesson.dataset.attemptsError, lesson.dataset.gradedQuestionsError]);
    assert.deepEqual(fixed, [undefined, undefined, undefined]);
    graded = await outcome(page);
    assert.deepEqual([graded.passing, graded.attempts, graded.counted], [0.7, 2, 1]);
    assert.equal(problems.length, warnings.length, `only the warnings: ${problems}`);
  } finally {
    await close();
  }
});

test('with attempt-key, "Another one" is not offered and a sentence says why', async () => {
  const { page, problems, close } = await openLesson(run.browser, `${run.server.origin}/embed.html?sections=prediction`);
  try {
    const button = page.locator('qkv-lesson button.another-one');
    const note = page.locator('qkv-lesson [data-graded-attempt]');
    assert.equal(await button.isVisible(), true);
    assert.equal(await note.isHidden(), true);
    await setAttributes(page, { 'attempt-key': 'scorm:learner-17:0123456789abcdef0123456789abcdef' });
    await eventually(async () => (await button.isHidden()) && (await note.isVisible()), { message: '"Another one" hidden, the note shown' });
    assert.equal(await note.textContent(), 'This is a graded attempt: its numbers are the ones graded, so “Another one” is not offered. ');
    assert.equal(await results(page).isVisible(), true, 'a graded attempt shows its results');
    assertNoProblems(problems, 'attempt-key');
  } finally {
    await close();
  }
});

test('axe-core at 390 px, light and dark: "Your results" and a question out of checks have no serious or critical violation', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, problems, close } = await openForAxe(run.browser, `${run.server.origin}/embed.html?sections=exercises`, { width: 390, height: 844, colorScheme });
    try {
      await setAttributes(page, { attempts: '1', 'graded-questions': `${counted} ch26-output-shapes`, 'passing-score': '50' });
      await settled(page);
      await answerExercise(page, counted, ['17']);
      await answerExercise(page, 'ch26-output-shapes', ['[4, 7, 2]']);
      assert.equal(await results(page).isVisible(), true);
      await page.addScriptTag({ path: resolve(repo, 'node_modules/axe-core/axe.min.js') });
      const violations = await page.evaluate(async () => {
        const outcome = await window.axe.run({ fromShadowDom: ['qkv-lesson', 'section[data-results]'] }, { resultTypes: ['violations'] });
        const form = await window.axe.run({ fromShadowDom: ['qkv-lesson', 'form[data-no-checks-left]'] }, { resultTypes: ['violations'] });
        const serious = [...outcome.violations, ...form.violations].filter((v) => v.impact === 'serious' || v.impact === 'critical');
        // Rules that found something to check in each part (an empty context would pass by checking nothing).
        const checked = [outcome, form].map((part) => part.passes.filter((rule) => rule.nodes.length > 0).map((rule) => rule.id));
        return { serious: serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.flat().join(' >>> ')).join(', ')}`), checked };
      });
      assert.deepEqual(violations.serious, [], `${colorScheme}: no serious or critical violation`);
      assert.ok(violations.checked[0].includes('th-has-data-cells') && violations.checked[1].includes('label'), `axe checked the table and the form: ${violations.checked}`);
      assertNoProblems(problems, `axe, ${colorScheme}`);
    } finally {
      await close();
    }
  }
});
