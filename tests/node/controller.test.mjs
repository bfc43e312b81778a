// The element's two non-DOM parts on their own: the LessonController with the real WebAssembly core, and
// the HostBridge with a stand-in for the page's URL, storage and parent frame.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadCore } from './load.mjs';
import { importLesson } from './typescript.mjs';

let core;
let LessonController;
let HostBridge;
before(async () => {
  core = await loadCore();
  ({ LessonController } = await importLesson('controller'));
  ({ HostBridge } = await importLesson('host-bridge'));
});

describe('LessonController', () => {
  test('an edited drawn problem’s link carries its words: opened, the same words and numbers; words that do not fit are refused', () => {
    const controller = new LessonController(core);
    controller.startFrom('');
    const drawn = controller.drawVariant('48213');
    assert.equal(drawn.ok, true);
    const edited = controller.editCell('input', 0, '7');
    assert.equal(edited.ok, true);
    assert.deepEqual(edited.evidence.token_names, drawn.evidence.token_names, 'an edit keeps the drawn words');
    const opened = new LessonController(core).startFrom(controller.link());
    assert.equal(opened.ok, true);
    assert.deepEqual(opened.notes, []);
    assert.deepEqual(opened.evidence.token_names, drawn.evidence.token_names, 'the same words');
    assert.deepEqual(opened.state.input.cells, edited.state.input.cells, 'the same numbers');
    assert.deepEqual(opened.evidence.scores.text, edited.evidence.scores.text, 'the same scores');
    const misfit = new LessonController(core).startFrom(`${controller.link()}&w=extra`);
    assert.match(misfit.notes[0], /^The link’s numbers were not used \(token_names needs one word per token/);
  });
  test('starts from the fixture, reads edits as typed text, and keeps the last valid state on a rejection', () => {
    const controller = new LessonController(core);
    const start = controller.startFrom('');
    assert.equal(start.ok, true);
    assert.deepEqual(start.evidence.query.text, ['0', '3', '2', '-1']);
    const edited = controller.editCell('input', 0, '2');
    assert.equal(edited.ok, true);
    assert.equal(edited.changed, true);
    const refused = controller.editCell('input', 1, 'abc');
    assert.equal(refused.ok, false);
    assert.deepEqual([refused.error.field, refused.error.index], ['input', 1]);
    assert.equal(controller.state.input.cells[1], '2', 'the last valid state stays');
  });

  test('an attempt key starts from the problem the core derives from it; a link wins over it; a key the core refuses leaves the fixture and says why', () => {
    const controller = new LessonController(core);
    const key = 'scorm:urn:lms:learner1:0123456789abcdef0123456789abcdef';
    const drawn = core.variant({ attempt_key: key });
    assert.equal(drawn.ok, true);
    const own = controller.startFrom('', key);
    assert.equal(own.ok, true);
    assert.equal(controller.variantSeed, drawn.seed.toString(), 'the attempt’s problem, by its seed');
    assert.deepEqual(own.state.input.cells, drawn.state.input.cells);
    const other = controller.startFrom('', `${key}-2`);
    assert.notEqual(controller.variantSeed, drawn.seed.toString(), 'another key, another seed');
    assert.notDeepEqual(other.state, own.state, 'and other numbers');
    controller.startFrom('v=7', key);
    assert.equal(controller.variantSeed, '7', 'a link’s problem wins over the attempt’s');
    const refused = controller.startFrom('', 'k'.repeat(1001));
    assert.equal(refused.ok, true);
    assert.equal(controller.edited, false, 'the fixture');
    assert.match(refused.notes[0], /^This attempt’s own problem could not be drawn \(attempt_key is at most 1000 characters, got 1001\); the lesson shows the frozen fixture instead\.$/);
  });

  test('an edit that reads to the same numbers is no change', () => {
    const controller = new LessonController(core);
    controller.startFrom('');
    const same = controller.editCell('input', 0, '1.0');
    assert.equal(same.ok, true);
    assert.equal(same.changed, false, '"1.0" reads as the 1 already there');
  });

  test('shrinking a size to 0 and back restores every number', () => {
    const controller = new LessonController(core);
    controller.startFrom('');
    assert.deepEqual(controller.editSize('tokens', '0').state.input.cells, []);
    const back = controller.editSize('tokens', '2');
    assert.deepEqual(back.state.input.cells, controller.fixture.input.cells);
    assert.deepEqual(back.evidence.loss, controller.fixtureEvidence.loss);
  });

  test('a link with values it cannot use says so, and a refused link falls back to the fixture in words', () => {
    const controller = new LessonController(core);
    const short = controller.startFrom('?b=1&t=2&d=3&h=2&x=1,2,3');
    assert.equal(short.ok, true);
    assert.ok(short.notes[0].startsWith('The link gave 3 numbers for X, which needs 6 numbers at [1, 2, 3]'), short.notes[0]);
    assert.deepEqual(short.state.input.cells, ['1', '2', '3', '0', '0', '0']);
    const refused = controller.startFrom('?b=99&t=2&d=3&h=2');
    assert.equal(refused.ok, true);
    assert.match(refused.notes[0], /^The link’s numbers were not used \(Batch B: "99" is not read: expected a whole number from 0 to 8\)/);
    assert.deepEqual(refused.state.input.cells, controller.fixture.input.cells);
    // A link with some of the diagram's numbers but not all four sizes is not dropped without a word.
    const partial = controller.startFrom('?b=99');
    assert.deepEqual(partial.notes, ['The link’s numbers were not used (it has no t, d or h, and a link gives all four sizes: b, t, d and h); the lesson shows the frozen fixture instead.']);
    assert.deepEqual(partial.state.input.cells, controller.fixture.input.cells);
    assert.match(controller.startFrom('?x=1,2,3').notes[0], /\(it has no b, t, d or h, and a link/);
    assert.match(controller.startFrom('?b=1&t=2&d=3&wq=1').notes[0], /\(it has no h, and a link/);
    // The self-score settings alone, or another page's parameters, carry no diagram numbers: no note.
    assert.deepEqual(controller.startFrom('?sseed=3&sn=5&sd=8').notes, []);
    assert.deepEqual(controller.startFrom('?unit=3').notes, []);
  });

  test('checks answers with the core against the current self-score settings', () => {
    const controller = new LessonController(core);
    controller.setSelfScore({ seed: '42', tokens: '5', dim: '8' });
    assert.deepEqual(controller.selfScore, { seed: '42', tokens: '5', dim: '8' });
    const listed = controller.exercises().filter((view) => view.id.startsWith('qkv04-'));
    assert.equal(listed.length, 7); // qkv04-quiz-2 is retired (merged into qkv04-exercise-1)
    assert.ok(controller.exercises().some((view) => view.id.startsWith('ch26-')), 'one listing holds the chapter questions too');
    const tied = listed.find((view) => view.id === 'qkv04-exercise-3');
    assert.match(tied.explanation, /^At seed 42 /);
    assert.equal(controller.check('qkv04-exercise-3', tied.answer).correct, true);
  });

  test('knows whether the numbers were edited, and asks the core once per explained cell of the numbers on screen', () => {
    const controller = new LessonController(core);
    assert.equal(controller.edited, false);
    const first = controller.provenance('query', 1);
    assert.equal(first.ok, true);
    assert.equal(controller.provenance('query', 1), first, 'the same cell again: the answer kept, not asked again');
    assert.equal(controller.editCell('input', 0, '0.5').ok, true);
    assert.equal(controller.edited, true);
    assert.notEqual(controller.provenance('query', 1), first, 'new numbers: asked again');
    controller.reset();
    assert.equal(controller.edited, false);
    assert.match(controller.link(), /(^|&)sseed=1(&|$)/);
  });
});

describe('HostBridge', () => {
  // A page stand-in: location, history, localStorage and a parent frame that records messages.
  function page({ search = '', parentOrigin = null, progressKey = '', linkPrefix = '' } = {}) {
    const posted = [];
    const stored = new Map();
    const parent = { postMessage: (message, target) => posted.push([message, target]), location: { origin: 'https://course.example' } };
    globalThis.location = { search, hash: '', origin: 'https://lesson.example' };
    globalThis.history = { state: null, replaceState: (_, __, url) => (globalThis.location.search = url) };
    globalThis.localStorage = { getItem: (key) => stored.get(key) ?? null, setItem: (key, value) => stored.set(key, value) };
    globalThis.window = { parent };
    const bridge = new HostBridge({ linkPrefix: () => linkPrefix, progressKey: () => progressKey, parentOrigin: () => parentOrigin, notKept: () => undefined });
    bridge.claimProgressKey();
    return { bridge, posted, stored };
  }

  test('reads the lesson state and the self-score settings of its own link', () => {
    const { bridge } = page({ search: '?sseed=42&sn=5&sd=8&b=1&t=2&d=3&h=2' });
    assert.equal(bridge.linkState(), 'sseed=42&sn=5&sd=8&b=1&t=2&d=3&h=2');
    const defaults = { seed: '1', tokens: '5', dim: '8' };
    assert.deepEqual(bridge.linkSelfScore(defaults), { seed: '42', tokens: '5', dim: '8' });
  });

  test('a link that names only the seed gets the core\'s other defaults', () => {
    const { bridge } = page({ search: '?sseed=42' });
    assert.deepEqual(bridge.linkSelfScore({ seed: '1', tokens: '7', dim: '9' }), { seed: '42', tokens: '7', dim: '9' });
  });

  test('keeps progress under the key and gives back only what it can read', () => {
    const { bridge, stored } = page({ progressKey: 'course-1' });
    bridge.saveProgress('ch26-parameter-count', { responses: ['1.8e1'], correct: true, attempts: 2, revealed: false });
    assert.deepEqual(bridge.savedProgress('ch26-parameter-count'), { responses: ['1.8e1'], attempts: 2 });
    stored.set('course-1:ch26-history', '{not json');
    assert.equal(bridge.savedProgress('ch26-history'), null);
    // A save from before attempts were kept still reads; shapes the lesson never writes do not.
    stored.set('course-1:ch26-rank-two', JSON.stringify({ responses: ['explicit-axes'], correct: true }));
    assert.deepEqual(bridge.savedProgress('ch26-rank-two'), { responses: ['explicit-axes'] });
    for (const bad of [{ responses: 'x' }, { responses: [1] }, [], { responses: ['a'], attempts: -1, revealed: 'yes' }]) {
      stored.set('course-1:ch26-divisibility', JSON.stringify(bad));
      const read = bridge.savedProgress('ch26-divisibility');
      assert.ok(read === null || (read.attempts === undefined && read.revealed === undefined), JSON.stringify(bad));
    }
  });

  test('posts answers only to the origin parent-origin names', () => {
    const named = page({ parentOrigin: 'https://course.example/' });
    named.bridge.postAnswer({ id: 'x' });
    assert.deepEqual(named.posted, [[{ type: 'qkv-lesson:answer', statement: { id: 'x' } }, 'https://course.example']]);
    const unnamed = page({});
    unnamed.bridge.postAnswer({ id: 'x' });
    assert.deepEqual(unnamed.posted, [], 'a parent on another origin gets no answers without parent-origin');
  });

  test('writes the URL once typing pauses, and cancel stops a pending write', async () => {
    const { bridge } = page();
    const controller = new LessonController(core);
    let written = 0;
    bridge.scheduleUrl((cells) => controller.link(cells), () => written++);
    bridge.cancel();
    await new Promise((done) => setTimeout(done, 200));
    assert.equal(written, 0);
    controller.setSelfScore({ seed: '7', tokens: '5', dim: '8' });
    bridge.scheduleUrl((cells) => controller.link(cells), () => written++);
    await new Promise((done) => setTimeout(done, 200));
    assert.equal(written, 1);
    assert.match(globalThis.location.search, /^\?sseed=7&sn=5&sd=8&b=1&t=2&d=3&h=2&x=1%2C2%2C-1/);
  });

  test('on a course page (prefix qkv-), the page’s own t, d, h, x and b are neither read nor changed', async () => {
    const own = '?t=120&page=3&d=x&h=1&x=2&b=on';
    const { bridge } = page({ search: own, linkPrefix: 'qkv-' });
    assert.equal(bridge.linkState(), null, 'the page’s own parameters are no link of the lesson’s');
    assert.equal(bridge.linkSelfScore({ seed: '1', tokens: '5', dim: '8' }), null);
    const controller = new LessonController(core);
    controller.setSelfScore({ seed: '7', tokens: '5', dim: '8' });
    await new Promise((done) => bridge.scheduleUrl((cells) => controller.link(cells), done));
    assert.match(globalThis.location.search, /^\?t=120&page=3&d=x&h=1&x=2&b=on&qkv-sseed=7&qkv-sn=5&qkv-sd=8&qkv-b=1&qkv-t=2&qkv-d=3&qkv-h=2&qkv-x=1%2C2%2C-1/);
    assert.equal(bridge.linkState().split('&').slice(0, 7).join('&'), 'sseed=7&sn=5&sd=8&b=1&t=2&d=3&h=2', 'what it wrote reads back, in bare names');
  });
});
