// The page's boundary with the core (web/src/lesson/core-boundary.ts) on the page's WebAssembly module, and the
// limits in front of it: issue 18, item 12 (lone surrogates), traps, and the longest link or state attribute the
// lesson reads. Built-ins a host page changes are not defended against here (docs/threat-model.md).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadCore } from './load.mjs';
import { importLesson } from './typescript.mjs';

let raw; // the module as Emscripten made it
let core; // the same module through the page's boundary
let guardCore;
let guardCalls;
let stoppedBy;
let wellFormed;
let LessonController;
let HostBridge;
let url;
before(async () => {
  raw = await loadCore();
  ({ guardCore, guardCalls, stoppedBy, wellFormed } = await importLesson('core-boundary'));
  ({ LessonController } = await importLesson('controller'));
  ({ HostBridge } = await importLesson('host-bridge'));
  url = await importLesson('url-state');
  core = guardCore(raw);
});

const selfScore = { seed: '1', tokens: '5', dim: '8' };
const withCell = (state, text) => ({ ...state, input: { ...state.input, cells: [text, ...state.input.cells.slice(1)] } });

describe('strings reach the core well-formed (item 12)', () => {
  const lone = '\ud800' + '5';

  test('the old repro: through the bare module a lone high surrogate takes the next character with it', () => {
    const refused = raw.evaluate({ state: withCell(raw.fixture().state, lone) });
    assert.equal(refused.ok, false);
    assert.ok(refused.error.message.startsWith('"\u{10035}" is not read'), refused.error.message); // one character, not two
  });

  test('a lone surrogate in a cell becomes U+FFFD: the core refuses "\ufffd5", naming it, and gives the cell back as read', () => {
    const refused = core.evaluate({ state: withCell(core.fixture().state, lone) });
    assert.equal(refused.ok, false);
    assert.deepEqual([refused.error.kind, refused.error.field, refused.error.index], ['number', 'input', 0]);
    assert.ok(refused.error.message.startsWith('"\ufffd5" is not read: expected a number'), refused.error.message);
    assert.equal(refused.state.input.cells[0], '\ufffd5');
    const low = core.evaluate({ state: withCell(core.fixture().state, '5\udc00') });
    assert.ok(low.error.message.startsWith('"5\ufffd" is not read'), low.error.message);
  });

  test('a well-formed pair crosses intact', () => {
    const refused = core.evaluate({ state: withCell(core.fixture().state, '\ud83d\ude005') });
    assert.ok(refused.error.message.startsWith('"\u{1F600}5" is not read'), refused.error.message);
  });

  test('answers and self-score settings cross the same boundary', () => {
    const answer = core.checkAnswer({ id: 'ch26-parameter-count', responses: [lone], self_score: selfScore });
    assert.equal(answer.ok, false);
    assert.ok(answer.error.message.startsWith('"\ufffd5" is not read'), answer.error.message);
    const listed = core.exercises({ ...selfScore, seed: lone });
    assert.ok(listed.error.message.startsWith('The seed: "\ufffd5" is not read'), listed.error.message);
  });

  test('a lone surrogate typed into a cell, or in a state attribute, is refused in words; the fixture or last numbers stay', () => {
    const controller = new LessonController(core);
    const start = controller.startFrom(`b=1&t=2&d=3&h=2&x=${lone}`);
    assert.equal(start.ok, true);
    assert.ok(start.notes[0].startsWith('The link’s numbers were not used (X: "\ufffd5" is not read') || start.notes[0].includes('"\ufffd5" is not read'), start.notes[0]);
    assert.deepEqual(start.state.input.cells, controller.fixture.input.cells);
    const typed = controller.editCell('input', 2, lone);
    assert.equal(typed.ok, false);
    assert.ok(typed.error.message.startsWith('"\ufffd5" is not read'), typed.error.message);
    assert.deepEqual(controller.state.input.cells, controller.fixture.input.cells);
  });

  test('where the engine lacks String.prototype.toWellFormed, lone surrogates are replaced all the same', () => {
    const { toWellFormed } = String.prototype;
    delete String.prototype.toWellFormed;
    try {
      assert.equal(wellFormed('\ud8005'), '\ufffd5');
      assert.equal(wellFormed('a\udc00\ud800'), 'a\ufffd\ufffd');
      assert.equal(wellFormed('\ud83d\ude00'), '\ud83d\ude00');
      assert.equal(wellFormed('\ude00\ud83d'), '\ufffd\ufffd');
    } finally {
      String.prototype.toWellFormed = toWellFormed;
    }
  });
});

describe('the longest link and state the lesson reads', () => {
  test('past 131,072 characters a link is refused before it is read, in words that name the limit', () => {
    const controller = new LessonController(core);
    const long = `b=1&t=2&d=3&h=2&x=${'1,'.repeat(70_000)}1`;
    const start = controller.startFrom(long);
    assert.equal(start.ok, true);
    assert.deepEqual(start.notes, [`The link’s numbers were not used (it is ${(long.length).toLocaleString('en-US')} characters long, and the lesson reads links of at most 131,072); the lesson shows the frozen fixture instead.`]);
    assert.deepEqual(start.state.input.cells, controller.fixture.input.cells);
  });

  test('a link of the limit is read: the largest sizes with a 17-digit decimal in each of the 2,240 cells fit', () => {
    const controller = new LessonController(core);
    const cell = '-1.2345678901234567e-123';
    const counts = { x: 512, wq: 64, wk: 64, wv: 64, uq: 512, uk: 512, uv: 512 };
    const link = `sseed=4294967295&sn=512&sd=512&b=8&t=8&d=8&h=8&${Object.entries(counts).map(([name, count]) => `${name}=${Array(count).fill(cell).join('%2C')}`).join('&')}`;
    assert.ok(link.length <= url.linkLimit, `${link.length} characters`);
    const start = controller.startFrom(link);
    assert.deepEqual(start.notes, []);
    assert.equal(start.state.value_upstream.cells[511], cell);
  });
});

