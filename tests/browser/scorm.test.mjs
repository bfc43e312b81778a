// The SCORM packages (`npm run package`, scripts/package-scorm.mjs) built from the dist/ under test, each unpacked and
// launched under a real SCORM runtime on the LMS side: scorm-again (from node_modules, served as it is) makes
// window.API (1.2) or window.API_1484_11 (2004) on a host page, and the package runs two frames below it (the
// adapter must search the parent chain). A learner answers one question right, one wrong after a wrong first try,
// and one after showing its answer, and edits a number; the CMI data must follow the documented mastery rule; the
// lesson's frame is closed (exit), and a new host with the saved CMI relaunches it: the answers and the edit return.
// Also: a launch without any LMS runs as the plain lesson and says so once.
//   node --test --test-concurrency=1 tests/browser/scorm.test.mjs
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { launchFile } from '../../scripts/package-scorm.mjs';
import { answerExercise, assertNoProblems, cell, dist, launchBrowser, openPage, readFixture, rendered, repo, waitReady, waitRenderedAfter } from './harness.mjs';
import { closeLessonFrame, lessonFrame, readPackages, startLmsServer } from './scorm-host.mjs';

const scormAgain = resolve(repo, 'node_modules/scorm-again/dist');

const versions = {
  '1.2': { apiName: 'API', runtime: 'scorm12.js', constructor: 'Scorm12API', commit: 'LMSCommit', finish: 'LMSFinish' },
  '2004': { apiName: 'API_1484_11', runtime: 'scorm2004.js', constructor: 'Scorm2004API', commit: 'Commit', finish: 'Terminate' },
};

let browser;
let server;
let origin;
let packages; // version → { files: Map(name → bytes), manifest: text }
const savedCmi = {}; // version → the CMI the host loads before the launch (the LMS's stored data), or null

