// The page renders what the core computed and computes nothing itself: its sources may not reach for
// JavaScript's arithmetic and number parsing (counting loops and indices are all it needs).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadCore, root } from './load.mjs';

const folders = ['web/src', 'web/src/lesson'];
const banned = [
  [/\bMath\./, 'Math.'],
  [/\bparse(Float|Int)\s*\(/, 'parseFloat/parseInt'],
  [/\bNumber\s*\(/, 'Number('],
  [/\.reduce\s*\(/, '.reduce('],
  [/\btoFixed\s*\(|\btoPrecision\s*\(/, 'toFixed/toPrecision (formatting is the core’s job)'],
  [/\bvalueAsNumber\b/, 'valueAsNumber (the core reads what was typed)'],
  [/\.correct\s*=|===\s*expected|expected\s*===/, 'grading (the core grades every answer)'],
];

test('page sources do no arithmetic on numbers and parse none', () => {
  const offences = [];
  for (const folder of folders) {
    for (const name of readdirSync(`${root}${folder}`).filter((file) => file.endsWith('.ts'))) {
      const lines = readFileSync(`${root}${folder}/${name}`, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/^\s*\/\//.test(line)) return;
        // The two exemptions: the iframe's own height in CSS pixels, measured by the host bridge of embed.ts,
        // and the time a learner took over a question, written as an xAPI duration by answers.ts.
        if (line.endsWith('// layout pixels, not lesson numbers')) {
          if (`${folder}/${name}` !== 'web/src/embed.ts') offences.push(`${folder}/${name}:${i + 1}: layout exemption outside embed.ts`);
          return;
        }
        if (line.endsWith('// clock time, not lesson numbers')) {
          if (`${folder}/${name}` !== 'web/src/lesson/answers.ts') offences.push(`${folder}/${name}:${i + 1}: clock exemption outside answers.ts`);
          return;
        }
        for (const [pattern, label] of banned) if (pattern.test(line)) offences.push(`${folder}/${name}:${i + 1}: ${label}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(offences, []);
});

test('the ban itself catches an offence', () => {
  assert.ok(banned.some(([pattern]) => pattern.test('const total = values.reduce((a, b) => a + b, 0);')));
  assert.ok(banned.some(([pattern]) => pattern.test('const x = Number(cell.value);')));
  assert.ok(banned.some(([pattern]) => pattern.test('core.selfScoreSummary({ seed: seed.input.valueAsNumber })')));
  assert.ok(banned.some(([pattern]) => pattern.test('return responses[0]?.trim() === expected;')));
});

test('the page’s prose and the core’s registry name the same exercises and options', async () => {
  const core = await loadCore();
  const prose = JSON.parse(readFileSync(`${root}web/src/lesson/exercise-prose.json`, 'utf8'));
  const listed = core.exercises({ seed: '1', tokens: '5', dim: '8' });
  assert.equal(listed.ok, true);
  assert.deepEqual(Object.keys(prose).sort(), listed.exercises.map((view) => view.id).sort(), 'exercise ids');
  for (const view of listed.exercises) {
    const text = prose[view.id];
    if (view.kind === 'choice') assert.deepEqual(Object.keys(text.choices ?? {}).sort(), [...view.choices].sort(), `${view.id} option ids`);
    else assert.equal(text.blanks?.length, view.blanks, `${view.id} blanks`);
  }
});

test('the exercise ids course authors rely on are unchanged', async () => {
  const core = await loadCore();
  const ids = core.exercises({ seed: '1', tokens: '5', dim: '8' }).exercises.map((view) => view.id);
  const reference = readFileSync(`${root}docs/statements.md`, 'utf8');
  for (const id of ['ch26-output-shapes', 'ch26-first-token', 'ch26-change-query-only', 'ch26-parameter-count', 'ch26-empty-axes', 'ch26-rank-two', 'ch26-divisibility', 'ch26-history', 'ch26-still-missing']) {
    assert.ok(ids.includes(id), id);
    assert.ok(reference.includes(`\`${id}\``), `docs/statements.md documents ${id}`);
  }
  for (const id of ids.filter((id) => id.startsWith('qkv04-'))) assert.match(id, /^qkv04-(exercise-[1-3]|quiz-[3-6])$/);
  // Retired ids are never listed (nor reused), and the reference says they are retired.
  for (const id of ['qkv04-quiz-1', 'qkv04-quiz-2']) {
    assert.ok(!ids.includes(id), `${id} is retired`);
    assert.match(reference, new RegExp(`\`${id}\`[^.]*retired`), `docs/statements.md lists ${id} as retired`);
  }
});
