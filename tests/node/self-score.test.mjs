// numpyRandn, selfScore and findSeed from the WebAssembly modules against numpy's own numbers
// (fixtures/numpy/*.json), and their errors returned as values.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { bits, loadCore, loadTestCore, readJson } from './load.mjs';

// Same tolerance, and same reason, as tests/cpp/self_score_test.cpp: numpy's BLAS adds the products in
// another order, so scores agree to about d * 2^-53 of the largest |entry|, not bit for bit.
const RELATIVE_TOLERANCE = 1e-12;

let core;
let testCore;
let randnFixture;
let selfScoreFixture;
before(async () => {
  core = await loadCore();
  testCore = await loadTestCore();
  randnFixture = await readJson('fixtures/numpy/randn.json');
  selfScoreFixture = await readJson('fixtures/numpy/self_score.json');
});

// numpy's bits for one draws object ({hex, hex_without_fma?}). glibc's log() has an FMA build and a
// build without; "hex" is numpy with the FMA one. WebAssembly has no FMA, so where the two builds
// disagree ("hex_without_fma", index -> hex) the module must give the non-FMA answer.
function numpyBitsWithoutFma(draws) {
  const other = draws.hex_without_fma ?? {};
  return draws.hex.map((hex, i) => other[String(i)] ?? hex);
}

// Every text reads back to exactly its value (C++ formatted it; nothing here reformats).
function assertTextReadsBack(numbers, label) {
  assert.equal(numbers.text.length, numbers.values.length, `${label}: one text per value`);
  numbers.text.forEach((text, i) => {
    assert.equal(typeof text, 'string', `${label}[${i}]`);
    assert.equal(bits(Number(text)), bits(numbers.values[i]), `${label}[${i}]: "${text}" reads back`);
  });
}