// The LMS's page: scorm-again's API on window, the player frame below it, the package's launch page below that.
function hostHtml(version) {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>LMS ${version}</title>
    <script src="/scorm-again/${versions[version].runtime}"></script>
    <script type="module" src="/host.js"></script>
  </head>
  <body data-version="${version}">
    <h1>LMS</h1>
  </body>
</html>`;
}

// Records what the SCO does: commits, the finish call, and the saved CMI the LMS hands it.
const hostJs = `
const version = document.body.dataset.version;
const names = ${JSON.stringify(versions)}[version];
const saved = await (await fetch('/saved/' + version + '.json')).json();
const api = new window[names.constructor]({ autocommit: false, logLevel: 4 });
if (saved) api.loadFromJSON(saved);
window.lms = { api, commits: 0, finished: 0 };
api.on(names.commit, () => window.lms.commits++);
api.on(names.finish, () => window.lms.finished++);
window[names.apiName] = api;
const player = document.createElement('iframe');
player.title = 'Player';
player.src = '/player/' + version + '.html';
document.body.append(player);
`;

// The LMS's own pages: the host and its script, the stored CMI, scorm-again as published (never copied).
async function lmsRoutes(path) {
  let match;
  if ((match = /^\/host\/(1\.2|2004)\.html$/.exec(path))) return { body: hostHtml(match[1]) };
  if (path === '/host.js') return { body: hostJs };
  if ((match = /^\/saved\/(1\.2|2004)\.json$/.exec(path))) return { body: JSON.stringify(savedCmi[match[1]] ?? null) };
  if ((match = /^\/scorm-again\/([\w.-]+\.js)$/.exec(path))) return { body: await readFile(join(scormAgain, match[1])) };
  return undefined;
}

before(async () => {
  packages = await readPackages();
  let lms;
  [lms, browser] = await Promise.all([startLmsServer(packages, lmsRoutes), launchBrowser()]);
  ({ server, origin } = lms);
});
after(async () => {
  await browser?.close();
  await new Promise((done) => (server ? server.close(() => done()) : done()));
});

// The manifest as a browser's XML parser reads it (no XML library in the project).
async function readManifest(page, text) {
  return page.evaluate((xml) => {
    const doc = new DOMParser().parseFromString(xml, 'application/xml');
    const error = doc.querySelector('parsererror');
    if (error) return { error: error.textContent };
    const root = doc.documentElement;
    const cp = root.namespaceURI;
    const adlcpNs = root.lookupNamespaceURI('adlcp');
    const first = (parent, name, ns = cp) => parent.getElementsByTagNameNS(ns, name)[0];
    const organizations = first(root, 'organizations');
    const organization = [...organizations.getElementsByTagNameNS(cp, 'organization')].find((o) => o.getAttribute('identifier') === organizations.getAttribute('default'));
    const item = first(organization, 'item');
    const resource = [...root.getElementsByTagNameNS(cp, 'resource')].find((r) => r.getAttribute('identifier') === item?.getAttribute('identifierref'));
    return {
      rootName: root.localName,
      cp,
      adlcpNs,
      imsssNs: root.lookupNamespaceURI('imsss'),
      schema: first(root, 'schema')?.textContent,
      schemaversion: first(root, 'schemaversion')?.textContent,
      organizationTitle: first(organization, 'title')?.textContent,
      itemTitle: first(item, 'title')?.textContent,
      masteryscore: first(item, 'masteryscore', adlcpNs)?.textContent,
      minNormalizedMeasure: first(item, 'minNormalizedMeasure', root.lookupNamespaceURI('imsss'))?.textContent,
      resourceType: resource?.getAttribute('type'),
      scormType: resource?.getAttributeNS(adlcpNs, 'scormtype') || resource?.getAttributeNS(adlcpNs, 'scormType'),
      scormTypeAttribute: resource ? [...resource.attributes].find((a) => a.namespaceURI === adlcpNs)?.localName : undefined,
      href: resource?.getAttribute('href'),
      files: resource ? [...resource.getElementsByTagNameNS(cp, 'file')].map((f) => f.getAttribute('href')) : [],
    };
  }, text);
}

const expectedManifest = {
  '1.2': { cp: 'http://www.imsproject.org/xsd/imscp_rootv1p1p2', adlcpNs: 'http://www.adlnet.org/xsd/adlcp_rootv1p2', schemaversion: '1.2', scormTypeAttribute: 'scormtype' },
  '2004': { cp: 'http://www.imsglobal.org/xsd/imscp_v1p1', adlcpNs: 'http://www.adlnet.org/xsd/adlcp_v1p3', schemaversion: '2004 4th Edition', scormTypeAttribute: 'scormType' },
};

for (const version of Object.keys(versions)) {
  test(`SCORM ${version}: the zip's manifest is well-formed, names the launch page and lists every file`, async () => {
    const { page, close } = await openPage(browser);
    try {
      const manifest = await readManifest(page, packages[version].manifest);
      assert.equal(manifest.error, undefined, `imsmanifest.xml does not parse: ${manifest.error}`);
      const expected = expectedManifest[version];
      assert.equal(manifest.rootName, 'manifest');
      assert.equal(manifest.cp, expected.cp);
      assert.equal(manifest.adlcpNs, expected.adlcpNs);
      assert.equal(manifest.schema, 'ADL SCORM');
      assert.equal(manifest.schemaversion, expected.schemaversion);
      assert.ok(manifest.organizationTitle && manifest.itemTitle, 'the organization and its item have titles');
      assert.equal(manifest.resourceType, 'webcontent');
      assert.equal(manifest.scormType, 'sco');
      assert.equal(manifest.scormTypeAttribute, expected.scormTypeAttribute, 'SCORM 1.2 spells it scormtype, 2004 scormType');
      if (version === '1.2') assert.equal(manifest.masteryscore, '80');
      else {
        assert.equal(manifest.imsssNs, 'http://www.imsglobal.org/xsd/imsss');
        assert.equal(manifest.minNormalizedMeasure, '0.8');
      }
      assert.equal(manifest.href, launchFile);
      // The schema files at the root control the manifest and are no files of the SCO (shipping.test.mjs checks them).
      const inZip = [...packages[version].files.keys()].filter((name) => name !== 'imsmanifest.xml' && !/\.(xsd|dtd)$/.test(name)).sort();
      assert.deepEqual([...manifest.files].sort(), inZip, 'the resource lists exactly the files in the zip');
      // The whole built lesson is inside, with the launch page that loads it.
      const distFiles = await listDist();
      for (const file of distFiles) assert.ok(packages[version].files.has(file), `${file} of dist/ is in the zip`);
      const launch = new TextDecoder().decode(packages[version].files.get(launchFile));
      assert.match(launch, /<script type="module" src="\.\/qkv-lesson\.js"><\/script>/);
      assert.match(launch, /<qkv-lesson>/);
      assert.match(launch, new RegExp(`data-scorm-version="${version.replace('.', '\\.')}"`));
    } finally {
      await close();
    }
  });
}

