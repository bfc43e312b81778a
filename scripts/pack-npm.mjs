// `npm run pack:npm [-- --pack-destination DIR]`: the npm package's tarball, packed from a staging folder so that
// it carries the package's own short README (web/lib/README.md) and not the project's: npm always ships the README
// of the folder it packs, and a swap of the repository's README around `npm pack` would leave it swapped if the pack
// failed. The staging folder gets dist-lib/ (built here first), every other path package.json's "files" lists,
// the licence and notices files at the root if there are any, and package.json without what only this repository
// uses (scripts, devDependencies, private). Prints the tarball's path. As package.json's prepack (a plain `npm pack`
// at the root, which would ship the project's README) it stops with a sentence that says what to run instead.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..');
// Files npm would take from a package's root whatever "files" says, taken from the repository's root.
const rootFiles = /^(LICEN[CS]E|COPYING|NOTICE|THIRD_PARTY_NOTICES)(\.[\w.]+)?$/i;

if (process.env.npm_lifecycle_event === 'prepack') {
  console.error('npm pack at the repository root would ship the project README as the package’s: run `npm run pack:npm` (scripts/pack-npm.mjs).');
  process.exit(1);
}

const { values } = parseArgs({ options: { 'pack-destination': { type: 'string', default: repo } } });

// QKV_LIB_BUILT=1: dist-lib/ was built just before (scripts/test.sh does, so that test files running side by side
// read one dist-lib/ rather than rebuild it under each other).
if (process.env.QKV_LIB_BUILT !== '1') await run('npm', ['run', '--silent', 'build:lib'], { cwd: repo });
const manifest = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8'));
const { scripts, devDependencies, private: _private, ...published } = manifest;

const staging = await mkdtemp(join(tmpdir(), 'qkv-lesson-pack-'));
try {
  await writeFile(join(staging, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
  await cp(join(repo, 'web/lib/README.md'), join(staging, 'README.md'));
  for (const path of published.files ?? []) await cp(join(repo, path), join(staging, path), { recursive: true });
  for (const name of (await readdir(repo)).filter((name) => rootFiles.test(name))) await cp(join(repo, name), join(staging, name));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', resolve(values['pack-destination']), '--loglevel', 'warn'], { cwd: staging, maxBuffer: 1 << 24 });
  const [{ filename }] = JSON.parse(stdout);
  console.log(join(resolve(values['pack-destination']), filename));
} finally {
  await rm(staging, { recursive: true, force: true });
}
