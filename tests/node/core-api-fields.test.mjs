// web/src/lesson/core-api.d.ts is written by hand; the C++ field lists (describe() in cpp/api/lesson_api.hpp)
// are what both front ends convert with. This holds the one to the other: `qkv-lesson fields` prints every
// described type's fields and their types, and the TypeScript compiler reads the .d.ts (inherited members,
// Omit<> and the members of a response's union resolved), type by type.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import ts from 'typescript';
import { root } from './load.mjs';

const cli = process.env.QKV_CLI ?? `${root}build/native/qkv-lesson`;
const dts = `${root}web/src/lesson/core-api.d.ts`;

// C++ types the page's module never hands to TypeScript: the tests' module's calls (the Node tests read
// those untyped) and the experiment's full view. A new described type must be declared in the .d.ts or
// listed here.
const notInDts = new Set([
  'ScoreSummaryView', 'SelfScoreView', 'SelfScoreResponse', 'RandnRequest', 'RandnResponse', 'TextResponse',
  'TensorData', 'GradcheckData', 'ProjectionResponse', 'UpstreamData', 'EvidenceRequest', 'BenchRequest', 'BenchResponse',
]);
// Where the .d.ts names a type otherwise: the request with its optional facts is declared as an extension,
// and the worker's numbers arrive as ShownNumbers (values in a Float64Array).
const dtsName = { SelfScoreRequest: 'SelfScoreRequestWithFacts' };
const alsoAs = { RoundedView: 'ShownNumbers' };

const lists = JSON.parse(execFileSync(cli, ['fields'], { encoding: 'utf8' }));

const program = ts.createProgram([dts], { strict: true, noEmit: true, skipLibCheck: true });
const checker = program.getTypeChecker();
const source = program.getSourceFile(dts);
const declared = new Map();
for (const statement of source.statements) {
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) declared.set(statement.name.text, statement);
}

// A property's type in the field lists' words: number, string, boolean, a type's name, or any of these + "[]".
function normalized(type) {
  const parts = (type.isUnion() ? type.types : [type]).filter((t) => !(t.flags & ts.TypeFlags.Undefined));
  if (parts.every((t) => t.flags & ts.TypeFlags.BooleanLike)) return 'boolean';
  if (parts.every((t) => t.flags & ts.TypeFlags.StringLike)) return 'string';
  if (parts.every((t) => t.flags & ts.TypeFlags.NumberLike)) return 'number';
  if (parts.length !== 1) return checker.typeToString(type);
  const [only] = parts;
  if (checker.isArrayType(only)) return `${normalized(checker.getTypeArguments(only)[0])}[]`;
  const name = only.aliasSymbol?.name ?? only.symbol?.name ?? checker.typeToString(only);
  if (name === 'Float64Array') return 'number[]';
  if (name === 'ShownNumbers') return 'RoundedView';
  if (name === 'SelfScoreRequestWithFacts') return 'SelfScoreRequest';
  return name;
}

// Every property of the declared type (of every member, for a union such as {ok: true, ...} | Failure).
// Failure is what any call returns when the binding refuses it (bindings.hpp: refused()), also for a
// response type without an error field of its own (FixtureResponse): its fields are kept apart.
function fieldsOf(name) {
  const declaration = declared.get(name);
  const type = checker.getTypeAtLocation(declaration.name);
  const fields = new Map();
  const failure = new Map();
  for (const member of type.isUnion() ? type.types : [type]) {
    const into = member.aliasSymbol?.name === 'Failure' ? failure : fields;
    for (const property of checker.getPropertiesOfType(member)) {
      if (into.has(property.name)) continue;
      into.set(property.name, normalized(checker.getTypeOfSymbolAtLocation(property, declaration)));
    }
  }
  return { fields, failure };
}

test('every described C++ type is declared in core-api.d.ts or listed as one TypeScript never sees', () => {
  for (const name of Object.keys(lists)) {
    if (notInDts.has(name)) assert.ok(!declared.has(dtsName[name] ?? name), `${name} is declared; take it off notInDts`);
    else assert.ok(declared.has(dtsName[name] ?? name), `${name} (cpp) has no declaration in core-api.d.ts`);
  }
  for (const name of notInDts) assert.ok(name in lists, `notInDts names ${name}, which C++ does not describe`);
});

test('each declared type has the C++ field list: the same names, each of the same type', () => {
  let compared = 0;
  for (const [name, cpp] of Object.entries(lists)) {
    if (notInDts.has(name)) continue;
    for (const tsName of [dtsName[name] ?? name, alsoAs[name]].filter(Boolean)) {
      const { fields, failure } = fieldsOf(tsName);
      for (const [field, type] of failure) if (!fields.has(field) && field in cpp) fields.set(field, type);
      assert.deepEqual([...fields.keys()].sort(), Object.keys(cpp).sort(), `${tsName}: field names (cpp ${name})`);
      for (const [field, type] of Object.entries(cpp)) {
        assert.equal(fields.get(field), type.replace(/\?$/, ''), `${tsName}.${field}: type (cpp ${name})`);
      }
      compared++;
    }
  }
  assert.ok(compared >= 25, `only ${compared} types compared`);
});
