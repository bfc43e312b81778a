// The page's types of the core (web/src/lesson/core-types.d.ts) are generated from the C++ field lists
// (`qkv-lesson fields`) by scripts/generate-core-types.mjs. Here: the file on disk is what the generator writes
// from today's tool; the generator's rules say what TypeScript then allows (a snippet type-checked with the
// compiler); and the page's module answers each call as the field lists say (every member of the listed type,
// no other, each of its listed kind; lists of doubles as Float64Arrays from the worker's call only), and so
// does the scale section's module.
//   node --test tests/node/core-types.test.mjs
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import ts from 'typescript';
import { coreTypes, fieldLists } from '../../scripts/generate-core-types.mjs';
import { loadCore, loadScaleCore, numericalChecks, root } from './load.mjs';

const cli = process.env.QKV_CLI ?? `${root}build/native/qkv-lesson`;
const generated = `${root}web/src/lesson/core-types.d.ts`;
const lists = fieldLists(cli);

test('core-types.d.ts is what the generator writes from the field lists the tool prints now', () => {
  assert.ok(existsSync(generated), `${generated} is missing: scripts/build.sh writes it (node scripts/generate-core-types.mjs)`);
  assert.equal(readFileSync(generated, 'utf8'), coreTypes(lists), 'core-types.d.ts is stale: run node scripts/generate-core-types.mjs');
});

test('the generator refuses a field of a type the lists do not describe, and a response whose error is not an ErrorView', () => {
  const { ErrorView } = lists;
  assert.throws(() => coreTypes({ ErrorView, A: { b: 'Missing[]' } }), /a field names Missing, which the field lists do not describe/);
  assert.throws(() => coreTypes({ ErrorView, R: { ok: 'boolean', error: 'string' } }), /R\.error is string, not an optional ErrorView/);
});

// A snippet against the generated types: each wrong use is marked @ts-expect-error, which fails the check if
// the types allowed it.
test('TypeScript reads the generator’s types as its rules say: responses, optionals, integers, lists of doubles', () => {
  // Both files in memory: the generator's output of today's lists, and the snippet beside it.
  const snippet = `${root}core-types-check/check.ts`;
  const types = `${root}core-types-check/core-types.d.ts`;
  const files = new Map([[types, coreTypes(lists)]]);
  const source = `import type { FixtureResponse, LessonResponse, SelfScoreSummaryResponse, TensorView, ExerciseView } from './core-types';
declare const fixture: FixtureResponse;
declare const lesson: LessonResponse;
declare const summary: SelfScoreSummaryResponse<Float64Array>;
if (fixture.ok) {
  const batch: string = fixture.state.batch;
  const shape: number[] = fixture.evidence.input.shape;
  void [batch, shape];
  // @ts-expect-error no error on success
  void fixture.error.message;
} else {
  const message: string = fixture.error.message;
  // @ts-expect-error a refusal may come without the other members
  void fixture.state.batch;
  void message;
}
if (lesson.ok) {
  // @ts-expect-error evidence is optional in C++ (absent when the sizes are refused)
  void lesson.evidence.input;
}
if (summary.ok && summary.result) {
  const values: Float64Array = summary.result.norms.values;
  const argmax: number[] = summary.result.none.argmax;
  // @ts-expect-error the worker's doubles are a Float64Array
  const asArray: number[] = summary.result.norms.values;
  void [values, argmax, asArray];
}
declare const tensor: TensorView;
const plain: number[] = tensor.values;
declare const exercise: ExerciseView;
const blanks: number = exercise.blanks;
// @ts-expect-error an integer is a number
const text: string = exercise.blanks;
void [plain, blanks, text];
`;
  const host = ts.createCompilerHost({});
  const read = host.readFile;
  files.set(snippet, source);
  host.readFile = (file) => files.get(file) ?? read(file);
  host.fileExists = ((exists) => (file) => files.has(file) || exists(file))(host.fileExists);
  host.directoryExists = ((exists) => (dir) => dir === `${root}core-types-check` || exists(dir))(host.directoryExists);
  const program = ts.createProgram([snippet], { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, lib: ['lib.es2022.d.ts'] }, host);
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(problems, []);
});