describe('HostBridge: the link after a jump to an anchor', () => {
  function page(search, hash) {
    const listeners = new Map();
    globalThis.location = { pathname: '/', search, hash };
    globalThis.history = {
      state: null,
      replaceState: (_, __, target) => {
        const next = new URL(target, `https://lesson.example/${location.search}${location.hash}`);
        Object.assign(globalThis.location, { search: next.search, hash: next.hash });
      },
    };
    globalThis.addEventListener = (type, listener) => listeners.set(type, listener);
    globalThis.removeEventListener = (type) => listeners.delete(type);
    return { listeners };
  }

  test('numbers kept in the fragment are written again beside the new anchor; the listener goes with cancel', async () => {
    const { listeners } = page('?unit=3', '');
    const bridge = new HostBridge({ linkPrefix: () => '', progressKey: () => '', parentOrigin: () => null });
    const controller = new LessonController(core);
    for (const size of ['batch', 'tokens', 'model_width', 'head_width']) controller.editSize(size, '8');
    const large = controller.state;
    assert.deepEqual([large.batch, large.tokens, large.model_width, large.head_width], ['8', '8', '8', '8']);
    controller.setSelfScore(selfScore);
    await new Promise((done) => bridge.scheduleUrl((cells) => controller.link(cells), done));
    const written = location.hash;
    assert.match(written, /^#\?x=/);
    location.hash = '#self-score'; // the host page's table of contents
    listeners.get('hashchange')();
    assert.equal(location.hash, `#self-score${written.slice(1)}`);
    assert.deepEqual(url.stateFromSearch(new HostBridge({ linkPrefix: () => '' }).linkState()).input.cells, large.input.cells);
    location.hash = '#?x=1'; // a fragment with numbers of its own is left as it is
    listeners.get('hashchange')();
    assert.equal(location.hash, '#?x=1');
    bridge.cancel();
    assert.equal(listeners.has('hashchange'), false);
  });
});

// A stand-in module: what a trap looks like to the boundary is a WebAssembly.RuntimeError thrown out of a call.
describe('a trap stops the instance, in a nested call too', () => {
  const trap = () => {
    throw new WebAssembly.RuntimeError('Out of bounds memory access');
  };

  test('a trap in a call made from inside another (a progress callback) stops the outer call and every later one', () => {
    const entered = [];
    const module = {
      findSeedWithProgress(_request, onProgress) {
        entered.push('search');
        onProgress(1); // the inner call traps and is thrown back through here, as through the core's frames
        entered.push('search went on');
        return { ok: true, value: { seed: 7 } };
      },
      evaluate() {
        entered.push('evaluate');
        trap();
      },
    };
    const guarded = guardCalls(module, ['findSeedWithProgress', 'evaluate']);
    let inner;
    const outer = guarded.findSeedWithProgress({}, () => {
      inner = guarded.evaluate({});
    });
    assert.equal(inner, undefined, 'the inner call does not return to a callback whose caller has stopped');
    assert.equal(outer.ok, false);
    assert.equal(outer.error.kind, 'internal');
    assert.equal(outer.error.message, 'the lesson’s engine stopped (Out of bounds memory access); reload the page to go on');
    assert.deepEqual(entered, ['search', 'evaluate']);
    assert.equal(stoppedBy(guarded)?.message, 'Out of bounds memory access');
    const later = guarded.evaluate({});
    assert.equal(later.ok, false);
    assert.equal(later.error.message, outer.error.message);
    assert.deepEqual(entered, ['search', 'evaluate'], 'a later call does not enter the stopped instance');
  });

  test('an outer call that swallows the inner trap still answers that the engine stopped', () => {
    const module = {
      findSeedWithProgress(_request, onProgress) {
        try {
          onProgress(1);
        } catch {
          // a catch-all in the core would land here
        }
        return { ok: true, value: { seed: 7 } };
      },
      evaluate: trap,
    };
    const guarded = guardCalls(module, ['findSeedWithProgress', 'evaluate']);
    const outer = guarded.findSeedWithProgress({}, () => guarded.evaluate({}));
    assert.equal(outer.ok, false);
    assert.match(outer.error.message, /^the lesson’s engine stopped \(Out of bounds memory access\)/);
  });

  test('an exception that is not a trap passes through and stops nothing', () => {
    const guarded = guardCalls({ evaluate: () => { throw new TypeError('not a trap'); }, fixture: () => ({ ok: true }) }, ['evaluate', 'fixture']);
    assert.throws(() => guarded.evaluate({}), TypeError);
    assert.equal(stoppedBy(guarded), undefined);
    assert.deepEqual(guarded.fixture(), { ok: true });
  });
});