async function listDist() {
  const entries = await readdir(dist, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name).slice(dist.length + 1).split('\\').join('/'));
}

// Picks the option or types the blanks of one exercise and checks it; waits for the LMS commit that follows.
async function answer(page, frame, id, responses) {
  const commits = await page.evaluate(() => window.lms.commits);
  await answerExercise(frame, id, responses);
  await page.waitForFunction((n) => window.lms.commits > n, commits, { timeout: 5000 });
}

const cmiOf = (page) => page.evaluate(() => JSON.parse(JSON.stringify(window.lms.api.renderCMIToJSONObject())).cmi);
const lmsValue = (page, element) => page.evaluate((name) => window.lms.api.getCMIValue(name), element);

// The LMS keeps what the SCO stored and hands it back on the next launch as a resumed attempt.
function forRelaunch(version, cmi) {
  const next = structuredClone(cmi);
  if (version === '1.2') {
    next.core = { ...next.core, entry: next.core.exit === 'suspend' ? 'resume' : '' };
    delete next.core.exit;
    delete next.core.session_time;
  } else {
    next.entry = next.exit === 'suspend' ? 'resume' : '';
    delete next.exit;
    delete next.session_time;
  }
  return next;
}

// The questions used. Right answers: the chapter's (tests/browser/answers.test.mjs reads the same ones); the
// parameter count is the fixture's, and one less is wrong.
const { expected } = await readFixture();
const right = { id: 'ch26-change-query-only', wrongFirst: ['yes'], responses: ['no'] };
const wrong = { id: 'ch26-parameter-count', responses: [String(expected.parameter_count - 1)] };
const revealed = { id: 'ch26-output-shapes', responses: ['[4, 7, 2]'] };
const alsoRight = [
  { id: 'ch26-parameter-count', responses: [String(expected.parameter_count)] },
  { id: 'ch26-output-shapes', responses: ['[4, 7, 2]'] },
  { id: 'ch26-first-token', responses: ['[0, 3]', '[3, 0]', '[3, −3]'] },
  { id: 'ch26-empty-axes', responses: ['[0,2,2]', '2×0×2'] },
  { id: 'qkv04-quiz-3', responses: ['2 of 5'] },
];
// Two lines: scorm-again refuses a raw line break in a 2004 learner_response (its localized-string pattern uses "."),
// so the record holds the text as a JSON string's body (docs/scorm.md), and suspend_data holds it as it is.
const challengeText = 'Tying W_Q to W_K makes each token score itself highest.\nSo the diagonal wins.';
const challengeRecord = JSON.stringify(challengeText).slice(1, -1);

