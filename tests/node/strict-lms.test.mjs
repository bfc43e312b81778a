// The strict LMS-side API the SCORM browser tests use (tests/browser/strict-lms.mjs) refuses what the
// specifications refuse and accepts what they allow: without this, "zero refused calls" could mean a lenient API.
//   node --test tests/node/strict-lms.test.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createStrictApi, firstLaunch } from '../browser/strict-lms.mjs';

const started = (version, cmi = firstLaunch(version), failures) => {
  const lms = createStrictApi(version, { cmi, failures });
  assert.equal(lms.api[version === '1.2' ? 'LMSInitialize' : 'Initialize'](''), 'true');
  return lms;
};
const codeOf = (lms, version) => lms.api[version === '1.2' ? 'LMSGetLastError' : 'GetLastError']();

test('SCORM 1.2: CMIIdentifier is alphanumeric, choice responses single characters, strings ASCII', () => {
  const lms = started('1.2');
  const set = (element, value) => [lms.api.LMSSetValue(element, value), lms.api.LMSGetLastError()];
  assert.deepEqual(set('cmi.interactions.0.id', 'ch26-first-token'), ['false', '405']);
  assert.deepEqual(set('cmi.interactions.0.id', 'ch26FirstToken'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.0.type', 'choice'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.0.student_response', 'token-1'), ['false', '405']);
  assert.deepEqual(set('cmi.interactions.0.student_response', 'b'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.0.correct_responses.0.pattern', '{a,c}'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.0.correct_responses.0.pattern', '{a,c'), ['false', '405']);
  assert.deepEqual(set('cmi.interactions.2.id', 'skipped'), ['false', '201'], 'indexes grow one at a time');
  assert.deepEqual(set('cmi.interactions.1.id', 'x'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.1.type', 'fill-in'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.1.student_response', '[3, −3]'), ['false', '405'], 'U+2212 is not ASCII');
  assert.deepEqual(set('cmi.interactions.1.student_response', '[3, \\u22123]'), ['true', '0']);
  assert.deepEqual(set('cmi.suspend_data', 'x'.repeat(4097)), ['false', '405']);
  assert.deepEqual(set('cmi.core.score.raw', '100.5'), ['false', '405']);
  assert.deepEqual(set('cmi.core.lesson_status', 'not attempted'), ['false', '405']);
  assert.deepEqual(set('cmi.core.student_name', 'x'), ['false', '403']);
  assert.deepEqual(set('cmi.interactions._count', '1'), ['false', '402']);
  assert.deepEqual(set('cmi.core.session_time', '0000:01:02.5'), ['true', '0']);
  assert.equal(lms.api.LMSGetValue('cmi.interactions.0.id'), '');
  assert.equal(lms.api.LMSGetLastError(), '404', 'interactions are write-only in 1.2');
  assert.equal(lms.api.LMSGetValue('cmi.interactions._count'), '2');
  assert.deepEqual(lms.refused.map((r) => r.code), [405, 405, 405, 201, 405, 405, 405, 405, 403, 402, 404]);
});

