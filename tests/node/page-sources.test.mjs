// The page renders what the core computed and computes nothing itself: its sources may not reach for
// JavaScript's arithmetic and number parsing (counting loops and indices are all it needs).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { root } from './load.mjs';

const folders = ['web/src', 'web/src/lesson'];
const banned = [
  [/\bMath\./, 'Math.'],
  [/\bparse(Float|Int)\s*\(/, 'parseFloat/parseInt'],
  [/\bNumber\s*\(/, 'Number('],
  [/\.reduce\s*\(/, '.reduce('],
  [/\btoFixed\s*\(|\btoPrecision\s*\(/, 'toFixed/toPrecision (formatting is the core’s job)'],
];

test('page sources do no arithmetic on numbers and parse none', () => {
  const offences = [];
  for (const folder of folders) {
    for (const name of readdirSync(`${root}${folder}`).filter((file) => file.endsWith('.ts'))) {
      const lines = readFileSync(`${root}${folder}/${name}`, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/^\s*\/\//.test(line)) return;
        for (const [pattern, label] of banned) if (pattern.test(line)) offences.push(`${folder}/${name}:${i + 1}: ${label}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(offences, []);
});

test('the ban itself catches an offence', () => {
  assert.ok(banned.some(([pattern]) => pattern.test('const total = values.reduce((a, b) => a + b, 0);')));
  assert.ok(banned.some(([pattern]) => pattern.test('const x = Number(cell.value);')));
});
