// The numbers' texts (text/format.cpp's format_shortest): each is the first precision that round-trips, as printf's
// correct rounding (ties to even) gives it, checked against an exact reference on hard and random doubles.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { loadCore } from './load.mjs';

let core;
before(async () => (core = await loadCore('-simd')));

// The exact decimal digits of a finite double and the power of ten of its last digit: m · 2^e written out.
function exactDecimal(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const high = view.getUint32(0);
  const biased = high >>> 20;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  if (biased > 0) mantissa |= 1n << 52n;
  const e = (biased > 0 ? biased : 1) - 1075;
  return e >= 0 ? { digits: (mantissa << BigInt(e)).toString(), exponent: 0 } : { digits: (mantissa * 5n ** BigInt(-e)).toString(), exponent: e };
}

// printf's %.pg value of x (p significant digits, ties to even), as a decimal Number() reads.
function roundedTo(x, p) {
  const { digits, exponent } = exactDecimal(x);
  const trimmed = digits.replace(/^0+/, '') || '0';
  if (trimmed.length <= p) return `${x < 0 ? '-' : ''}${trimmed}e${exponent}`;
  let kept = BigInt(trimmed.slice(0, p));
  const rest = trimmed.slice(p);
  const half = '5'.padEnd(rest.length, '0');
  if (rest > half || (rest === half && kept % 2n === 1n)) kept += 1n;
  return `${x < 0 ? '-' : ''}${kept}e${exponent + rest.length}`;
}

function firstRoundTripping(x) {
  for (let p = 1; p <= 17; p++) if (Number(roundedTo(x, p)) === x) return p;
  return 17;
}

test('each value is written with the first precision that round-trips, on hard and random doubles', () => {
  let state = 2026;
  const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const hard = [2 ** -24, 0.1 + 0.2, 1 / 3, 2 ** -1022, 5e-324, -(2 ** -1074) * 3, 1e21, 123456789012345680000, 0.5, -0, 2 / 3, 9007199254740993];
  const random = Array.from({ length: 120 }, () => (next() < 0.5 ? -1 : 1) * (1 + next()) * 2 ** Math.floor(next() * 80 - 40));
  const values = [...hard, ...random];
  const fixture = core.fixture().state;
  for (let at = 0; at < values.length; at += 6) {
    const cells = values.slice(at, at + 6);
    while (cells.length < 6) cells.push(1);
    const result = core.evaluate({ state: { ...fixture, input: { ...fixture.input, cells: cells.map(String) } } });
    assert.equal(result.ok, true, JSON.stringify(result.error));
    result.evidence.input.values.forEach((x, i) => {
      const text = result.evidence.input.text[i];
      assert.equal(Object.is(Number(text), x), true, `${text} reads back as ${x}`);
      const digits = text.replace(/e.*$|[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '') || '0';
      assert.equal(digits.length, firstRoundTripping(x), `${x} written ${text}`);
    });
  }
});
