// The WebAssembly core in Node: the fixture bit for bit, the same bits as the native build on random
// requests, errors returned as values, and no leaked handles.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { before, describe, test } from 'node:test';
import { bits, evidenceRequest, loadCore, loadTestCore, numericalChecks, readJson, root, variants } from './load.mjs';

let core;
let testCore;
let fixture;
before(async () => {
  core = await loadCore();
  testCore = await loadTestCore();
  fixture = await readJson('fixtures/chapter26.json');
});

const outputKeys = ['query', 'key', 'value', 'input_gradient', 'query_weight_gradient', 'key_weight_gradient', 'value_weight_gradient'];

function assertSameBits(actual, expected, label) {
  assert.deepEqual(actual.shape, expected.shape, `${label}: shape`);
  assert.deepEqual(actual.values.map(bits), expected.values.map(bits), `${label}: bit patterns`);
}

describe('fixture', () => {
  test("the fixture's evidence, computed once for the page's start, is what evaluating its state gives", () => {
    const start = core.fixture();
    assert.equal(start.ok, true);
    assert.deepEqual(start.evidence, core.evaluate({ state: start.state }).evidence);
  });

  test('every fixture value comes back bit for bit', () => {
    const result = core.evaluate({ state: core.fixture().state });
    assert.equal(result.ok, true);
    const tensors = result.evidence;
    for (const key of outputKeys) assertSameBits(tensors[key], fixture.expected[key], key);
    for (const key of ['input', 'query_weight', 'key_weight', 'value_weight']) assertSameBits(tensors[key], fixture[key], key);
    for (const branch of ['query', 'key', 'value']) assertSameBits(tensors[`${branch}_upstream`], fixture.upstream[branch], `${branch} upstream`);
    assert.equal(bits(result.evidence.loss.value), bits(fixture.expected.loss), 'loss');
    assert.deepEqual(result.evidence.parameter_names, fixture.expected.parameter_names);
    assert.equal(result.evidence.parameter_count, fixture.expected.parameter_count);
    assert.equal(result.evidence.gradcheck, undefined, 'evaluate leaves the gradcheck to numericalChecksStep');
    const checked = numericalChecks(core, result.state);
    assert.equal(checked.ok, true, JSON.stringify(checked.error));
    assert.equal(checked.steps, 5, 'a step for each of X, W_Q, W_K and W_V, then the bitwise checks');
    assert.equal(checked.gradcheck.passed, true);
    assert.equal(checked.gradcheck.checks, 4 * fixture.expected.gradcheck.checks_per_tensor);
    assert.equal(result.evidence.bitwise, undefined, 'evaluate leaves the bitwise checks to numericalChecksStep');
    assert.equal(checked.bitwise.replay_bitwise, true);
    const { key_gradient_changed, query_gradient_unchanged, value_gradient_unchanged, input_gradient_changed } = checked.bitwise;
    assert.deepEqual(
      { key_gradient_changed, query_gradient_unchanged, value_gradient_unchanged, input_gradient_changed },
      { key_gradient_changed: true, query_gradient_unchanged: true, value_gradient_unchanged: true, input_gradient_changed: true },
    );
    const { query_changed, key_unchanged, value_unchanged } = checked.bitwise;
    assert.deepEqual({ query_changed, key_unchanged, value_unchanged }, { query_changed: true, key_unchanged: true, value_unchanged: true });
  });

  test('the query–key scores equal the fixture, with token names and provenance like Q', () => {
    const { state, evidence } = core.fixture();
    const { scores, worked_example: rows } = fixture.expected;
    assertSameBits(evidence.scores, scores, 'scores');
    assert.equal(evidence.scores.shape_text, `[${scores.shape.join(', ')}]`);
    assert.deepEqual(evidence.scores.text, scores.values.map(String)); // the fixture's small integers, as written there
    // Not a fixture value: the lesson's own words for its two tokens (token_word, cpp/chapter26/chapter26.cpp).
    assert.deepEqual(evidence.token_names, ['fresh', 'bread']);
    assertSameBits(core.evaluate({ state }).evidence.scores, scores, 'evaluated scores');
    const cell = core.provenance({ state, tensor: 'scores', index: 1 });
    assert.equal(cell.ok, true, JSON.stringify(cell.error));
    assert.equal(cell.target, 'S[0,0,1]');
    // q₀·k₁ written out from the fixture's rows: U+2212 minus, negatives in parentheses.
    const prose = (x) => String(x).replace(/^-/, '−');
    const factor = (x) => (x < 0 ? `(${prose(x)})` : prose(x));
    const sum = rows.q0.map((q, c) => `${factor(q)}·${factor(rows.k1[c])}`).join(' + ');
    assert.equal(cell.expression, `S[0,0,1] = ${sum} = ${prose(scores.values[1])}`);
    assert.equal(cell.description, 'Query of token 0 (row b0 t0 of Q) dotted with key of token 1 (row b0 t1 of K).');
    assert.deepEqual(cell.sources, [{ tensor: 'query', indices: [0, 1] }, { tensor: 'key', indices: [2, 3] }]);
    const outside = core.provenance({ state, tensor: 'scores', index: 4 });
    assert.equal(outside.ok, false);
    assert.equal(outside.error.message, 'scores has 4 cells, so cell 4 does not exist');
  });

  test('report and trace are byte-identical to the golden files', async () => {
    assert.equal(testCore.report().text, await readFile(`${root}fixtures/golden/learn-llm-ch26-expected.txt`, 'utf8'));
    assert.equal(testCore.trace().text, await readFile(`${root}fixtures/golden/learn-llm-ch26-diagram-trace.txt`, 'utf8'));
  });

  test('the fourteen chapter exercises check against computed answers, in every notation', () => {
    const listed = core.exercises({ seed: '1', tokens: '5', dim: '8' });
    assert.equal(listed.ok, true);
    const ids = listed.exercises.map((view) => view.id).filter((id) => id.startsWith('ch26-'));
    assert.equal(ids.length, 14);
    const right = {
      'ch26-output-shapes': ['[4,7,2]'],
      'ch26-first-token': ['[0, 3]', '3,0', '3 −3'],
      'ch26-best-key': ['token-1'],
      'ch26-change-query-only': ['no'],
      'ch26-parameter-count': ['1.8e1'],
      'ch26-empty-axes': ['[0,2,2]', '2 × 0 × 2'],
      'ch26-rank-two': ['explicit-axes'],
      'ch26-divisibility': ['no'],
      'ch26-history': ['additive-two-self-one'],
      'ch26-still-missing': ['scores-probabilities-mixture'],
      'ch26-upstream-key': ['key-only'],
      'ch26-double-key-weight': ['key-and-scores'],
      'ch26-key-bias': ['same-shift'],
      'ch26-preview-weights': ['flattens'],
    };
    const self_score = { seed: '1', tokens: '5', dim: '8' };
    for (const id of ids) {
      const check = core.checkAnswer({ id, responses: right[id], self_score });
      assert.equal(check.ok, true, `${id}: ${JSON.stringify(check.error)}`);
      assert.equal(check.correct, true, `${id} should accept ${right[id]}`);
      const choice = listed.exercises.find((view) => view.id === id).kind === 'choice';
      const wrong = core.checkAnswer({ id, responses: right[id].map(() => (choice ? listed.exercises.find((view) => view.id === id).choices.find((c) => c !== right[id][0]) : '[7]')), self_score });
      assert.equal(wrong.correct, false, `${id} should refuse a wrong answer`);
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
  // Both variants of the page's module and of the tests' module (without SIMD, and with -msimd128).
  const modules = {};
  before(async () => {
    for (const { name, suffix } of variants) modules[name] = { page: await loadCore(suffix), test: await loadTestCore(suffix) };
  });

  const native = (request) => JSON.parse(execFileSync(`${root}build/native/qkv-lesson`, ['evidence', '--input', '-'], { input: JSON.stringify(request), maxBuffer: 1 << 28 }));
  const randomTensor = (next) => (shape) => {
    const count = shape.reduce((a, x) => a * x, 1);
    return { shape, values: Array.from({ length: count }, () => (next() - 0.5) * 8) };
  };
  const randomRequest = (next, sizes) => evidenceRequest(sizes, randomTensor(next));
  // The next lesson's preview row (softmax through exp(), and the mixture), bit for bit: the page's evidence holds
  // it as {values, text, rounded} lists, the tool's and the tests' module's as plain lists.
  const previewKeys = ['scores', 'scaled', 'weights', 'unscaled_weights', 'output'];
  const list = (value) => Array.from(Array.isArray(value) || ArrayBuffer.isView(value) ? value : value.values);
  const plainPreview = (preview) => preview && { row: preview.row, scale: preview.scale.value ?? preview.scale, ...Object.fromEntries(previewKeys.map((key) => [key, list(preview[key])])) };
  const assertSamePreview = (actual, expected, label) => {
    assert.equal(actual === undefined, expected === undefined, `${label}: a preview row in both or in neither`);
    if (!expected) return;
    const [a, e] = [plainPreview(actual), plainPreview(expected)];
    assert.equal(a.row, e.row, `${label} preview row`);
    assert.equal(bits(a.scale), bits(e.scale), `${label} preview √d_head`);
    for (const key of previewKeys) assert.deepEqual(a[key].map(bits), e[key].map(bits), `${label} preview ${key}`);
  };

  // The WebAssembly core reads a decimal with JavaScript's Number() (cpp/support/decimal.cpp), the native build with
  // strtod: both must give the nearest double, ties to even. Python's float() gave the expected bits.
  test('typed decimals that are hard to round (midpoints, just past one, subnormal) read as the nearest double, in both page modules', async () => {
    const { cells } = await readJson('fixtures/hard-decimals.json');
    for (const { name } of variants) {
      const state = structuredClone(modules[name].page.fixture().state);
      assert.equal(state.input.cells.length, cells.length);
      state.input.cells = cells.map((cell) => cell.text);
      const result = modules[name].page.evaluate({ state });
      assert.equal(result.ok, true, JSON.stringify(result.error));
      assert.deepEqual(result.evidence.input.values.map(bits), cells.map((cell) => cell.bits.slice(2)), `${name}: X as read`);
    }
  });

  test('the SIMD variants are built with -msimd128 and the others without', () => {
    for (const { name, suffix } of variants) assert.equal(modules[name].test.features().simd128, suffix === '-simd', name);
  });

  test('on 40 random requests, including empty axes, in both page modules', () => {
    const next = random(26);
    const integer = (max) => (next() * (max + 1)) | 0;
    for (let trial = 0; trial < 40; trial++) {
      const [b, t, d, h] = [integer(3), integer(3), 1 + integer(4), 1 + integer(4)];
      const request = randomRequest(next, [b, t, d, h]);
      const expected = native(request);
      // The page sends typed text; JS's String(number) is the shortest round-trip decimal.
      const editable = (x) => ({ shape: x.shape, cells: x.values.map(String) });
      for (const { name } of variants) {
        const result = modules[name].page.evaluate({ state: {
          batch: `${b}`, tokens: `${t}`, model_width: `${d}`, head_width: `${h}`,
          input: editable(request.input), query_weight: editable(request.query_weight), key_weight: editable(request.key_weight),
          value_weight: editable(request.value_weight), query_upstream: editable(request.upstream.query),
          key_upstream: editable(request.upstream.key), value_upstream: editable(request.upstream.value),
        } });
        assert.equal(result.ok, true, JSON.stringify(result.error));
        const label = `${name} trial ${trial} [${b},${t},${d},${h}]`;
        for (const key of outputKeys) assertSameBits(result.evidence[key], expected[key], `${label} ${key}`);
        assertSamePreview(result.evidence.value_preview, expected.value_preview, label);
        assert.equal(bits(result.evidence.loss.value), bits(expected.loss), `${label} loss`);
        const { gradcheck } = numericalChecks(modules[name].page, result.state);
        assert.equal(bits(gradcheck.max_error.value), bits(expected.gradcheck.max_error), `${label} gradcheck max error`);
        assert.equal(gradcheck.passed, expected.gradcheck.passed);
      }
    }
  });

  // Issue 40: a drawn variant is the same in the tool and in both page modules (the state's cells, the tokens'
  // words), and so are the questions and answers the core writes for it and the numbers it computes from it.
  test('a variant drawn from a seed, its questions and its numbers, in both page modules', () => {
    const next = random(40);
    const seeds = [0, 1, 7, 9999, 2 ** 53 - 1, ...Array.from({ length: 10 }, () => Math.floor(next() * 2 ** 53))];
    const tensorOf = (cells) => ({ shape: cells.shape, values: cells.cells.map(Number) });
    for (const seed of seeds) {
      const drawn = JSON.parse(execFileSync(`${root}build/native/qkv-lesson`, ['variant', '--seed', `${seed}`]));
      const { state } = drawn;
      const expected = native({
        input: tensorOf(state.input), query_weight: tensorOf(state.query_weight), key_weight: tensorOf(state.key_weight),
        value_weight: tensorOf(state.value_weight),
        upstream: { query: tensorOf(state.query_upstream), key: tensorOf(state.key_upstream), value: tensorOf(state.value_upstream) },
      });
      for (const { name } of variants) {
        const label = `${name} seed ${seed}`;
        const page = modules[name].page;
        const variant = page.variant({ seed: `${seed}` });
        assert.equal(variant.ok, true, JSON.stringify(variant.error));
        assert.deepEqual({ seed: variant.seed, state: variant.state, token_names: variant.token_names },
          { seed: drawn.seed, state: drawn.state, token_names: drawn.token_names }, `${label}: the variant`);
        const listed = page.exercisesFor({ self_score: {}, state: variant.state, token_names: variant.token_names });
        assert.equal(listed.ok, true, JSON.stringify(listed.error));
        assert.deepEqual(listed.exercises, drawn.exercises, `${label}: questions and answers`);
        const shown = page.evaluate({ state: variant.state, token_names: variant.token_names });
        assert.equal(shown.ok, true, JSON.stringify(shown.error));
        assert.deepEqual(shown.evidence.token_names, variant.token_names, `${label}: the evidence names the tokens with the drawn words`);
        const miscounted = page.evaluate({ state: variant.state, token_names: variant.token_names.slice(1) });
        assert.deepEqual([miscounted.ok, miscounted.error?.field, miscounted.evidence], [false, 'token_names', undefined], `${label}: one word too few`);
        for (const key of outputKeys) assertSameBits(shown.evidence[key], expected[key], `${label} ${key}`);
        assertSamePreview(shown.evidence.value_preview, expected.value_preview, label);
      }
    }
  });

  // Shapes past the blocked kernel's blocks: k = 300 and 257 span two k-blocks (256 deep) in the forward
  // and in U·Wᵀ, n = 64 and 66 rows fill and pass a 64-row block (72 rows on the AVX2 path), and widths 70
  // and 9 leave partial register tiles (4 columns in WebAssembly, 8 with AVX2, 16 with AVX-512F). Through
  // the tests' module's evidence, the same path as the command line's (work below kMaxEvidenceOperations).
  test('at [1,64,300]→70 and [2,33,257]→9 (several k-blocks and partial tiles), in both tests\' modules', () => {
    const next = random(11);
    for (const shape of [[1, 64, 300, 70], [2, 33, 257, 9]]) {
      const request = randomRequest(next, shape);
      const expected = native(request);
      assert.ok(!expected.error, JSON.stringify(expected.error));
      for (const { name } of variants) {
        const result = modules[name].test.evidence(request);
        assert.equal(result.ok, true, JSON.stringify(result.error));
        const label = `${name} [${shape}]`;
        for (const key of outputKeys) assertSameBits(result[key], expected[key], `${label} ${key}`);
        assertSamePreview(result.value_preview, expected.value_preview, label);
        assert.equal(bits(result.loss), bits(expected.loss), `${label} loss`);
        assert.equal(bits(result.gradcheck.max_error), bits(expected.gradcheck.max_error), `${label} gradcheck max error`);
        assert.equal(result.gradcheck.passed, expected.gradcheck.passed, `${label} gradcheck`);
      }
    }
  });
});

describe('errors are values', () => {
  const state = () => structuredClone(core.fixture().state);

  test('a cell that is not a number names its field and index', () => {
    const s = state();
    s.key_weight.cells[4] = 'abc';
    const result = core.evaluate({ state: s });
    assert.equal(result.ok, false);
    assert.deepEqual(result.error, {
      kind: 'number',
      message: '"abc" is not read: expected a number such as −1.5, 3/2 or 2e-3',
      field: 'key_weight',
      index: 4,
      sentence: 'Cell 5 of W_K could not be read as a number.',
    });
  });

  test('an exponent without digits is not a number here either (issue 39: strtod reads "2e" as 2, Number() as NaN)', () => {
    for (const text of ['2e', '2E', '2e+', '-2e-']) {
      const s = state();
      s.input.cells[0] = text;
      assert.equal(core.evaluate({ state: s }).error?.message, `"${text}" is not read: expected a number such as −1.5, 3/2 or 2e-3`, text);
    }
  });

  test('non-finite and overflowing entries are refused', () => {
    for (const text of ['inf', 'NaN', '1e400', '0x10', '']) {
      const s = state();
      s.input.cells[0] = text;
      const result = core.evaluate({ state: s });
      assert.equal(result.ok, false, text);
      assert.equal(result.error.field, 'input');
    }
    // A number past a double's range is refused for that reason, in the WebAssembly build too (where
    // parse_decimal reads with Number(), which gives Infinity).
    const s = state();
    s.input.cells[0] = '−1e400';
    assert.equal(core.evaluate({ state: s }).error.message, '"−1e400" is not read: expected a number between −1.8e308 and 1.8e308 (the range of a double)');
  });

  test('sizes say what each accepts, in the learner\'s words', () => {
    const s = state();
    s.model_width = '0';
    assert.equal(core.evaluate({ state: s }).error.message, 'Model width d_model: "0" is not read: expected a whole number from 1 to 8');
    s.model_width = '9';
    assert.equal(core.evaluate({ state: s }).error.message, 'Model width d_model: "9" is not read: expected a whole number from 1 to 8');
    assert.deepEqual(core.fixture().size_limits.map((limit) => [limit.field, limit.min, limit.max]), [
      ['batch', 0, 8], ['tokens', 0, 8], ['model_width', 1, 8], ['head_width', 1, 8],
    ]);
  });

  test('a 1 MB paste comes back shortened in the message', () => {
    const s = state();
    s.input.cells[0] = 'x'.repeat(1 << 20);
    const message = core.evaluate({ state: s }).error.message;
    assert.ok(message.length < 200, `message of ${message.length} characters`);
    assert.ok(message.includes(`"${'x'.repeat(80)}…"`), message.slice(0, 120));
  });

  test('a kept shape outside the size limits is refused as a value (it was a RuntimeError: abort)', () => {
    const limits = ' is not accepted: expected [] or 3 axes within the size limits [8, 8, 8], at most 512 numbers';
    for (const shape of [[1e9, 1, 1], [64, 64, 64, 64], [8, 8, 9], [1, 8192, 8192]]) {
      const s = state();
      s.batch = '2'; // a new size, so that the kept cells are merged in
      s.input.kept = { shape, cells: ['1'] };
      let result;
      assert.doesNotThrow(() => (result = core.evaluate({ state: s })), String(shape));
      assert.equal(result.ok, false, String(shape));
      assert.deepEqual([result.error.kind, result.error.field, result.error.message], ['size', 'input', `X: kept shape [${shape.join(', ')}]${limits}`]);
    }
    const s = state();
    s.batch = '2';
    assert.equal(core.evaluate({ state: s }).ok, true, 'the module still answers');
  });

  test("the tests' module's bench has the command line's limits, refused as budget", () => {
    const refused = testCore.bench({ batch: 1, tokens: 4096, model_width: 4096, head_width: 4096 });
    assert.deepEqual([refused.ok, refused.error.kind, refused.error.message], [false, 'budget', 'bench costs 7.7e12 flops (5 timed passes and a warm-up at B 1, T 4096, d 4096, h 4096), more than the limit of 1e11']);
    const repeat = testCore.bench({ batch: 1, tokens: 8, model_width: 3, head_width: 2, repeat: 1001 });
    assert.deepEqual([repeat.ok, repeat.error.kind, repeat.error.message], [false, 'budget', 'bench repeat must be at most 1000, got 1001']);
  });

  test('garbage instead of a request or a state never throws', () => {
    for (const garbage of [undefined, null, 5, 'x', [], { batch: 3 }, { input: { shape: 'no', cells: 7 } }]) {
      for (const request of garbage === undefined ? [garbage] : [garbage, { state: garbage }]) {
        const result = core.evaluate(request);
        assert.equal(result.ok, false, JSON.stringify(request));
        assert.equal(typeof result.error.message, 'string');
      }
    }
    const self_score = { seed: '1', tokens: '5', dim: '8' };
    assert.equal(core.checkAnswer({ id: 'no-such-exercise', responses: [], self_score }).ok, false);
    assert.equal(core.checkAnswer({ id: 'ch26-first-token', responses: ['only one'], self_score }).ok, false);
    assert.deepEqual(core.checkAnswer({ id: 123, responses: [] }).error.kind, 'arguments');
  });

  test('a call with the wrong number of arguments is refused as a value, not thrown', () => {
    const refused = { kind: 'arguments', message: 'request must be an object, got an array', field: 'request', index: -1 };
    for (const call of [() => core.evaluate(), () => core.checkAnswer(123, []), () => core.evaluate({ state: core.fixture().state }, 5), () => core.selfScoreSummary(), () => core.exercises({}, {})]) {
      let got;
      assert.doesNotThrow(() => (got = call()));
      const { sentence, ...error } = got.error;
      assert.deepEqual([got.ok, error], [false, refused]);
      assert.equal(typeof sentence, 'string');
    }
    assert.equal(core.fixture('extra').ok, true, 'fixture takes no request; extra arguments are ignored');
  });
});

describe('no leaks', () => {
  test('no embind handle or heap growth after many calls', () => {
    // The bindings return plain JS objects (no embind classes to .delete()); handles must not pile up.
    const s = core.fixture().state;
    const self_score = { seed: '1', tokens: '5', dim: '8' };
    for (let i = 0; i < 20; i++) core.evaluate({ state: s });
    const handles = core.count_emval_handles();
    const heap = core.HEAP8.buffer.byteLength;
    for (let i = 0; i < 300; i++) {
      core.evaluate({ state: s });
      core.checkAnswer({ id: 'ch26-first-token', responses: ['0,3', '3,0', '3,-3'], self_score });
    }
    assert.equal(core.count_emval_handles(), handles, 'emval handles');
    assert.equal(core.HEAP8.buffer.byteLength, heap, 'heap size');
  });
});
