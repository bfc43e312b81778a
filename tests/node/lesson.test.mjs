// The WebAssembly core in Node: the fixture bit for bit, the same bits as the native build on random
// requests, errors returned as values, and no leaked handles.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { before, describe, test } from 'node:test';
import { bits, loadCore, readJson, root } from './load.mjs';

let core;
let fixture;
before(async () => {
  core = await loadCore();
  fixture = await readJson('fixtures/chapter26.json');
});

const outputKeys = ['query', 'key', 'value', 'input_gradient', 'query_weight_gradient', 'key_weight_gradient', 'value_weight_gradient'];

function assertSameBits(actual, expected, label) {
  assert.deepEqual(actual.shape, expected.shape, `${label}: shape`);
  assert.deepEqual(actual.values.map(bits), expected.values.map(bits), `${label}: bit patterns`);
}

describe('fixture', () => {
  test('every fixture value comes back bit for bit', () => {
    const result = core.evaluateLesson(core.fixtureState().state);
    assert.equal(result.ok, true);
    const tensors = result.evidence.tensors;
    for (const key of outputKeys) assertSameBits(tensors[key], fixture.expected[key], key);
    for (const key of ['input', 'query_weight', 'key_weight', 'value_weight']) assertSameBits(tensors[key], fixture[key], key);
    for (const branch of ['query', 'key', 'value']) assertSameBits(tensors[`${branch}_upstream`], fixture.upstream[branch], `${branch} upstream`);
    assert.equal(bits(result.evidence.loss.value), bits(fixture.expected.loss), 'loss');
    assert.deepEqual(result.evidence.parameterNames, fixture.expected.parameter_names);
    assert.equal(result.evidence.parameterCount, fixture.expected.parameter_count);
    assert.equal(result.evidence.gradcheck.passed, true);
    assert.equal(result.evidence.gradcheck.checks, 4 * fixture.expected.gradcheck.checks_per_tensor);
    assert.equal(result.evidence.replayBitwise, true);
    assert.deepEqual(result.evidence.independence, { queryChanged: true, keyUnchanged: true, valueUnchanged: true });
  });

  test('report and trace are byte-identical to the golden files', async () => {
    assert.equal(core.report().text, await readFile(`${root}fixtures/golden/learn-llm-ch26-expected.txt`, 'utf8'));
    assert.equal(core.trace().text, await readFile(`${root}fixtures/golden/learn-llm-ch26-diagram-trace.txt`, 'utf8'));
  });

  test('the nine exercises check against computed answers', () => {
    assert.deepEqual(core.exerciseIds().length, 9);
    const right = {
      'ch26-output-shapes': ['[4,7,2]'],
      'ch26-first-token': ['[0, 3]', '3,0', '3 -3'],
      'ch26-change-query-only': ['no'],
      'ch26-parameter-count': ['18'],
      'ch26-empty-axes': ['[0,2,2]', '[2,0,2]'],
      'ch26-rank-two': ['explicit-axes'],
      'ch26-divisibility': ['no'],
      'ch26-history': ['additive-two-self-one'],
      'ch26-still-missing': ['scores-probabilities-mixture'],
    };
    for (const id of core.exerciseIds()) {
      const check = core.checkExercise(id, right[id]);
      assert.equal(check.ok, true, id);
      assert.equal(check.correct, true, `${id} should accept ${right[id]}`);
      const wrong = core.checkExercise(id, right[id].map(() => '7'));
      assert.equal(wrong.correct, false, `${id} should refuse 7`);
    }
  });
});