// C's printf("%.17g"), for checking the module's text: 17 significant digits in the E style's exponent
// range rule (fixed notation when -4 <= exponent < 17), trailing zeros removed.
function printf17g(value) {
  const [digits, exponentText] = value.toExponential(16).split('e');
  const exponent = Number(exponentText);
  const trim = (text) => (text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text);
  if (exponent < -4 || exponent >= 17) {
    const sign = exponent < 0 ? '-' : '+';
    return `${trim(digits)}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return trim(value.toFixed(16 - exponent));
}

function flatten(rows) {
  return rows.flat();
}

// Every entry within RELATIVE_TOLERANCE of the largest |expected| entry; reports the worst difference.
function assertClose(actual, expected, label) {
  assert.equal(actual.length, expected.length, `${label}: length`);
  let scale = 0;
  let worst = 0;
  expected.forEach((want, i) => {
    scale = Math.max(scale, Math.abs(want));
    worst = Math.max(worst, Math.abs(actual[i] - want));
  });
  assert.ok(worst <= RELATIVE_TOLERANCE * scale, `${label}: max difference ${worst} at scale ${scale}`);
}

// Rows at least as long as every other row, from numpy's norms: where Cauchy–Schwarz guarantees the
// diagonal (no two rows of random draws are equal, so that part of the rule never decides here).
function surelyPeaking(norms) {
  return norms.flatMap((norm, i) => (norms.every((other, j) => j === i || norm >= other) ? [i] : []));
}
const settings = (seed, tokens, dim) => ({ seed: `${seed}`, tokens: `${tokens}`, dim: `${dim}` });

describe('numpyRandn', () => {
  test('is bit-identical to numpy for every fixture case (the non-FMA log() answer where they differ)', () => {
    let compared = 0;
    let withoutFma = 0;
    for (const c of randnFixture.cases) {
      // A case's calls continue one stream, so one randn of their total count gives all of them.
      const want = c.calls.flatMap(numpyBitsWithoutFma);
      withoutFma += c.calls.reduce((sum, call) => sum + Object.keys(call.hex_without_fma ?? {}).length, 0);
      const got = testCore.numpyRandn({ seed: `${c.seed}`, count: `${want.length}` });
      assert.equal(got.ok, true, JSON.stringify(got.error));
      assert.deepEqual(got.values.map(bits), want, `seed ${c.seed}, ${want.length} draws`);
      assertTextReadsBack(got, `seed ${c.seed} text`);
      got.values.forEach((value, i) => assert.equal(got.text[i], printf17g(value), `seed ${c.seed} text[${i}]`));
      compared += want.length;
    }
    assert.ok(compared > 1000, `compared ${compared} draws`);
    assert.ok(withoutFma > 0, 'the fixture exercises the non-FMA log() answers');
  });

  test('seed 0 starts with numpy\'s well-known 1.764052345967664', () => {
    const got = testCore.numpyRandn({ seed: '0', count: '2' });
    assert.deepEqual(got, { ok: true, values: [1.764052345967664, 0.4001572083672233], text: ['1.764052345967664', '0.40015720836722329'] });
  });
});

describe('selfScore', () => {
  test('the module\'s setting (seed 1, 5 tokens, width 8) and every other fixture case match numpy', () => {
    const cases = selfScoreFixture.cases;
    assert.deepEqual([cases[0].seed, cases[0].tokens, cases[0].dim], [1, 5, 8]);
    for (const c of cases) {
      const where = `seed ${c.seed}`;
      const got = testCore.selfScore(settings(c.seed, c.tokens, c.dim));
      assert.equal(got.ok, true, JSON.stringify(got.error));
      const r = got.result;
      assert.deepEqual([r.seed, r.tokens, r.dim], [c.seed, c.tokens, c.dim], where);
      for (const name of ['x', 'wq', 'wk']) {
        assert.deepEqual(r[name].values.map(bits), numpyBitsWithoutFma(c[name]), `${where}: ${name} bits`);
        assertTextReadsBack(r[name], `${where}: ${name}`);
      }
      assertClose(r.norms.values, c.norms, `${where}: norms`);
      assertClose(r.projected_norms.values, c.projected_norms, `${where}: projected norms`);
      assertTextReadsBack(r.norms, `${where}: norms`);
      assertTextReadsBack(r.projected_norms, `${where}: projected norms`);
      for (const name of ['none', 'separate', 'tied']) {
        const summary = r[name];
        const want = c[name];
        assert.equal(summary.scores.values.length, c.tokens * c.tokens, `${where}: ${name} is n * n, flat`);
        assertClose(summary.scores.values, flatten(want.scores), `${where}: ${name} scores`);
        assertTextReadsBack(summary.scores, `${where}: ${name} scores`);
        assert.deepEqual(summary.argmax, want.argmax, `${where}: ${name} argmax`);
        assert.deepEqual(summary.diagonal_rows, want.diagonal_rows, `${where}: ${name} diagonal rows`);
      }
      assert.deepEqual(r.none.guaranteed_rows, surelyPeaking(c.norms), `${where}: none guaranteed rows`);
      assert.deepEqual(r.tied.guaranteed_rows, surelyPeaking(c.projected_norms), `${where}: tied guaranteed rows`);
      assert.deepEqual(r.separate.guaranteed_rows, [], `${where}: separate guarantees nothing`);
    }
  });

  test('scores are shown as the shortest text that reads back', () => {
    const r = testCore.selfScore(settings(1, 5, 8)).result;
    assert.deepEqual(r.none.scores.text.slice(0, 5), ['14.112785610766332', '5.529358565096128', '-2.787192198471349', '0.5932621622649543', '0.5937236743195947']);
  });
});

describe('findSeed', () => {
  test('finds the same counterexamples as numpy', () => {
    assert.ok(selfScoreFixture.searches.length > 0);
    for (const want of selfScoreFixture.searches) {
      const after = want.start_seed === 0 ? '' : `${want.start_seed - 1}`;
      const got = testCore.findSeed({ kind: want.kind, after, count: '1000', tokens: `${want.tokens}`, dim: `${want.dim}` });
      assert.deepEqual(got, { ok: true, found: true, seed: want.seed, row: want.row, argmax: want.argmax }, JSON.stringify(want));
    }
  });

  test('the page module\'s search with progress refuses a progress that is not a function, by name', () => {
    const request = { kind: 'none', after: '', count: '10', tokens: '5', dim: '8' };
    assert.equal(core.findSeedWithProgress(request, () => {}).ok, true);
    for (const progress of ['tick', {}, 1, null]) {
      const refused = core.findSeedWithProgress(request, progress);
      assert.equal(refused.ok, false, `progress ${JSON.stringify(progress)}`);
      assert.equal(refused.error.field, 'progress');
    }
  });

  test('reports nothing found for one token', () => {
    assert.deepEqual(testCore.findSeed({ kind: 'tied', after: '', count: '10', tokens: '1', dim: '8' }), { ok: true, found: false, seed: 0, row: 0, argmax: 0 });
  });

  test('pressing again finds the next seed, and the search wraps after the last', () => {
    const first = testCore.findSeed({ kind: 'none', after: '', count: '1000', tokens: '5', dim: '8' });
    const next = testCore.findSeed({ kind: 'none', after: `${first.seed}`, count: '1000', tokens: '5', dim: '8' });
    assert.ok(next.seed > first.seed, `${next.seed} after ${first.seed}`);
    assert.equal(testCore.findSeed({ kind: 'none', after: '4294967295', count: '1000', tokens: '5', dim: '8' }).seed, first.seed);
  });
});

describe('the worker’s calls', () => {
  test('selfScoreSummary: the full response’s text for what it shows, doubles as Float64Arrays', () => {
    const full = testCore.selfScore(settings(1, 5, 8)).result;
    const summary = core.selfScoreSummary(settings(1, 5, 8));
    assert.equal(summary.ok, true);
    const r = summary.result;
    assert.equal(r.complete, true);
    assert.equal(r.shown, 5);
    assert.ok(r.tied.scores.values instanceof Float64Array, 'values leave the heap as a Float64Array');
    assert.deepEqual([...r.tied.scores.values].map(bits), full.tied.scores.values.map(bits));
    assert.deepEqual(r.tied.scores.text, full.tied.scores.text);
    assert.deepEqual(r.none.diagonal_rows, full.none.diagonal_rows);
    assert.deepEqual(r.facts.tied_argmax, full.tied.argmax);
    const large = core.selfScoreSummary(settings(2, 512, 1)).result;
    assert.deepEqual([large.complete, large.shown, large.tied.scores.text.length, large.norms.rounded.length], [false, 8, 64, 8]);
    assert.equal(large.none.diagonal_count + large.none.off_diagonal_count, 512);
    assert.equal(large.none.off_diagonal.length, 5);
  });

  test('the facts come back with a check, and grade like the experiment', () => {
    const facts = core.selfScoreSummary(settings(2, 5, 8)).result.facts;
    for (const answer of ['yes', 'no']) {
      const plain = core.checkAnswer({ id: 'qkv04-exercise-1', responses: [answer], self_score: settings(2, 5, 8) });
      const given = core.checkAnswer({ id: 'qkv04-exercise-1', responses: [answer], self_score: { ...settings(2, 5, 8), experiment: facts } });
      assert.deepEqual(given, plain);
    }
    const pending = core.checkAnswer({ id: 'qkv04-exercise-1', responses: ['yes'], self_score: settings(1, 512, 512) });
    assert.deepEqual([pending.ok, pending.error.kind], [false, 'budget']);
  });

  test('findSeedWithProgress reports seeds tried; a search over the budget is refused', () => {
    const reports = [];
    const got = core.findSeedWithProgress({ kind: 'none', after: '', count: '2500', tokens: '1', dim: '8' }, (tried) => reports.push(tried));
    assert.deepEqual(got, { ok: true, found: false, seed: 0, row: 0, argmax: 0 });
    assert.deepEqual(reports, [788, 1576, 2364]); // every ceil(2e7 / 25409) seeds: seeding counts 25000 (issue 18)
    const refused = core.findSeedWithProgress({ kind: 'tied', after: '1', count: '1000', tokens: '512', dim: '512' }, () => assert.fail('no work, no progress'));
    assert.deepEqual([refused.ok, refused.error.kind, refused.error.field], [false, 'budget', 'count']);
    assert.match(refused.error.message, /exceeds the limit of 5,000,000,000 multiply-adds per search; at these sizes at most 16 seeds fit$/);
    assert.equal(core.findSeedWithProgress({ kind: 'none', after: '', count: '1', tokens: '5', dim: '8' }, 'not a function').error.field, 'progress');
  });
});

describe('errors come back as values', () => {
  const seedRange = 'expected a whole number from 0 to 4,294,967,295';

  test('with the field and what each setting accepts', () => {
    const cases = [
      [settings(-1, 5, 8), 'seed', `The seed: "-1" is not read: ${seedRange}`],
      [settings(4294967296, 5, 8), 'seed', `The seed: "4294967296" is not read: ${seedRange}`],
      [settings(1, 0, 8), 'tokens', 'Tokens T: "0" is not read: expected a whole number from 1 to 512'],
      [settings(1, 100000, 8), 'tokens', 'Tokens T: "100000" is not read: expected a whole number from 1 to 512'],
      [settings(1, 5, 0), 'dim', 'The width d: "0" is not read: expected a whole number from 1 to 512'],
      [settings(1, 5, 1.5), 'dim', 'The width d: "1.5" is not read: expected a whole number from 1 to 512'],
      [settings(-1, 0, 0), 'seed', `The seed: "-1" is not read: ${seedRange}`],
    ];
    for (const [request, field, message] of cases) {
      const got = testCore.selfScore(request);
      assert.equal(got.ok, false, JSON.stringify(request));
      assert.deepEqual([got.error.kind, got.error.field, got.error.message], ['self_score', field, message]);
    }
    assert.equal(testCore.selfScore(settings('1.0', '05', '8.0')).ok, true, 'the one reader reads 1.0, 05 and 8.0 as whole numbers');
    assert.equal(testCore.numpyRandn({ seed: '1', count: '0' }).error.message, 'Draws: "0" is not read: expected a whole number from 1 to 100,000');
    assert.equal(testCore.findSeed({ kind: 'none', after: '', count: '0', tokens: '5', dim: '8' }).error.field, 'count');
    assert.deepEqual(testCore.findSeed({ kind: 'separate', after: '', count: '10', tokens: '5', dim: '8' }).error.message, 'kind must be "none" or "tied", got "separate"');
  });

  test('for values that are not strings: the field path and the type', () => {
    assert.deepEqual(testCore.selfScore({ seed: 1, tokens: '5', dim: '8' }).error, {
      kind: 'arguments',
      message: 'request.seed must be a string, got number',
      field: 'request.seed',
      index: -1,
      sentence: 'The page sent the lesson a request it could not use; please report it.',
    });
  });

  test('never throw, and leave the module working', () => {
    const odd = [-1, 0, 1.5, NaN, Infinity, 2 ** 53, '5', '', 'x'.repeat(100000), null, undefined, true, {}, [], 10n];
    for (const value of odd) {
      for (const call of [
        () => testCore.numpyRandn({ seed: value, count: '3' }),
        () => testCore.selfScore({ seed: value, tokens: '5', dim: '8' }),
        () => testCore.selfScore({ seed: '1', tokens: value, dim: '8' }),
        () => testCore.selfScore(value),
        () => testCore.findSeed({ kind: value, after: '', count: '10', tokens: '5', dim: '8' }),
        () => testCore.findSeed({ kind: 'none', after: '', count: value, tokens: '5', dim: '8' }),
      ]) {
        let got;
        assert.doesNotThrow(() => { got = call(); }, String(value).slice(0, 20));
        assert.equal(typeof got.ok, 'boolean', String(value).slice(0, 20));
        if (!got.ok) {
          assert.deepEqual(Object.keys(got.error).sort(), ['field', 'index', 'kind', 'message', 'sentence']);
          assert.ok(got.error.message.length < 300, 'echoed text is shortened');
        }
      }
    }
    assert.equal(testCore.selfScore(settings(1, 5, 8)).ok, true);
  });
});