test('SCORM 2004: identifiers are URIs, response formats per type, SPMs, order of dependencies', () => {
  const lms = started('2004');
  const set = (element, value) => [lms.api.SetValue(element, value), lms.api.GetLastError()];
  assert.deepEqual(set('cmi.interactions.0.type', 'choice'), ['false', '408'], 'the id first');
  assert.deepEqual(set('cmi.interactions.0.id', 'ch26-first-token'), ['false', '406'], 'not an absolute URI');
  assert.deepEqual(set('cmi.interactions.0.id', 'urn:qkv-lesson:exercise:ch26-first-token'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.0.learner_response', 'urn:x:a'), ['false', '408'], 'the type before a response');
  assert.deepEqual(set('cmi.interactions.0.type', 'choice'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.0.learner_response', 'token-1'), ['false', '406']);
  assert.deepEqual(set('cmi.interactions.0.learner_response', 'urn:qkv-lesson:choice:token-1'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.0.learner_response', 'urn:qkv-lesson:choice:a b'), ['false', '406'], 'no space in a URI');
  assert.deepEqual(set('cmi.interactions.0.learner_response', 'urn:qkv-lesson:choice:a%2'), ['false', '406'], 'a broken percent-escape');
  assert.deepEqual(set('cmi.interactions.0.learner_response', 'urn:qkv-lesson:choice:a[,]urn:qkv-lesson:choice:a'), ['false', '406'], 'a choice set has no repeats');
  assert.deepEqual(set('cmi.interactions.1.id', 'urn:qkv-lesson:exercise:a'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.1.type', 'fill-in'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.1.learner_response', 'x'.repeat(251)), ['false', '406'], 'SPM 250 per fill-in item');
  assert.deepEqual(set('cmi.interactions.1.learner_response', `${'x'.repeat(250)}[,]y`), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.1.correct_responses.0.pattern', '{order_matters=true}[4,7,2]'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.1.timestamp', '2026-12-06T06:40:00.123Z'), ['false', '406'], 'two decimals at most');
  assert.deepEqual(set('cmi.interactions.1.timestamp', '2026-12-06T06:40:00.12Z'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.1.latency', 'PT'), ['false', '406']);
  assert.deepEqual(set('cmi.interactions.1.latency', 'PT1.25S'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.1.weighting', '1e-7'), ['false', '406']);
  assert.deepEqual(set('cmi.interactions.2.id', 'urn:qkv-lesson:exercise:qkv04-challenge'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.2.type', 'long-fill-in'), ['true', '0']);
  assert.deepEqual(set('cmi.interactions.2.learner_response', 'two\nlines'), ['true', '0'], 'a line break is a character like any other');
  assert.deepEqual(set('cmi.score.scaled', '1.5'), ['false', '407']);
  assert.deepEqual(set('cmi.score.scaled', '0.12345678'), ['false', '406'], 'real(10,7)');
  assert.deepEqual(set('cmi.suspend_data', 'x'.repeat(64001)), ['false', '406']);
  assert.equal(lms.api.GetValue('cmi.location'), '');
  assert.equal(lms.api.GetLastError(), '403', 'a value never set is "not initialized"');
  assert.equal(lms.api.Terminate(''), 'true');
  assert.equal(lms.api.SetValue('cmi.location', 'x'), 'false');
  assert.equal(lms.api.GetLastError(), '133');
});

test('SCORM 2004: with a passing score, writing score.scaled makes success_status read passed or failed (RTE 4.2.21)', () => {
  const lms = started('2004');
  assert.equal(lms.api.GetValue('cmi.success_status'), 'unknown');
  assert.equal(lms.api.SetValue('cmi.success_status', 'unknown'), 'true');
  assert.equal(lms.api.SetValue('cmi.score.scaled', '0.1'), 'true');
  assert.equal(lms.api.GetValue('cmi.success_status'), 'failed', 'the SCO said unknown; the LMS evaluates');
  assert.equal(lms.api.SetValue('cmi.score.scaled', '0.8'), 'true');
  assert.equal(lms.api.GetValue('cmi.success_status'), 'passed');
});

test('the failing LMSs: throwing calls, refused SetValue, failed Commit', () => {
  for (const version of ['1.2', '2004']) {
    const prefix = version === '1.2' ? 'LMS' : '';
    const throwing = started(version, undefined, { throws: true });
    assert.throws(() => throwing.api[`${prefix}GetValue`]('cmi.suspend_data'));
    const refusing = started(version, undefined, { refuseSets: true });
    assert.equal(refusing.api[`${prefix}SetValue`]('cmi.suspend_data', 'x'), 'false');
    assert.equal(codeOf(refusing, version), version === '1.2' ? '101' : '351');
    const failing = started(version, undefined, { failCommits: true });
    assert.equal(failing.api[version === '1.2' ? 'LMSCommit' : 'Commit'](''), 'false');
    assert.equal(codeOf(failing, version), version === '1.2' ? '101' : '391');
  }
});

test('SCORM 2004 keeps exactly 250 interactions, the smallest permitted maximum (RTE 4.2.9): the 251st is refused', () => {
  const lms = started('2004');
  for (let n = 0; n < 250; n++) assert.equal(lms.api.SetValue(`cmi.interactions.${n}.id`, `urn:x:${n}`), 'true');
  assert.equal(lms.api.GetValue('cmi.interactions._count'), '250');
  assert.equal(lms.api.SetValue('cmi.interactions.250.id', 'urn:x:250'), 'false');
  assert.equal(lms.api.GetLastError(), '351');
  assert.equal(lms.api.SetValue('cmi.interactions.249.result', 'neutral'), 'true', 'the kept ones can still be written');
});

test('Initialize after Finish/Terminate: refused by the specifications, allowed by an LMS created with reinitialize', () => {
  for (const version of ['1.2', '2004']) {
    const [init, finish, set] = version === '1.2' ? ['LMSInitialize', 'LMSFinish', 'LMSSetValue'] : ['Initialize', 'Terminate', 'SetValue'];
    const strict = started(version);
    assert.equal(strict.api[finish](''), 'true');
    assert.equal(strict.api[init](''), 'false');
    assert.equal(codeOf(strict, version), version === '1.2' ? '301' : '104');
    const lenient = createStrictApi(version, { cmi: firstLaunch(version, { 'cmi.suspend_data': 'kept' }), reinitialize: true });
    assert.equal(lenient.api[init](''), 'true');
    assert.equal(lenient.api[finish](''), 'true');
    assert.equal(lenient.api[set]('cmi.suspend_data', 'x'), 'false', 'nothing is written between the sessions');
    assert.equal(lenient.api[init](''), 'true');
    assert.equal(lenient.api[set]('cmi.suspend_data', 'again'), 'true');
    assert.equal(lenient.store.get('cmi.suspend_data'), 'again');
  }
});