// Whether `value` is what the field lists say a `type` is ("LessonState", "integer[]", "number?"...).
function conformityProblems(value, type, path, doubles) {
  const plain = type.replace(/\?$/, '');
  if (plain === 'number[]') return value instanceof doubles ? [] : [`${path}: not a ${doubles.name}`];
  if (plain.endsWith('[]')) {
    if (!Array.isArray(value)) return [`${path}: not an array`];
    return value.flatMap((item, i) => conformityProblems(item, plain.slice(0, -2), `${path}[${i}]`, doubles));
  }
  if (plain === 'integer') return Number.isSafeInteger(value) ? [] : [`${path}: ${value} is not a whole number`];
  if (plain === 'number' || plain === 'string' || plain === 'boolean') return typeof value === plain ? [] : [`${path}: not a ${plain}`];
  const fields = lists[plain];
  if (!fields) return [`${path}: ${plain} is not in the field lists`];
  if (typeof value !== 'object' || value === null) return [`${path}: not an object (${plain})`];
  const unlisted = Object.keys(value).filter((key) => !(key in fields)).map((key) => `${path}.${key}: not in ${plain}'s list`);
  const listed = Object.entries(fields).flatMap(([key, member]) => {
    if (!(key in value)) return member.endsWith('?') || (fields.ok && value.ok === false) ? [] : [`${path}.${key}: missing`];
    return conformityProblems(value[key], member, `${path}.${key}`, doubles);
  });
  return [...unlisted, ...listed];
}

test('the page’s module answers every call as the field lists say (the types generated from them)', async () => {
  const core = await loadCore();
  const fixture = core.fixture();
  const state = fixture.state;
  const settings = { seed: '1', tokens: '5', dim: '8' };
  const firstStep = core.numericalChecksStep(state);
  const { steps: _steps, ...lastStep } = numericalChecks(core, state); // the response, without the helper's count
  const calls = [
    ['FixtureResponse', fixture],
    ['LessonResponse', core.evaluate({ state })],
    ['LessonResponse', core.evaluate({ state: { ...state, batch: 'x' } })],
    ['ChecksResponse', firstStep],
    ['ChecksResponse', lastStep], // the last, with both checks
    ['ExercisesResponse', core.exercises(settings)],
    ['AnswerResponse', core.checkAnswer({ id: 'ch26-parameter-count', responses: ['18'], self_score: settings })],
    ['OutcomeResponse', core.lessonOutcome({ questions: [{ checked: true, counts: true, revealed: false }] })],
    ['ProvenanceResponse', core.provenance({ state, tensor: 'query', index: 0 })],
    ['SeedSearchResponse', core.findSeedWithProgress({ kind: 'none', after: '', count: '50', tokens: '5', dim: '8' }, () => {})],
    ['LessonResponse', core.evaluate({ state: 'not a state' })],
  ];
  assert.equal(firstStep.done, false, 'the first step has more to come');
  assert.ok(lastStep.done && lastStep.gradcheck && lastStep.bitwise, 'the last step has both checks');
  assert.equal(calls.at(-2)[1].ok, true);
  assert.equal(calls.at(-1)[1].ok, false, 'the binding refuses a request of the wrong type');
  for (const [type, response] of calls) assert.deepEqual(conformityProblems(response, type, type, Array), [], type);
  const summary = core.selfScoreSummary(settings);
  assert.equal(summary.ok, true);
  assert.deepEqual(conformityProblems(summary, 'SelfScoreSummaryResponse', 'selfScoreSummary', Float64Array), []);
});

test('the scale section’s module answers as the field lists say', async () => {
  const scale = await loadScaleCore();
  for (const request of [{ preset: 'lesson' }, { preset: 'no such preset' }]) {
    const response = scale.scale(request);
    assert.equal(response.ok, request.preset === 'lesson');
    assert.deepEqual(conformityProblems(response, 'ScaleResponse', `scale(${request.preset})`, Array), []);
  }
});
