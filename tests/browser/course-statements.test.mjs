// What a course gets from the lesson (issue 17, items 1 and 3): every `sections` choice gives each question
// what it needs, unknown attribute values are said, `reveal="never"` keeps the hints, each check sends a
// complete xAPI 1.0.3 statement (a revealed answer is never a success), the challenge's text is kept and
// reported, and `progress` / `restoreProgress` carry a learner's work to a new page.
//   node --test --test-concurrency=1 tests/browser/course-statements.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { assertNoProblems, openLesson, readFixture, readText, repo, useServerAndBrowser } from './harness.mjs';

const run = useServerAndBrowser();
const prose = JSON.parse(readFileSync(resolve(repo, 'web/src/lesson/exercise-prose.json'), 'utf8'));

// Records every statement and progress event the element sends, from before it is ready.
async function recordEvents(page) {
  await page.evaluate(() => {
    const lesson = document.querySelector('qkv-lesson');
    window.statements = [];
    window.progressEvents = [];
    lesson.addEventListener('qkv-lesson-answer', (event) => window.statements.push(event.detail));
    lesson.addEventListener('qkv-lesson-progress', (event) => window.progressEvents.push(event.detail));
  });
}

// Picks an option or fills the blanks of one question, then checks it (in the page, so that hidden parts do not matter).
async function check(page, id, responses) {
  await page.evaluate(
    ([exercise, given]) => {
      const form = document.querySelector('qkv-lesson').shadowRoot.querySelector(`form[data-exercise="${exercise}"]`);
      const radios = [...form.querySelectorAll('input[type="radio"]')];
      if (radios.length) for (const radio of radios) radio.checked = radio.value === given[0];
      else [...form.querySelectorAll('input[type="text"]')].forEach((input, i) => (input.value = given[i]));
      form.requestSubmit();
    },
    [id, responses],
  );
}

async function showAnswer(page, id) {
  await page.evaluate((exercise) => {
    document.querySelector('qkv-lesson').shadowRoot.querySelector(`form[data-exercise="${exercise}"] .show-answer`).click();
  }, id);
}

const feedback = (page, id) => page.locator(`qkv-lesson [data-feedback="${id}"]`).innerText();

