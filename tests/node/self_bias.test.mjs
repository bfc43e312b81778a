// numpyRandn, selfBias and findOffDiagonalSeed from the WebAssembly module against numpy's own numbers
// (fixtures/numpy/*.json), and their errors returned as values.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { bits, loadCore, readJson } from './load.mjs';

// Same tolerance, and same reason, as tests/cpp/self_bias_test.cpp: numpy's BLAS adds the products in
// another order, so scores agree to about d * 2^-53 of the largest |entry|, not bit for bit.
const RELATIVE_TOLERANCE = 1e-12;

let core;
let randnFixture;
let selfBiasFixture;
before(async () => {
  core = await loadCore();
  randnFixture = await readJson('fixtures/numpy/randn.json');
  selfBiasFixture = await readJson('fixtures/numpy/self_bias.json');
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

// Rows strictly longer than every other row, from numpy's norms: where Cauchy–Schwarz guarantees the
// diagonal.
function strictlyLongest(norms) {
  return norms.flatMap((norm, i) => (norms.every((other, j) => j === i || norm > other) ? [i] : []));
}

describe('numpyRandn', () => {
  test('is bit-identical to numpy for every fixture case (the non-FMA log() answer where they differ)', () => {
    let compared = 0;
    let withoutFma = 0;
    for (const c of randnFixture.cases) {
      // A case's calls continue one stream, so one randn of their total count gives all of them.
      const want = c.calls.flatMap(numpyBitsWithoutFma);
      withoutFma += c.calls.reduce((sum, call) => sum + Object.keys(call.hex_without_fma ?? {}).length, 0);
      const got = core.numpyRandn(c.seed, want.length);
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
    const got = core.numpyRandn(0, 2);
    assert.deepEqual(got, { ok: true, values: [1.764052345967664, 0.4001572083672233], text: ['1.764052345967664', '0.40015720836722329'] });
  });
});

describe('selfBias', () => {
  test('the module\'s setting (seed 1, 5 tokens, width 8) and every other fixture case match numpy', () => {
    const cases = selfBiasFixture.cases;
    assert.deepEqual([cases[0].seed, cases[0].tokens, cases[0].dim], [1, 5, 8]);
    for (const c of cases) {
      const where = `seed ${c.seed}`;
      const got = core.selfBias(c.seed, c.tokens, c.dim);
      assert.equal(got.ok, true, JSON.stringify(got.error));
      const r = got.result;
      assert.deepEqual([r.seed, r.tokens, r.dim], [c.seed, c.tokens, c.dim], where);
      for (const name of ['x', 'wq', 'wk']) {
        assert.deepEqual(r[name].values.map(bits), numpyBitsWithoutFma(c[name]), `${where}: ${name} bits`);
        assertTextReadsBack(r[name], `${where}: ${name}`);
      }
      assertClose(r.norms.values, c.norms, `${where}: norms`);
      assertClose(r.projectedNorms.values, c.projected_norms, `${where}: projected norms`);
      assertTextReadsBack(r.norms, `${where}: norms`);
      assertTextReadsBack(r.projectedNorms, `${where}: projected norms`);
      for (const name of ['none', 'separate', 'tied']) {
        const summary = r[name];
        const want = c[name];
        assert.equal(summary.scores.values.length, c.tokens * c.tokens, `${where}: ${name} is n * n, flat`);
        assertClose(summary.scores.values, flatten(want.scores), `${where}: ${name} scores`);
        assertTextReadsBack(summary.scores, `${where}: ${name} scores`);
        assert.deepEqual(summary.argmax, want.argmax, `${where}: ${name} argmax`);
        assert.deepEqual(summary.diagonalRows, want.diagonal_rows, `${where}: ${name} diagonal rows`);
      }
      assert.deepEqual(r.none.guaranteedRows, strictlyLongest(c.norms), `${where}: none guaranteed rows`);
      assert.deepEqual(r.tied.guaranteedRows, strictlyLongest(c.projected_norms), `${where}: tied guaranteed rows`);
      assert.deepEqual(r.separate.guaranteedRows, [], `${where}: separate guarantees nothing`);
    }
  });

  test('scores are shown as the shortest text that reads back', () => {
    const r = core.selfBias(1, 5, 8).result;
    assert.deepEqual(r.none.scores.text.slice(0, 5), ['14.112785610766332', '5.529358565096128', '-2.787192198471349', '0.5932621622649543', '0.5937236743195947']);
  });
});

describe('findOffDiagonalSeed', () => {
  test('finds the same counterexamples as numpy', () => {
    assert.ok(selfBiasFixture.searches.length > 0);
    for (const want of selfBiasFixture.searches) {
      const got = core.findOffDiagonalSeed(want.kind, want.start_seed, 1000, want.tokens, want.dim);
      assert.deepEqual(got, { ok: true, found: true, seed: want.seed, row: want.row, argmax: want.argmax }, JSON.stringify(want));
    }
  });

  test('reports nothing found for one token', () => {
    assert.deepEqual(core.findOffDiagonalSeed('tied', 0, 10, 1, 8), { ok: true, found: false, seed: null, row: null, argmax: null });
  });
});

describe('errors come back as values', () => {
  // `field` names the argument the error is about, so the page can mark that input.
  const rejected = (kind, message, field) => ({ ok: false, error: field ? { kind, message, field } : { kind, message } });
  const seedRange = 'seed must be between 0 and 4294967295, got ';

  test('with the library\'s messages for out-of-range numbers', () => {
    assert.deepEqual(core.selfBias(-1, 5, 8), rejected('self_bias', `${seedRange}-1`, 'seed'));
    assert.deepEqual(core.selfBias(4294967296, 5, 8), rejected('self_bias', `${seedRange}4294967296`, 'seed'));
    assert.deepEqual(core.selfBias(1, 0, 8), rejected('self_bias', 'tokens must be between 1 and 512, got 0', 'tokens'));
    assert.deepEqual(core.selfBias(1, 100000, 8), rejected('self_bias', 'tokens must be between 1 and 512, got 100000', 'tokens'));
    assert.deepEqual(core.selfBias(1, 5, 0), rejected('self_bias', 'dim must be between 1 and 512, got 0', 'dim'));
    assert.deepEqual(core.selfBias(-1, 0, 0), rejected('self_bias', `${seedRange}-1`, 'seed'), 'seed is checked first');
    assert.deepEqual(core.numpyRandn(-1, 3), rejected('random', `${seedRange}-1`));
    assert.deepEqual(core.numpyRandn(1, 0), rejected('arguments', 'count must be between 1 and 100000, got 0'));
    assert.deepEqual(core.findOffDiagonalSeed('none', 0, 0, 5, 8), rejected('self_bias', 'seed count must be between 1 and 1000000, got 0', 'count'));
  });

  test('for numbers that are not integers, and values that are not numbers', () => {
    assert.deepEqual(core.selfBias(1.5, 5, 8), rejected('arguments', 'seed must be an integer, got 1.5', 'seed'));
    assert.deepEqual(core.selfBias(1, 1.5, 8), rejected('arguments', 'tokens must be an integer, got 1.5', 'tokens'));
    assert.deepEqual(core.selfBias(1, 5, 1.5), rejected('arguments', 'dim must be an integer, got 1.5', 'dim'));
    assert.deepEqual(core.numpyRandn(1, 1.5), rejected('arguments', 'count must be an integer, got 1.5'));
    assert.deepEqual(core.selfBias(NaN, 5, 8), rejected('arguments', 'seed must be an integer, got NaN', 'seed'));
    assert.deepEqual(core.selfBias(1e20, 5, 8), rejected('arguments', 'seed must be an integer from -9007199254740991 to 9007199254740991, got 1e+20', 'seed'));
    assert.deepEqual(core.selfBias('1', 5, 8), rejected('arguments', 'seed must be a number, got a string', 'seed'));
    assert.deepEqual(core.selfBias(1, null, 8), rejected('arguments', 'tokens must be a number, got null', 'tokens'));
    assert.deepEqual(core.findOffDiagonalSeed('separate', 0, 10, 5, 8), rejected('arguments', 'kind must be "none" or "tied", got "separate"'));
  });

  test('never throw, and leave the module working', () => {
    const odd = [-1, 0, 1.5, -0.5, NaN, Infinity, -Infinity, 2 ** 53, 1e300, '5', '', null, undefined, true, {}, [], 10n];
    for (const value of odd) {
      for (const call of [
        () => core.numpyRandn(value, 3),
        () => core.numpyRandn(1, value),
        () => core.selfBias(value, 5, 8),
        () => core.selfBias(1, value, 8),
        () => core.selfBias(1, 5, value),
        () => core.findOffDiagonalSeed(value, 0, 10, 5, 8),
        () => core.findOffDiagonalSeed('none', 0, value, 5, 8),
      ]) {
        let got;
        assert.doesNotThrow(() => { got = call(); }, String(value));
        assert.equal(typeof got.ok, 'boolean', String(value));
        if (!got.ok) {
          const { field, ...rest } = got.error;
          assert.deepEqual(Object.keys(rest).sort(), ['kind', 'message'], String(value));
          if (field !== undefined) assert.ok(['seed', 'tokens', 'dim', 'start', 'count'].includes(field), `field ${field}`);
        }
      }
    }
    assert.equal(core.selfBias(1, 5, 8).ok, true);
  });
});
