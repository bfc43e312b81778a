// The next lesson's preview row (evaluate's value_preview) from the WebAssembly core: the fixture's row as
// numpy computes it (fixtures/numpy/value_preview.json, within its stated ulp tolerance for what passes
// through exp(); the scores, √d_head and the scaled scores exactly), the same bits in both page modules, and
// none when an axis is empty.
//   node --test tests/node/value-preview.test.mjs
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { bits, loadCore, readJson, variants } from './load.mjs';

const modules = {};
let numpy;
before(async () => {
  for (const { name, suffix } of variants) modules[name] = await loadCore(suffix);
  numpy = await readJson('fixtures/numpy/value_preview.json');
});

// How many doubles apart two non-negative doubles are.
const ulpsApart = (a, b) => {
  const [x, y] = [BigInt(`0x${bits(a)}`), BigInt(`0x${bits(b)}`)];
  return x > y ? x - y : y - x;
};

test('the fixture’s preview row is numpy’s, and both page modules give the same bits', () => {
  const previews = variants.map(({ name }) => {
    const core = modules[name];
    return core.evaluate({ state: core.fixture().state }).evidence.value_preview;
  });
  const [first] = previews;
  assert.equal(first.row, numpy.row);
  assert.deepEqual(first.scores.values.map(bits), numpy.scores.map(bits), 'scores, exactly');
  assert.equal(bits(first.scale.value), bits(numpy.scale), '√d_head, exactly');
  assert.deepEqual(first.scaled.values.map(bits), numpy.scaled.map(bits), 'scaled scores, exactly');
  for (const key of ['weights', 'unscaled_weights', 'output']) {
    first[key].values.forEach((value, i) => assert.ok(ulpsApart(value, numpy[key][i]) <= BigInt(numpy.ulp_tolerance), `${key}[${i}]: ${value} vs numpy ${numpy[key][i]}`));
  }
  for (const preview of previews.slice(1)) {
    for (const key of ['scores', 'scaled', 'weights', 'unscaled_weights', 'output']) assert.deepEqual(preview[key].values.map(bits), first[key].values.map(bits), `${key}: the same bits in every module`);
  }
});

test('no preview when the token axis is empty', () => {
  const core = modules[variants[0].name];
  const state = structuredClone(core.fixture().state);
  state.tokens = '0';
  state.input = { shape: [1, 0, 3], cells: [] };
  for (const key of ['query_upstream', 'key_upstream', 'value_upstream']) state[key] = { shape: [1, 0, 2], cells: [] };
  const result = core.evaluate({ state });
  assert.equal(result.ok, true, JSON.stringify(result.error));
  assert.equal(result.evidence.value_preview, undefined);
});