for (const [version, names] of Object.entries(versions)) {
  test(`SCORM ${version}: a round trip under scorm-again: answers → CMI → exit → relaunch → restored`, async () => {
    savedCmi[version] = null;
    const { page, problems, close, navigateFrame } = await openPage(browser);
    try {
      await page.goto(`${origin}/host/${version}.html`);
      const frame = await lessonFrame(page);
      const statements = [];
      const shown = await frame.evaluate(() => document.querySelector('qkv-lesson').exerciseIds);
      const formCount = await frame.locator('qkv-lesson form[data-exercise]').count();
      assert.equal(shown.length, formCount, 'exerciseIds names every exercise form on screen');
      for (const { id } of [right, wrong, revealed]) assert.ok(shown.includes(id), `${id} is shown`);
      // Collect the statements the lesson sends, to compare the interactions with.
      await frame.evaluate(() => {
        window.__statements = [];
        document.querySelector('qkv-lesson').addEventListener('qkv-lesson-answer', (event) => window.__statements.push(event.detail));
      });

      await answer(page, frame, right.id, right.wrongFirst);
      await answer(page, frame, right.id, right.responses);
      await answer(page, frame, wrong.id, wrong.responses);
      const form = frame.locator(`qkv-lesson form[data-exercise="${revealed.id}"]`);
      await form.getByRole('button', { name: 'Show the answer' }).click();
      await answer(page, frame, revealed.id, revealed.responses);
      const before = await rendered(frame);
      await cell(frame, 'input', 0).fill('5');
      await waitRenderedAfter(frame, before);
      await frame.waitForFunction(() => document.querySelector('qkv-lesson').progress.state !== '');
      // The challenge's text: reported (with no verdict) when the learner leaves the box.
      const box = frame.locator('qkv-lesson textarea[data-challenge]');
      const commits = await page.evaluate(() => window.lms.commits);
      await box.fill(challengeText);
      await box.blur();
      await page.waitForFunction((n) => window.lms.commits > n, commits, { timeout: 5000 });
      // The question's statements (the lesson's own, initialized and so on, name no exercise): four checks, the shown
      // answer (a "viewed" statement) and the challenge.
      Object.assign(statements, (await frame.evaluate(() => window.__statements)).filter((statement) => statement.context?.extensions?.['urn:qkv-lesson:exercise']));
      assert.equal(statements.length, 6, statements.map((s) => s.verb.id).join(', '));
      const progress = await frame.evaluate(() => document.querySelector('qkv-lesson').progress);

      // The mastery rule: 1 of the shown exercises right (the revealed one is never right), 3 settled: incomplete,
      // and no score yet (an LMS with a passing score would read any score as passed or failed).
      if (version === '1.2') {
        assert.equal(await lmsValue(page, 'cmi.core.score.raw'), '', 'no score yet');
        assert.equal(await lmsValue(page, 'cmi.core.lesson_status'), 'incomplete');
      } else {
        for (const name of ['raw', 'scaled']) assert.equal(await lmsValue(page, `cmi.score.${name}`), '', `no score.${name} yet`);
        assert.equal(await lmsValue(page, 'cmi.completion_status'), 'incomplete');
        assert.equal(await lmsValue(page, 'cmi.success_status'), 'unknown');
        assert.equal(Number(await lmsValue(page, 'cmi.progress_measure')), Math.round((3 / shown.length) * 1e7) / 1e7);
      }

      // Interactions: one per check and one for the shown answer, in both versions.
      const cmi = await cmiOf(page);
      const interactions = Object.values(cmi.interactions ?? {}).filter((entry) => entry && typeof entry === 'object' && 'id' in entry);
      const definition = (id) => statements.find((s) => s.object.definition?.interactionType && s.context.extensions['urn:qkv-lesson:exercise'] === id).object.definition;
      const pattern = (id) => definition(id).correctResponsesPattern[0];
      // 1.2 choices as single characters: the n-th option the lesson lists is the n-th letter.
      const letter = (id, choice) => 'abcdefghijklmnopqrstuvwxyz0123456789'[definition(id).choices.findIndex((c) => c.id === choice)];
      if (version === '1.2') {
        assert.deepEqual(
          interactions.map((i) => [i.id, i.type, i.student_response, i.result, i.correct_responses?.['0']?.pattern]),
          [
            ['ch26ChangeQueryOnly', 'choice', letter(right.id, 'yes'), 'wrong', letter(right.id, pattern(right.id))],
            ['ch26ChangeQueryOnly', 'choice', letter(right.id, 'no'), 'correct', letter(right.id, pattern(right.id))],
            ['ch26ParameterCount', 'fill-in', '17', 'wrong', pattern(wrong.id)],
            ['ch26OutputShapes', '', '', 'neutral', undefined], // the answer shown
            ['ch26OutputShapes', 'fill-in', '[4, 7, 2]', 'wrong', pattern(revealed.id)],
            ['qkv04Challenge', 'fill-in', challengeRecord, 'neutral', undefined],
          ],
        );
        for (const i of interactions) assert.match(i.time, /^\d\d:\d\d:\d\d$/);
      } else {
        const urn = (id) => `urn:qkv-lesson:exercise:${id}`;
        const choice = (id) => `urn:qkv-lesson:choice:${id}`;
        assert.deepEqual(
          interactions.map((i) => [i.id, i.type, i.learner_response, i.result, i.correct_responses?.['0']?.pattern]),
          [
            [urn(right.id), 'choice', choice('yes'), 'incorrect', choice(pattern(right.id))],
            [urn(right.id), 'choice', choice('no'), 'correct', choice(pattern(right.id))],
            [urn(wrong.id), 'fill-in', '17', 'incorrect', pattern(wrong.id)],
            // A SCORM 2004 fill-in pattern is written without spaces beside commas (scorm-launch.js says why).
            [urn(revealed.id), '', '', 'neutral', undefined], // the answer shown
            [urn(revealed.id), 'fill-in', '[4, 7, 2]', 'incorrect', pattern(revealed.id).replaceAll(', ', ',')],
            [urn('qkv04-challenge'), 'long-fill-in', challengeRecord, 'neutral', undefined],
          ],
        );
        for (const i of interactions) assert.ok(i.description, `${i.id} has the question as its description`);
        assert.match(interactions[3].description, /^Answer shown at the learner's request\. /);
      }
      for (const id of [right.id, wrong.id, revealed.id]) assert.ok(pattern(id), `${id}'s statement has a correct-response pattern`);
      assert.equal(pattern(wrong.id), String(expected.parameter_count));

      // suspend_data is the lesson's progress: the three answers, their attempts and the edit.
      const suspend = JSON.parse(cmi.suspend_data);
      assert.deepEqual(suspend, progress);
      assert.deepEqual(suspend.answers[right.id], { responses: ['no'], correct: true, attempts: 2, revealed: false, counts: true });
      assert.equal(suspend.challenge, challengeText);
      assert.equal(suspend.answers[wrong.id].correct, false);
      assert.equal(suspend.answers[revealed.id].revealed, true);
      assert.notEqual(suspend.state, '');

      // Exit: the LMS's player closes the lesson's frame.
      await closeLessonFrame(page, frame, navigateFrame);
      const closed = await cmiOf(page);
      if (version === '1.2') {
        assert.equal(closed.core.exit, 'suspend');
        assert.match(closed.core.session_time, /^\d{2,4}:\d\d:\d\d(\.\d{1,2})?$/);
      } else {
        assert.equal(closed.exit, 'suspend');
        assert.match(closed.session_time, /^PT(\d+(\.\d+)?S)$/);
      }
      assert.equal(await page.evaluate(() => window.lms.finished), 1, `${names.finish} once`);
      assertNoProblems(problems, `SCORM ${version} first launch`);
      savedCmi[version] = forRelaunch(version, closed);
    } finally {
      await close();
    }

    // Relaunch: a new LMS page with the stored CMI.
    const second = await openPage(browser);
    try {
      await second.page.goto(`${origin}/host/${version}.html`);
      const frame = await lessonFrame(second.page);
      await frame.waitForFunction(() => document.querySelector('qkv-lesson').progress.answers['ch26-parameter-count'], undefined, { timeout: 5000 });
      const form = (id) => frame.locator(`qkv-lesson form[data-exercise="${id}"]`);
      assert.equal(await form(right.id).locator('input[value="no"]').isChecked(), true);
      assert.equal(await form(wrong.id).locator('input[type="text"]').first().inputValue(), wrong.responses[0]);
      assert.equal(await frame.locator('qkv-lesson textarea[data-challenge]').inputValue(), challengeText);
      assert.equal(await form(revealed.id).locator('input[type="text"]').first().inputValue(), '[4, 7, 2]');
      assert.equal(await cell(frame, 'input', 0).inputValue(), '5', 'the edited number is back');
      const restored = await frame.evaluate(() => document.querySelector('qkv-lesson').progress);
      const saved = JSON.parse(savedCmi[version].suspend_data);
      assert.deepEqual(restored.answers, saved.answers);
      assert.equal(restored.state, saved.state);
      assert.equal(restored.challenge, challengeText);
      // Restoring is not answering: no interaction is added, the score stays.
      const cmi = await cmiOf(second.page);
      assert.equal(Object.keys(cmi.interactions ?? {}).filter((k) => /^\d+$/.test(k)).length, 6);
      assert.equal(await lmsValue(second.page, version === '1.2' ? 'cmi.core.score.raw' : 'cmi.score.raw'), '', 'still no score: the attempt is not completed');
      assertNoProblems(second.problems, `SCORM ${version} relaunch`);
    } finally {
      await second.close();
    }
  });
}

// A click on an exercise's "Show the answer", wherever the exercise sits (some wait in folded parts).
const showAnswer = (frame, id) => frame.locator(`qkv-lesson form[data-exercise="${id}"] button.show-answer`).evaluate((button) => button.click());

// The LMS's passing score: 0.25 lies between 5 and 6 right of the 21 shown, and below the default 0.8.
const passing = 0.25;
const passingScores = { '1.2': { student_data: { mastery_score: '25' } }, '2004': { scaled_passing_score: String(passing) } };

for (const version of Object.keys(versions)) {
  test(`SCORM ${version}: completed once every exercise is settled; passed or failed by the LMS's passing score`, async () => {
    savedCmi[version] = passingScores[version];
    const { page, problems, close, navigateFrame } = await openPage(browser);
    try {
      await page.goto(`${origin}/host/${version}.html`);
      const frame = await lessonFrame(page);
      const shown = await frame.evaluate(() => document.querySelector('qkv-lesson').exerciseIds);
      const known = [right, ...alsoRight.slice(0, -1)];
      const last = alsoRight.at(-1);
      for (const { id } of [...known, last]) assert.ok(shown.includes(id), `${id} is shown`);
      // The threshold splits 5 right from 6 right, and the default (0.8) would fail both.
      assert.ok(known.length / shown.length < passing && (known.length + 1) / shown.length >= passing && (known.length + 1) / shown.length < 0.8);
      const value = (element) => lmsValue(page, element);
      const status = async () => (version === '1.2' ? [await value('cmi.core.lesson_status')] : [await value('cmi.completion_status'), await value('cmi.success_status')]);

      for (const { id, responses } of known) await answer(page, frame, id, responses);
      const others = shown.filter((id) => id !== last.id && !known.some((k) => k.id === id));
      for (const id of others) await showAnswer(frame, id);
      await frame.waitForFunction((ids) => ids.every((id) => document.querySelector('qkv-lesson').progress.answers[id]?.revealed), others);
      assert.deepEqual(await status(), version === '1.2' ? ['incomplete'] : ['incomplete', 'unknown'], 'one exercise is still open');

      await answer(page, frame, last.id, ['3']); // wrong: all settled, 5 right
      assert.deepEqual(await status(), version === '1.2' ? ['failed'] : ['completed', 'failed']);
      await answer(page, frame, last.id, last.responses); // right: 6 right
      assert.deepEqual(await status(), version === '1.2' ? ['passed'] : ['completed', 'passed']);
      const percent = String(Math.round(((known.length + 1) / shown.length) * 10000) / 100);
      assert.equal(await value(version === '1.2' ? 'cmi.core.score.raw' : 'cmi.score.raw'), percent);
      if (version === '2004') assert.equal(Number(await value('cmi.progress_measure')), 1);

      // Exit when completed: no suspend (the attempt is over).
      await closeLessonFrame(page, frame, navigateFrame);
      const closed = await cmiOf(page);
      assert.equal(version === '1.2' ? closed.core.exit : closed.exit, version === '1.2' ? '' : 'normal');
      assertNoProblems(problems, `SCORM ${version} completion`);
    } finally {
      await close();
    }
  });
}

test('SCORM 1.2: progress longer than suspend_data\'s 4096 characters leaves out the edited numbers first, then the challenge whole, and says so on the page', async () => {
  savedCmi['1.2'] = null;
  const { page, problems, close } = await openPage(browser);
  try {
    await page.goto(`${origin}/host/1.2.html`);
    const frame = await lessonFrame(page);
    // The largest sizes: thousands of numbers in the link format.
    for (const field of ['batch', 'tokens', 'model_width', 'head_width']) {
      const before = await rendered(frame);
      await frame.locator(`qkv-lesson input[data-size="${field}"]`).fill('8');
      await waitRenderedAfter(frame, before);
    }
    await answer(page, frame, right.id, right.responses);
    await answer(page, frame, wrong.id, wrong.responses);
    const progress = await frame.evaluate(() => document.querySelector('qkv-lesson').progress);
    assert.ok(JSON.stringify(progress).length > 4096, `the progress is ${JSON.stringify(progress).length} characters`);
    const suspend = await lmsValue(page, 'cmi.suspend_data');
    assert.ok(suspend.length <= 4096, `suspend_data is ${suspend.length} characters`);
    assert.deepEqual(JSON.parse(suspend), { ...progress, state: '' });
    const said = problems.filter((problem) => problem.includes('4,096 characters'));
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(said[0], /^console\.warning: qkv-lesson SCORM 1\.2: .*your edited numbers will not be restored/);
    // The learner reads it on the page, in the status line.
    assert.match(await frame.locator('.scorm-status[role="status"]').innerText(), /keeps at most 4,096 characters of your progress \(SCORM 1\.2\), so your edited numbers will not be restored/);
    // A challenge text too long to fit even then is left out whole, never cut, and the learner is told to keep a copy.
    const box = frame.locator('qkv-lesson textarea[data-challenge]');
    const longText = 'Tying W_Q to W_K makes each token score itself highest. '.repeat(80);
    const commits = await page.evaluate(() => window.lms.commits);
    await box.fill(longText);
    await box.blur();
    await page.waitForFunction((n) => window.lms.commits > n, commits, { timeout: 5000 });
    const trimmed = JSON.parse(await lmsValue(page, 'cmi.suspend_data'));
    assert.equal(trimmed.challenge, '', 'the challenge is kept whole or not at all');
    assert.deepEqual(trimmed.answers, progress.answers, 'the answers are kept');
    assert.equal(await frame.locator('.scorm-status[role="status"]').innerText(), 'This learning platform keeps at most 4,096 characters of your progress (SCORM 1.2), so your edited numbers and your answer to the challenge will not be restored when you come back. Keep a copy of your challenge text if you want it later.');
    const warned = problems.filter((problem) => problem.includes('4,096 characters'));
    assertNoProblems(problems.filter((problem) => !warned.includes(problem)), 'SCORM 1.2 over the suspend_data limit');
  } finally {
    await close();
  }
});

test('review mode (the LMS shows an attempt again): the saved answers come back and nothing is recorded', async () => {
  const progress = { answers: { [right.id]: { responses: right.responses, correct: true, attempts: 1, revealed: false } }, challenge: '', state: '' };
  for (const version of Object.keys(versions)) {
    const suspend = JSON.stringify(progress);
    savedCmi[version] =
      version === '1.2'
        ? { core: { lesson_mode: 'review', entry: 'resume', lesson_status: 'incomplete' }, suspend_data: suspend }
        : { mode: 'review', entry: 'resume', completion_status: 'incomplete', suspend_data: suspend };
    const { page, problems, close, navigateFrame } = await openPage(browser);
    try {
      await page.goto(`${origin}/host/${version}.html`);
      const frame = await lessonFrame(page);
      assert.match(await frame.locator('.scorm-note').innerText(), /^Review mode: /);
      const form = frame.locator(`qkv-lesson form[data-exercise="${right.id}"]`);
      await frame.waitForFunction((id) => document.querySelector('qkv-lesson').progress.answers[id], right.id, { timeout: 5000 });
      assert.equal(await form.locator('input[value="no"]').isChecked(), true);
      // A new check is shown but not recorded.
      await form.locator('input[value="yes"]').check();
      await form.getByRole('button', { name: 'Check' }).click();
      await frame.waitForFunction((id) => document.querySelector(`qkv-lesson`).shadowRoot.querySelector(`form[data-exercise="${id}"]`).dataset.answered === 'incorrect', right.id);
      await closeLessonFrame(page, frame, navigateFrame);
      const cmi = await cmiOf(page);
      assert.equal(cmi.suspend_data, suspend);
      assert.equal(await page.evaluate(() => window.lms.commits), 0);
      assert.equal(Object.keys(cmi.interactions ?? {}).filter((k) => /^\d+$/.test(k)).length, 0);
      if (version === '1.2') assert.deepEqual([cmi.core.lesson_status, cmi.core.score.raw, cmi.core.exit], ['incomplete', '', '']);
      else assert.deepEqual([cmi.completion_status, cmi.success_status, cmi.score.raw, cmi.exit], ['incomplete', 'unknown', '', '']);
      assertNoProblems(problems, `SCORM ${version} review`);
    } finally {
      await close();
    }
  }
});

test('without an LMS the package runs as the plain lesson and says so once', async () => {
  for (const version of Object.keys(versions)) {
    const { page, problems, close } = await openPage(browser);
    const infos = [];
    page.on('console', (message) => {
      if (message.type() === 'info' && message.text().includes('SCORM')) infos.push(message.text());
    });
    try {
      await page.goto(`${origin}/pkg/${version}/${launchFile}`);
      await waitReady(page);
      const note = page.locator('.scorm-note');
      assert.equal(await note.isVisible(), true);
      assert.match(await note.innerText(), /No learning platform \(LMS\) was found/);
      assert.equal(infos.length, 1, `one console.info: ${infos.join(' | ')}`);
      assert.match(infos[0], new RegExp(`SCORM ${version.replace('.', '\\.')}: No learning platform`));
      // The lesson works: a check gives its verdict.
      const form = page.locator(`qkv-lesson form[data-exercise="${right.id}"]`);
      await form.locator('input[value="no"]').check();
      await form.getByRole('button', { name: 'Check' }).click();
      await assert.doesNotReject(form.locator('[data-feedback]').filter({ hasText: 'Correct' }).waitFor());
      assert.equal(infos.length, 1);
      assertNoProblems(problems, `SCORM ${version} without an LMS`);
    } finally {
      await close();
    }
  }
});