// A small deterministic generator for test inputs (the test's own, independent of the core's).
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('native and WebAssembly agree bit for bit', () => {
  test('on 40 random requests, including empty axes', () => {
    const next = random(26);
    const integer = (max) => (next() * (max + 1)) | 0;
    for (let trial = 0; trial < 40; trial++) {
      const [b, t, d, h] = [integer(3), integer(3), 1 + integer(4), 1 + integer(4)];
      const tensor = (shape) => {
        const count = shape.reduce((a, x) => a * x, 1);
        return { shape, values: Array.from({ length: count }, () => (next() - 0.5) * 8) };
      };
      const request = {
        input: tensor([b, t, d]),
        query_weight: tensor([d, h]),
        key_weight: tensor([d, h]),
        value_weight: tensor([d, h]),
        upstream: { query: tensor([b, t, h]), key: tensor([b, t, h]), value: tensor([b, t, h]) },
      };
      const native = JSON.parse(execFileSync(`${root}build/native/qkv-lesson`, ['evidence', '--input', '-'], { input: JSON.stringify(request) }));
      // The page sends typed text; JS's String(number) is the shortest round-trip decimal.
      const editable = (x) => ({ shape: x.shape, cells: x.values.map(String) });
      const result = core.evaluateLesson({
        batch: `${b}`, tokens: `${t}`, model_width: `${d}`, head_width: `${h}`,
        input: editable(request.input), query_weight: editable(request.query_weight), key_weight: editable(request.key_weight),
        value_weight: editable(request.value_weight), query_upstream: editable(request.upstream.query),
        key_upstream: editable(request.upstream.key), value_upstream: editable(request.upstream.value),
      });
      assert.equal(result.ok, true, JSON.stringify(result.error));
      const label = `trial ${trial} [${b},${t},${d},${h}]`;
      for (const key of outputKeys) assertSameBits(result.evidence.tensors[key], native[key], `${label} ${key}`);
      assert.equal(bits(result.evidence.loss.value), bits(native.loss), `${label} loss`);
      assert.equal(bits(result.evidence.gradcheck.maxError.value), bits(native.gradcheck.max_error), `${label} gradcheck max error`);
      assert.equal(result.evidence.gradcheck.passed, native.gradcheck.passed);
    }
  });
});

describe('errors are values', () => {
  const state = () => structuredClone(core.fixtureState().state);

  test('a cell that is not a number names its field and index', () => {
    const s = state();
    s.key_weight.cells[4] = 'abc';
    const result = core.evaluateLesson(s);
    assert.equal(result.ok, false);
    assert.deepEqual(result.error, { kind: 'number', message: '"abc" is not a decimal number', field: 'key_weight', index: 4 });
  });

  test('non-finite and overflowing entries are refused', () => {
    for (const text of ['inf', 'NaN', '1e400', '0x10', '']) {
      const s = state();
      s.input.cells[0] = text;
      const result = core.evaluateLesson(s);
      assert.equal(result.ok, false, text);
      assert.equal(result.error.field, 'input');
    }
  });

  test('sizes the layer refuses carry the library message', () => {
    const s = state();
    s.model_width = '0';
    assert.equal(core.evaluateLesson(s).error.message, 'query projection: linear input width must be greater than zero');
    s.model_width = '9';
    assert.equal(core.evaluateLesson(s).error.message, 'model_width must be a whole number from 0 to 8, got "9"');
  });

  test('garbage instead of a state never throws', () => {
    for (const garbage of [undefined, null, 5, 'x', [], { batch: 3 }, { input: { shape: 'no', cells: 7 } }]) {
      const result = core.evaluateLesson(garbage);
      assert.equal(result.ok, false, JSON.stringify(garbage));
      assert.equal(typeof result.error.message, 'string');
    }
    assert.equal(core.checkExercise('no-such-exercise', []).ok, false);
    assert.equal(core.checkExercise('ch26-first-token', ['only one']).ok, false);
  });
});

describe('no leaks', () => {
  test('no embind handle or heap growth after many calls', () => {
    // The bindings return plain JS objects (no embind classes to .delete()); handles must not pile up.
    const s = core.fixtureState().state;
    for (let i = 0; i < 20; i++) core.evaluateLesson(s);
    const handles = core.count_emval_handles();
    const heap = core.HEAP8.buffer.byteLength;
    for (let i = 0; i < 300; i++) {
      core.evaluateLesson(s);
      core.checkExercise('ch26-first-token', ['0,3', '3,0', '3,-3']);
    }
    assert.equal(core.count_emval_handles(), handles, 'emval handles');
    assert.equal(core.HEAP8.buffer.byteLength, heap, 'heap size');
  });
});
