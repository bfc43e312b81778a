// The cmi5 course package (issue 40, item 5) launched by a cmi5 LMS stand-in written from the specification
// (tests/browser/cmi5-lms.mjs): a graded run that fails, resumed by a relaunch in the same registration; a run that
// passes; and the stand-in's own refusals (a second fetch, passed before initialized, a cmi5 category on an
// allowed statement), so that "no violation" means something.
//   node --test --test-concurrency=1 tests/browser/cmi5.test.mjs
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { unzipSync } from 'fflate';
import { makeCmi5Package } from '../../scripts/package-cmi5.mjs';
import { startCmi5Lms, uuidPattern } from './cmi5-lms.mjs';
import { problemShown } from './graded-problem.mjs';
import { answerExercise, assertNoProblems, dist, eventually, launchBrowser, openPage, readFixture, waitReady } from './harness.mjs';

const verb = (word) => `http://adlnet.gov/expapi/verbs/${word}`;
const cmi5Category = 'https://w3id.org/xapi/cmi5/context/categories/cmi5';
const sessionIdExtension = 'https://w3id.org/xapi/cmi5/context/extensions/sessionid';

let browser;
let lms;
let files; // the package's files, for a stand-in serving it with the launch page set for graded practice
before(async () => {
  const work = await mkdtemp(join(tmpdir(), 'qkv-cmi5-'));
  try {
    files = new Map(Object.entries(unzipSync(await readFile(await makeCmi5Package({ dist, out: work })))));
    [lms, browser] = await Promise.all([startCmi5Lms(files), launchBrowser()]);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});
after(async () => {
  await browser?.close();
  await lms?.close();
});

const { expected } = await readFixture();
const challenge = 'Tying W_Q to W_K makes each token score itself highest.';
const rightAnswers = [
  ['ch26-parameter-count', [String(expected.parameter_count)]],
  ['ch26-change-query-only', ['no']],
];
// The AU's statements of one session, in the order the LRS kept them.
const sessionStatements = (registration, session, on = lms) => (on.statements.get(registration) ?? []).filter((s) => s.by === 'au' && s.context.extensions[sessionIdExtension] === session.id);
const words = (list) => list.map((s) => s.verb.id.replace(/^.*\//, ''));
const assertNoViolations = (context) => assert.deepEqual(lms.violations, [], `${context}: the cmi5 stand-in recorded:\n${lms.violations.map((v) => `  ${v.rule}: ${v.detail}`).join('\n')}`);

// Launches the AU, waits for "initialized" and the lesson; returns the page and the session.
async function launchAu(options, on = lms) {
  const { url, session } = on.launch(options);
  const opened = await openPage(browser);
  await opened.goto(url);
  await waitReady(opened.page);
  await eventually(() => sessionStatements(options.registration, session, on).length >= 1, { message: 'initialized' });
  return { ...opened, session };
}

// The learner leaves: pagehide sends "terminated".
async function leave(opened, registration, on = lms) {
  await opened.goto('about:blank');
  await eventually(() => words(sessionStatements(registration, opened.session, on)).includes('terminated'), { message: 'terminated' });
  await opened.close();
}

async function showRemainingAnswers(page) {
  const ids = await page.evaluate(() => document.querySelector('qkv-lesson').exerciseIds);
  const progress = await page.evaluate(() => document.querySelector('qkv-lesson').progress);
  const unsettled = ids.filter((id) => !(progress.answers[id]?.attempts > 0 || progress.answers[id]?.revealed));
  for (const id of unsettled) await page.locator(`qkv-lesson form[data-exercise="${id}"] button.show-answer`).evaluate((button) => button.click());
  return ids.length;
}

test('a graded run: initialized, the answers, terminated; a relaunch in the registration resumes, completes and fails against masteryScore 0.8; a third says neither again', async () => {
  const registration = randomUUID();
  assert.equal(lms.course.masteryScore, 0.8, "cmi5.xml's masteryScore");
  assert.equal(lms.course.moveOn, 'CompletedAndPassed');
  const first = await launchAu({ registration });
  await answerExercise(first.page, ...rightAnswers[0]);
  await eventually(() => words(sessionStatements(registration, first.session)).includes('answered'), { message: 'answered' });
  // Typed just before leaving: kept by the save on pagehide.
  await first.page.locator('qkv-lesson textarea[data-challenge]').fill(challenge);
  assertNoProblems(first.problems, 'launch 1');
  await leave(first, registration);
  const one = sessionStatements(registration, first.session);
  assert.deepEqual(words(one), ['initialized', 'answered', 'terminated']);
  const [initialized, answered, terminated] = one;
  assert.deepEqual(initialized.context.contextActivities.category, [{ id: cmi5Category }]);
  assert.equal(answered.context.contextActivities.category, undefined, 'a cmi5 allowed statement has no cmi5 category');
  assert.equal(answered.object.id, `${lms.course.id}/exercise/ch26-parameter-count`, 'the questions are named under the AU');
  assert.equal(answered.result.success, true);
  assert.match(terminated.result.duration, /^PT\d+(\.\d+)?S$/);
  for (const statement of one) assert.match(statement.id, uuidPattern);

  const second = await launchAu({ registration });
  assert.notEqual(second.session.id, first.session.id, 'a new session');
  await second.page.waitForFunction(() => document.querySelector('qkv-lesson').progress.answers['ch26-parameter-count']?.counts === true);
  assert.equal(await second.page.locator('qkv-lesson textarea[data-challenge]').inputValue(), challenge, 'the challenge text typed before leaving');
  const shown = await showRemainingAnswers(second.page);
  await eventually(() => words(sessionStatements(registration, second.session)).includes('failed'), { message: 'failed' });
  await leave(second, registration);
  const two = sessionStatements(registration, second.session);
  assert.deepEqual(words(two).filter((word) => word !== 'viewed'), ['initialized', 'completed', 'failed', 'terminated'], 'the restored answer is not sent again');
  const failed = two.find((s) => s.verb.id === verb('failed'));
  assert.deepEqual(failed.result.score, { scaled: 1 / shown, raw: 1, min: 0, max: shown }, "the core's score: one right of the questions shown, shown answers not counted");
  assert.equal(failed.context.extensions['https://w3id.org/xapi/cmi5/context/extensions/masteryscore'], 0.8);
  assertNoProblems(second.problems, 'launch 2');

  // A third launch changes nothing: the answers come back, and completed or failed is not said again.
  const third = await launchAu({ registration });
  await third.page.waitForFunction((n) => Object.keys(document.querySelector('qkv-lesson').progress.answers).length === n, shown);
  await leave(third, registration);
  assert.deepEqual(words(sessionStatements(registration, third.session)), ['initialized', 'terminated']);
  assertNoProblems(third.problems, 'launch 3');
  assertNoViolations('fail run');
});

// The last answers shown make "completed" and "failed", and the progress's save is queued behind them (one request
// to the LRS at a time). The learner leaves while the LRS has not yet answered "failed": the queued save dies with the
// page, so the progress must go with pagehide's keepalive request.
test('leaving while the LRS has not answered "failed": the progress still reaches it, and a relaunch restores every answer shown', async () => {
  const registration = randomUUID();
  const first = await launchAu({ registration });
  const release = lms.holdRepliesTo(verb('failed'));
  let shown;
  try {
    shown = await showRemainingAnswers(first.page);
    await eventually(() => words(sessionStatements(registration, first.session)).includes('failed'), { message: 'failed' });
    await leave(first, registration);
  } finally {
    release();
  }
  // (The page's console warning that a request had not finished comes from pagehide, which the harness does not hear.)
  assertNoProblems(first.problems, 'launch 1');
  const again = await launchAu({ registration });
  const restored = () => again.page.evaluate(() => Object.keys(document.querySelector('qkv-lesson').progress.answers).length);
  await eventually(async () => (await restored()) === shown, { message: `every answer shown restored (${shown})` }).catch(async (error) => {
    throw new Error(`${error.message}; restored ${await restored()}`);
  });
  await leave(again, registration);
  assertNoProblems(again.problems, 'launch 2');
});

test('a run that passes: two right answers against a masteryScore of 1.5 / questions shown; completed and passed once', async () => {
  const registration = randomUUID();
  const probe = await launchAu({ registration: randomUUID(), launchMode: 'Browse' });
  const count = await probe.page.evaluate(() => document.querySelector('qkv-lesson').exerciseIds.length);
  await leave(probe, probe.session.registration);
  const masteryScore = 1.5 / count;
  const run = await launchAu({ registration, masteryScore });
  for (const [id, responses] of rightAnswers) await answerExercise(run.page, id, responses);
  await showRemainingAnswers(run.page);
  await eventually(() => words(sessionStatements(registration, run.session)).includes('passed'), { message: 'passed' });
  await leave(run, registration);
  const statements = sessionStatements(registration, run.session);
  assert.deepEqual(words(statements).filter((word) => !['answered', 'viewed'].includes(word)), ['initialized', 'completed', 'passed', 'terminated']);
  assert.deepEqual(statements.find((s) => s.verb.id === verb('passed')).result.score, { scaled: 2 / count, raw: 2, min: 0, max: count });
  assertNoProblems(run.problems, 'pass run');
  assertNoViolations('pass run');
});

test('the stand-in refuses: a second POST to the fetch URL, passed before initialized, a cmi5 category on an allowed statement', async () => {
  const registration = randomUUID();
  const { session, fetchUrl } = lms.launch({ registration });
  const token = (await (await fetch(fetchUrl, { method: 'POST' })).json())['auth-token'];
  assert.equal(token, session.token);
  const again = await fetch(fetchUrl, { method: 'POST' });
  assert.equal(again.status, 200);
  assert.equal((await again.json())['error-code'], '1');
  const post = (statement) => fetch(`${lms.origin}/lrs/statements`, { method: 'POST', headers: { Authorization: `Basic ${token}`, 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' }, body: JSON.stringify(statement) });
  const context = (categories) => ({ ...session.contextTemplate, registration, contextActivities: { ...session.contextTemplate.contextActivities, category: categories } });
  const passed = { id: randomUUID(), actor: session.actor, verb: { id: verb('passed') }, object: { objectType: 'Activity', id: lms.course.id }, result: { success: true, duration: 'PT1S', score: { scaled: 1 } }, context: { ...context([{ id: cmi5Category }, { id: 'https://w3id.org/xapi/cmi5/context/categories/moveon' }]), extensions: { ...session.contextTemplate.extensions, 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore': 0.8 } } };
  assert.equal((await post(passed)).status, 400);
  const initialized = { id: randomUUID(), actor: session.actor, verb: { id: verb('initialized') }, object: { objectType: 'Activity', id: lms.course.id }, context: context([{ id: cmi5Category }]) };
  assert.equal((await post(initialized)).status, 200);
  const allowed = { id: randomUUID(), actor: session.actor, verb: { id: 'http://adlnet.gov/expapi/verbs/answered' }, object: { objectType: 'Activity', id: `${lms.course.id}/exercise/x` }, context: context([{ id: cmi5Category }]) };
  assert.equal((await post(allowed)).status, 400);
  const rules = lms.violations.map((v) => v.rule);
  assert.ok(rules.includes('one POST to the fetch URL per launch (§8.2.3.1)'), rules.join('; '));
  assert.ok(rules.includes('initialized is the first statement of a session (§9.3.2)'), rules.join('; '));
  assert.ok(rules.includes('a cmi5 defined statement is one of the cmi5 verbs about the AU (§9.3, §9.4)'), rules.join('; '));
  lms.violations.length = 0;
});

test('a reload of the launch URL (its fetch URL already used) tells the learner their answers are not saved; a page opened without a launch says nothing is recorded', async () => {
  const registration = randomUUID();
  const { url, fetchUrl } = lms.launch({ registration });
  await fetch(fetchUrl, { method: 'POST' }); // the first load took the token
  const reloaded = await openPage(browser);
  try {
    await reloaded.goto(url);
    await waitReady(reloaded.page);
    await reloaded.page.waitForFunction(() => document.querySelector('.scorm-alert').textContent !== '');
    assert.match(await reloaded.page.locator('.scorm-alert').innerText(), /^Your answers are not being saved: this launch of the lesson was already used .* reopen the lesson from your course\./);
    assert.equal((lms.statements.get(registration) ?? []).filter((s) => s.by === 'au').length, 0, 'nothing reached the LRS');
  } finally {
    await reloaded.close();
  }
  assert.ok(lms.violations.some((v) => v.rule === 'one POST to the fetch URL per launch (§8.2.3.1)'));
  lms.violations.length = 0;
  const alone = await openPage(browser);
  try {
    await alone.goto(`${lms.origin}/au/${lms.course.url}`);
    await waitReady(alone.page);
    assert.match(await alone.page.locator('.scorm-note').innerText(), /No cmi5 launch was found/);
    assert.equal(await alone.page.locator('.scorm-alert').innerText(), '');
    assertNoProblems(alone.problems, 'opened on its own');
  } finally {
    await alone.close();
  }
  assert.deepEqual(lms.violations, []);
});

test('graded practice (data-attempt-problem="own"): two registrations see different numbers, a relaunch in one sees the same, and each answer carries the problem\'s seed', async () => {
  const launchPage = files.get('cmi5.html');
  const own = new TextDecoder().decode(launchPage).replace('data-attempt-problem="shared"', 'data-attempt-problem="own"');
  assert.notEqual(own, new TextDecoder().decode(launchPage), 'cmi5.html has data-attempt-problem="shared" for an author to change');
  const ownLms = await startCmi5Lms(new Map([...files, ['cmi5.html', new TextEncoder().encode(own)]]));
  try {
    const registration = randomUUID();
    const first = await launchAu({ registration }, ownLms);
    const shown = await problemShown(first.page);
    assert.match(shown.seed ?? '', /^\d+$/, 'the registration works on a drawn problem, its seed shown');
    await answerExercise(first.page, 'ch26-first-token', ['[0, 0]', '[0, 0]', '[0, 0]']);
    await eventually(() => words(sessionStatements(registration, first.session, ownLms)).includes('answered'), { message: 'answered' });
    const answered = sessionStatements(registration, first.session, ownLms).find((s) => s.verb.id === verb('answered'));
    assert.equal(answered.context.extensions['urn:qkv-lesson:problem-seed'], shown.seed, 'the answer says which problem it was about');
    assertNoProblems(first.problems, 'registration 1');
    await leave(first, registration, ownLms);

    const again = await launchAu({ registration }, ownLms);
    assert.deepEqual(await problemShown(again.page), shown, 'a relaunch in the registration sees the same numbers and question');
    assertNoProblems(again.problems, 'registration 1, relaunched');
    await leave(again, registration, ownLms);

    const other = randomUUID();
    const second = await launchAu({ registration: other }, ownLms);
    const otherShown = await problemShown(second.page);
    assert.match(otherShown.seed ?? '', /^\d+$/);
    assert.notEqual(otherShown.seed, shown.seed, 'another registration draws another seed');
    assert.notDeepEqual([otherShown.x, otherShown.weights], [shown.x, shown.weights], 'and works on other numbers');
    assertNoProblems(second.problems, 'registration 2');
    await leave(second, other, ownLms);
    assert.deepEqual(ownLms.violations, [], `the cmi5 stand-in recorded:\n${ownLms.violations.map((v) => `  ${v.rule}: ${v.detail}`).join('\n')}`);
  } finally {
    await ownLms.close();
  }
});

test('the masteryScore is the pass mark of the questions data-graded-questions names (cmi5 9.6.3.2): 1 of 2 passes at 0.5, fails at 0.6, and the results view shows it', async () => {
  const launchPage = new TextDecoder().decode(files.get('cmi5.html'));
  const graded = launchPage.replace('<html lang="en"', '<html lang="en" data-graded-questions="ch26-parameter-count ch26-output-shapes"');
  assert.notEqual(graded, launchPage);
  const gradedLms = await startCmi5Lms(new Map([...files, ['cmi5.html', new TextEncoder().encode(graded)]]));
  try {
    for (const [masteryScore, verdict, mark] of [[0.5, 'passed', 'Pass mark: 50 %.'], [0.6, 'failed', 'Pass mark: 60 %.']]) {
      const registration = randomUUID();
      const run = await launchAu({ registration, masteryScore }, gradedLms);
      await answerExercise(run.page, 'ch26-parameter-count', [String(expected.parameter_count)]);
      await run.page.locator('qkv-lesson form[data-exercise="ch26-output-shapes"] button.show-answer').evaluate((button) => button.click());
      await eventually(() => words(sessionStatements(registration, run.session, gradedLms)).includes(verdict), { message: verdict });
      const summary = await run.page.locator('qkv-lesson [data-results-summary]').textContent();
      assert.equal(summary, `Score: 50 % (1 of 2 right). ${mark}`);
      await leave(run, registration, gradedLms);
      const statements = sessionStatements(registration, run.session, gradedLms);
      assert.deepEqual(words(statements).filter((word) => !['answered', 'viewed'].includes(word)), ['initialized', 'completed', verdict, 'terminated'], `masteryScore ${masteryScore}`);
      assert.deepEqual(statements.find((s) => s.verb.id === verb(verdict)).result.score, { scaled: 0.5, raw: 1, min: 0, max: 2 });
      assertNoProblems(run.problems, `masteryScore ${masteryScore}`);
    }
    assert.deepEqual(gradedLms.violations, [], gradedLms.violations.map((v) => `${v.rule}: ${v.detail}`).join('\n'));
  } finally {
    await gradedLms.close();
  }
});