// The structure xAPI 1.0.3 asks of a statement with a cmi.interaction activity and a result (section 2.4 of
// the specification's data model); the actor is the host's to add.
const iri = /^[a-z][a-z0-9+.-]*:\S+$/i;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const isoDuration = /^P(?:\d+Y)?(?:\d+M)?(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?$/;
const interactionTypes = ['true-false', 'choice', 'fill-in', 'long-fill-in', 'matching', 'performance', 'sequencing', 'likert', 'numeric', 'other'];
function assertStatement(statement, where) {
  assert.match(statement.verb.id, iri, `${where}: verb.id is an IRI`);
  assert.equal(statement.object.objectType, 'Activity', where);
  assert.match(statement.object.id, iri, `${where}: object.id is an IRI`);
  const definition = statement.object.definition;
  assert.equal(definition.type, 'http://adlnet.gov/expapi/activities/cmi.interaction', where);
  assert.ok(interactionTypes.includes(definition.interactionType), `${where}: interactionType ${definition.interactionType}`);
  for (const map of [definition.name, definition.description]) assert.ok(Object.keys(map).length > 0 && Object.values(map).every((text) => typeof text === 'string' && text), `${where}: language maps`);
  if (definition.interactionType === 'choice') {
    assert.ok(Array.isArray(definition.choices) && definition.choices.length >= 2, `${where}: a choice lists its choices`);
    for (const choice of definition.choices) {
      assert.match(choice.id, /^\S+$/, `${where}: choice ids have no spaces (xAPI's "[,]" response syntax)`);
      assert.ok(typeof choice.description['en-US'] === 'string' && choice.description['en-US'], where);
    }
  } else assert.equal(definition.choices, undefined, `${where}: only a choice lists choices`);
  if (definition.correctResponsesPattern !== undefined) {
    assert.ok(Array.isArray(definition.correctResponsesPattern) && definition.correctResponsesPattern.every((pattern) => typeof pattern === 'string'), where);
    if (definition.interactionType === 'choice')
      for (const pattern of definition.correctResponsesPattern) assert.ok(pattern.split('[,]').every((id) => definition.choices.some((choice) => choice.id === id)), `${where}: the pattern names choices`);
  }
  const result = statement.result;
  assert.equal(typeof result.response, 'string', where);
  assert.match(result.duration, isoDuration, `${where}: duration ${result.duration}`);
  if (result.score) {
    const { raw, min, max, scaled } = result.score;
    assert.ok(min <= raw && raw <= max && scaled >= -1 && scaled <= 1, `${where}: score ${JSON.stringify(result.score)}`);
  }
  for (const extensions of [result.extensions, statement.context.extensions]) for (const key of Object.keys(extensions)) assert.match(key, iri, `${where}: extension keys are IRIs`);
  assert.ok(!Number.isNaN(Date.parse(statement.timestamp)) && statement.timestamp.endsWith('Z'), `${where}: timestamp ${statement.timestamp}`);
  assert.equal(statement.actor, undefined, `${where}: the host adds the actor`);
  assert.match(statement.id, uuid, `${where}: a statement id`);
  assert.match(statement.context.registration, uuid, `${where}: the attempt's registration`);
  assert.ok(statement.context.contextActivities.parent.some((activity) => activity.definition?.type === 'http://adlnet.gov/expapi/activities/lesson'), `${where}: the lesson is the parent`);
}

test('sections=exercises: the first-token question shows the fixture’s X and weights, the history and upstream questions a sentence of context', async () => {
  const fixture = await readFixture();
  const { page, problems, close } = await openLesson(run.browser, `${run.server.origin}/embed.html?sections=exercises`);
  try {
    const context = (id) => page.locator(`qkv-lesson [data-context-for="${id}"]`);
    for (const id of ['ch26-first-token', 'ch26-best-key', 'ch26-history', 'ch26-upstream-key']) {
      assert.ok(await context(id).isVisible(), `${id}: its context is shown`);
      assert.equal((await readText(context(id))).trim().startsWith(prose[id].context.slice(0, 40)), true, `${id}: the context's words`);
      // The context comes right before its question.
      const next = await context(id).evaluate((element) => element.nextElementSibling?.dataset.exercise);
      assert.equal(next, id, `${id}: the context sits right before the question`);
    }
    // The tables show the fixture's numbers (the core's text of them: "-1" is written "−1").
    for (const key of ['input', 'query_weight', 'key_weight', 'value_weight']) {
      const shown = await page.locator(`qkv-lesson [data-context-for="ch26-first-token"] table[data-context-tensor="${key}"] td`).allInnerTexts();
      assert.deepEqual(shown.map((text) => Number(text.trim().replace('−', '-'))), fixture[key].values, `${key} beside the first-token question`);
    }
    // With the opening prediction shown, the question sits there and no second copy of the tables is shown.
    await page.evaluate(() => (document.querySelector('qkv-lesson').sections = ['prediction', 'exercises']));
    await page.waitForFunction(() => !document.querySelector('qkv-lesson').shadowRoot.querySelector('[data-context-for="ch26-first-token"]')?.isConnected);
    assert.equal(await page.locator('qkv-lesson section[data-section="prediction"] form[data-exercise="ch26-first-token"]').count(), 1, 'the question is in the opening prediction');
    assertNoProblems(problems, 'sections=exercises');
  } finally {
    await close();
  }
});

test('unknown sections, reveal and theme values warn once each and set data-…-error; a known value clears it', async () => {
  const { page, problems, close } = await openLesson(run.browser, `${run.server.origin}/embed.html?sections=diagram%20exercize&reveal=later&theme=blue`);
  try {
    const data = await page.evaluate(() => ({ ...document.querySelector('qkv-lesson').dataset }));
    assert.match(data.sectionsError, /"exercize".*is not a section.*The others are shown/);
    assert.match(data.revealError, /reveal="later" is not one of after-check, never, always/);
    assert.match(data.themeError, /theme="blue" is not light, dark or auto/);
    assert.deepEqual(
      problems.map((problem) => problem.replace(/ \(at .*\)$/, '')),
      [`console.warning: <qkv-lesson>: ${data.sectionsError}`, `console.warning: <qkv-lesson>: ${data.revealError}`, `console.warning: <qkv-lesson>: ${data.themeError}`],
    );
    const sections = await page.evaluate(() => document.querySelector('qkv-lesson').sections);
    assert.deepEqual(sections, ['diagram'], 'the known section is shown');
    await page.evaluate(() => {
      const lesson = document.querySelector('qkv-lesson');
      lesson.sections = ['exercises'];
      lesson.reveal = 'never';
      lesson.theme = 'dark';
    });
    const cleared = await page.evaluate(() => ({ ...document.querySelector('qkv-lesson').dataset }));
    assert.equal(cleared.sectionsError ?? cleared.revealError ?? cleared.themeError, undefined);
  } finally {
    await close();
  }
});

test('reveal="never": a wrong answer still gets its hint, and no answer is ever shown', async () => {
  const { page, problems, close } = await openLesson(run.browser, `${run.server.origin}/embed.html?sections=exercises&reveal=never`);
  try {
    await check(page, 'ch26-output-shapes', ['[7, 2]']);
    const said = await feedback(page, 'ch26-output-shapes');
    assert.match(said, /Not quite/);
    assert.match(said, /Hint: /);
    await check(page, 'ch26-output-shapes', ['[7, 3]']);
    assert.doesNotMatch(await feedback(page, 'ch26-output-shapes'), /Answer:/, 'the second wrong check shows no answer either');
    assert.equal(await page.locator('qkv-lesson form[data-exercise="ch26-output-shapes"] .show-answer').isVisible(), false);
    assertNoProblems(problems, 'reveal=never');
  } finally {
    await close();
  }
});

test('each check sends a complete statement: attempt numbers count up, a revealed answer is never a success, choices carry their text', async () => {
  const fixture = await readFixture();
  const { page, problems, close } = await openLesson(run.browser, `${run.server.origin}/embed.html?sections=exercises`);
  try {
    await recordEvents(page);
    await check(page, 'ch26-parameter-count', ['17']);
    await check(page, 'ch26-parameter-count', [String(fixture.expected.parameter_count)]);
    await showAnswer(page, 'ch26-change-query-only');
    await check(page, 'ch26-change-query-only', ['no']);
    await check(page, 'ch26-first-token', ['[0, 3]', '[3, 0]', '[3, -3]']);
    const all = await page.evaluate(() => window.statements);
    const statements = all.filter((statement) => statement.verb.id === 'http://adlnet.gov/expapi/verbs/answered');
    assert.equal(statements.length, 4, 'one answered statement per check (showing the answer is not a check)');
    assert.deepEqual(
      all.filter((statement) => statement.verb.id === 'http://id.tincanapi.com/verb/viewed').map((statement) => statement.context.extensions),
      [{ 'urn:qkv-lesson:exercise': 'ch26-change-query-only', 'urn:qkv-lesson:shown-by': 'learner' }],
      'showing the answer is recorded, by whom',
    );
    statements.forEach((statement, i) => assertStatement(statement, `statement ${i + 1}`));
    const [wrong, right, revealed, vector] = statements;
    // Rooted under the page's own address by default (unique per course page), and named by id in context.
    assert.equal(wrong.object.id, `${run.server.origin}/embed.html#qkv-lesson/exercise/ch26-parameter-count`);
    assert.equal(wrong.context.extensions['urn:qkv-lesson:exercise'], 'ch26-parameter-count');
    assert.deepEqual([wrong.result.success, wrong.context.extensions['urn:qkv-lesson:attempt']], [false, 1]);
    assert.deepEqual([right.result.success, right.context.extensions['urn:qkv-lesson:attempt']], [true, 2]);
    assert.equal(right.object.definition.interactionType, 'fill-in');
    assert.deepEqual(right.object.definition.correctResponsesPattern, [String(fixture.expected.parameter_count)]);
    assert.equal(right.result.response, String(fixture.expected.parameter_count));
    assert.deepEqual(right.result.score, { raw: 1, min: 0, max: 1, scaled: 1 });
    // Shown first, then checked with the right option: matched, but not a success.
    assert.equal(revealed.result.success, false);
    assert.equal(revealed.result.extensions['urn:qkv-lesson:matched'], true);
    assert.equal(revealed.context.extensions['urn:qkv-lesson:revealed'], true);
    assert.equal(revealed.result.score.raw, 0);
    assert.match(await feedback(page, 'ch26-change-query-only'), /not counted as a success/);
    assert.equal(revealed.object.definition.interactionType, 'choice');
    assert.deepEqual(
      revealed.object.definition.choices,
      Object.entries(prose['ch26-change-query-only'].choices).map(([id, text]) => ({ id, description: { 'en-US': text } })),
    );
    assert.deepEqual(revealed.object.definition.correctResponsesPattern, ['no']);
    // Several blanks: xAPI's "[,]" joins them, in the response and in the pattern.
    assert.equal(vector.result.response, '[0, 3][,][3, 0][,][3, -3]');
    assert.equal(vector.object.definition.correctResponsesPattern[0].split('[,]').length, 3);
    assert.equal(vector.result.success, true);
    assertNoProblems(problems, 'statements');
  } finally {
    await close();
  }
});

test('the challenge’s text and the attempt’s registration are kept under progress-key, the text reported when the learner leaves the box, both restored on reload', async () => {
  const opened = await openLesson(run.browser, `${run.server.origin}/embed.html?sections=self-score&progress-key=course-7`);
  const { page, problems, close } = opened;
  try {
    await recordEvents(page);
    const box = page.locator('qkv-lesson textarea[data-challenge]');
    await box.fill('Tying favours tokens that match themselves.');
    await box.blur();
    await page.waitForFunction(() => window.statements.some((sent) => sent.verb.id.endsWith('/answered')));
    const [statement] = (await page.evaluate(() => window.statements)).filter((sent) => sent.verb.id.endsWith('/answered'));
    assertStatement(statement, 'challenge');
    assert.equal(statement.object.id, `${run.server.origin}/embed.html#qkv-lesson/exercise/qkv04-challenge`);
    assert.equal(statement.object.definition.interactionType, 'long-fill-in');
    assert.equal(statement.result.response, 'Tying favours tokens that match themselves.');
    assert.equal(statement.result.success, undefined, 'free text is not graded');
    const registration = await page.evaluate(() => document.querySelector('qkv-lesson').progress.registration);
    await opened.reload();
    await page.waitForFunction(() => document.querySelector('qkv-lesson')?.dataset.state === 'ready');
    assert.equal(await page.evaluate(() => document.querySelector('qkv-lesson').progress.registration), registration, 'a reload continues the attempt');
    assert.equal(await page.locator('qkv-lesson textarea[data-challenge]').inputValue(), 'Tying favours tokens that match themselves.');
    assert.equal(await page.evaluate(() => document.querySelector('qkv-lesson').progress.challenge), 'Tying favours tokens that match themselves.');
    assertNoProblems(problems, 'challenge');
  } finally {
    await close();
  }
});

test('progress carries answers, a shown answer, the challenge and edited numbers to a new page through restoreProgress, with no new statements', async () => {
  const first = await openLesson(run.browser, `${run.server.origin}/`);
  let progress;
  try {
    await recordEvents(first.page);
    await check(first.page, 'ch26-parameter-count', ['17']);
    await showAnswer(first.page, 'ch26-divisibility');
    await check(first.page, 'ch26-change-query-only', ['no']);
    await first.page.locator('qkv-lesson input[data-size="tokens"]').fill('3');
    await first.page.waitForFunction(() => window.progressEvents.at(-1)?.state.includes('t=3'));
    progress = await first.page.evaluate(() => document.querySelector('qkv-lesson').progress);
    assert.deepEqual(Object.keys(progress.answers).sort(), ['ch26-change-query-only', 'ch26-divisibility', 'ch26-parameter-count']);
    assert.deepEqual(progress.answers['ch26-parameter-count'], { responses: ['17'], correct: false, counts: false, attempts: 1, revealed: false });
    assert.match(progress.registration, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(progress.answers['ch26-divisibility'].revealed, true);
    assert.deepEqual(await first.page.evaluate(() => window.progressEvents.at(-1)), progress, 'the last progress event is the progress');
  } finally {
    await first.close();
  }
  // A new page: the course hands the saved progress over before the element is ready.
  const second = await openLesson(run.browser, `${run.server.origin}/embed.html`);
  try {
    await second.page.evaluate((saved) => {
      const lesson = document.createElement('qkv-lesson');
      window.statements = [];
      lesson.addEventListener('qkv-lesson-answer', (event) => window.statements.push(event.detail));
      lesson.restoreProgress(JSON.parse(JSON.stringify(saved)));
      document.querySelector('qkv-lesson').replaceWith(lesson);
    }, progress);
    await second.page.waitForFunction(() => document.querySelector('qkv-lesson').dataset.state === 'ready');
    const restored = await second.page.evaluate(() => document.querySelector('qkv-lesson').progress);
    assert.deepEqual(restored, progress);
    assert.equal(await second.page.locator('qkv-lesson form[data-exercise="ch26-change-query-only"]').getAttribute('data-answered'), 'correct');
    assert.equal(await second.page.locator('qkv-lesson input[data-size="tokens"]').inputValue(), '3');
    const sent = await second.page.evaluate(() => window.statements);
    assert.deepEqual(sent.map((statement) => statement.verb.display['en-US']), ['initialized'], 'restored answers are not reported again');
    assert.equal(sent[0].context.registration, progress.registration, 'the restored attempt goes on under its registration');
    // Garbage is ignored, not trusted.
    await second.page.evaluate(() => document.querySelector('qkv-lesson').restoreProgress({ answers: { 'ch26-rank-two': { responses: 'x', attempts: -1 } }, state: 7 }));
    assert.equal(await second.page.evaluate(() => document.querySelector('qkv-lesson').progress.answers['ch26-rank-two']), undefined);
    assertNoProblems(second.problems, 'restore');
  } finally {
    await second.close();
  }
});

// A link's numbers are not the fixture's: the tables beside the first-token question are titled as the opening's
// are then ("on screen"), and show the link's X (review: they said "fixture input" over other numbers).
test('sections=exercises with a link’s numbers: the first-token question’s tables are titled “on screen” and show them', async () => {
  const { page, problems, close } = await openLesson(run.browser, `${run.server.origin}/embed.html?sections=exercises&b=1&t=2&d=3&h=2&x=1,2,3,4,5,6`);
  try {
    const tables = page.locator('qkv-lesson [data-context-for="ch26-first-token"] table');
    const captions = await tables.locator('caption').allInnerTexts();
    assert.deepEqual(
      captions.map((caption) => caption.replace(/\s+/g, ' ').match(/\((.*?)\)/)[1]),
      ['on screen', 'on screen', 'on screen', 'on screen'],
    );
    const x = await page.locator('qkv-lesson [data-context-for="ch26-first-token"] table[data-context-tensor="input"] td').allInnerTexts();
    assert.deepEqual(x.map((text) => Number(text.trim().replace('−', '-'))), [1, 2, 3, 4, 5, 6]);
    assertNoProblems(problems, 'sections=exercises with a link');
  } finally {
    await close();
  }
});
