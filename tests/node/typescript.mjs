// Loads page modules that need no DOM (web/src/lesson/*.ts) into Node: each is transpiled with the
// project's own TypeScript, its relative imports rewritten to the transpiled files. Type-only imports
// vanish in the transpiler, so a module's runtime dependencies are all that is written.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { root } from './load.mjs';

const out = mkdtempSync(join(tmpdir(), 'qkv-ts-'));

function transpile(name, done = new Set()) {
  if (done.has(name)) return;
  done.add(name);
  const source = readFileSync(`${root}web/src/lesson/${name}.ts`, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  const code = outputText.replace(/from '\.\/([\w-]+)'/g, (_, dependency) => {
    transpile(dependency, done);
    return `from './${dependency}.mjs'`;
  });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, `${name}.mjs`), code);
}

export async function importLesson(name) {
  transpile(name);
  return import(join(out, `${name}.mjs`));
}
